"""One conversation on the local engine: its id, history and system prompt, and the answer it is writing.

``ask`` drives the answer one event at a time, each step a task of its own, so that ``cancel`` can stop it
wherever it waits (the model's stream, retrieval, verification) and the answer still ends with its
``cancelled`` event. The answer gets its inputs from the engine and the conversation, and hands back only
its turn: nothing of it writes into either.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING

from hippo_tui.engine.answer import Answer
from hippo_tui.events import EndEvent, ErrorEvent, Event

if TYPE_CHECKING:
    from hippo_tui.engine.local import Engine

# The model is sent at most ``history_turns`` earlier turns; a long conversation keeps no more than this.
MAX_HISTORY = 50


class ConversationBusy(RuntimeError):
    """A question was asked while this conversation is still writing an answer."""


class LocalConversation:
    def __init__(
        self,
        engine: Engine,
        *,
        system_prompt: str,
        asked_by: str | None,
        client: str | None,
        clock: Callable[[], float],
    ) -> None:
        self._engine = engine
        self._id = uuid.uuid4().hex
        self._prompt = system_prompt
        self._who = {"asked_by": asked_by, "client": client}
        self._clock = clock
        self._history: list[tuple[str, str]] = []  # (question, answer), for the model
        self._running: Answer | None = None

    @property
    def id(self) -> str:
        return self._id

    @property
    def system_prompt(self) -> str:
        return self._prompt

    @property
    def busy(self) -> bool:
        """An answer is being written (a second ``ask`` now raises ``ConversationBusy``)."""
        return self._running is not None

    @property
    def turns(self) -> int:
        return len(self._history)

    async def set_system_prompt(self, text: str) -> None:
        self._prompt = text

    async def ask(self, question: str) -> AsyncGenerator[Event, None]:
        if self._running is not None:
            raise ConversationBusy("this conversation is still writing an answer")
        history = tuple(self._history)
        inputs = {"system_prompt": self._prompt, "conversation_id": self._id, "history": history, **self._who}
        async with self._engine.answering(**inputs) as fixed:
            run = self._running = Answer(fixed, question, clock=self._clock)
            try:
                async with aclosing(_drive(run)) as events:  # a consumer that stops reading closes it now
                    async for event in events:
                        yield event
            finally:
                if self._running is run:
                    self._running = None
                self._engine.learn(run)
                if run.turn is not None:
                    self._history.append(run.turn)
                    del self._history[:-MAX_HISTORY]

    async def cancel(self) -> None:
        run = self._running
        if run is None:
            return
        run.cancel_requested = True
        if run.step is not None and not run.step.done():
            run.step.cancel()

    async def close(self) -> None:
        await self.cancel()
        self._engine.forget(self)


async def _drive(run: Answer) -> AsyncGenerator[Event, None]:
    """The answer's events, one step (task) at a time; cancelled between or within steps, it ends with its
    ``cancelled`` end once its record is written."""
    inner = run.events()
    try:
        while not run.cancel_requested:  # cancelled between steps: closing ``inner`` writes the record
            run.step = asyncio.ensure_future(anext(inner))
            try:
                event = await run.step
            except StopAsyncIteration:
                return
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not run.cancel_requested or (task is not None and task.cancelling()):
                    raise  # the front end's own task is being cancelled: nothing to send
                break
            yield event
            if isinstance(event, EndEvent | ErrorEvent):
                return
        await inner.aclose()
        yield run.cancelled()
    finally:
        await inner.aclose()
