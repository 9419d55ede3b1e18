"""The answer engine: one question in, the event stream of one answer out. Headless; no front end here.

The engine holds what lasts between answers (store, backend, safety policy, conversation history, whether the
server takes tools); each question is one ``Answer`` (engine/answer.py), which runs the phases and writes the
audit record. ``ask`` drives the answer one event at a time so that ``cancel`` can stop it wherever it waits.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

from hippo_tui.audit_stats import AuditStats, StatsBy
from hippo_tui.backends import Backend, open_backend
from hippo_tui.backends.chat import RetryPolicy
from hippo_tui.config import Settings
from hippo_tui.engine.answer import MAX_TOOL_ROUNDS, Answer
from hippo_tui.engine.protocol import EngineInfo
from hippo_tui.events import EndEvent, ErrorEvent, Event
from hippo_tui.guard import SafetyPolicy
from hippo_tui.models import AnswerRecord
from hippo_tui.prompts import DEFAULT_SYSTEM_PROMPT
from hippo_tui.store import Store, open_store

__all__ = ["MAX_TOOL_ROUNDS", "Engine", "load_policy"]


class Engine:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        backend: Backend,
        *,
        clock: Callable[[], float],
        owns_store: bool,
    ) -> None:
        self.settings = settings
        self.store = store
        self._backend = backend
        self._clock = clock
        self._owns_store = owns_store
        self.default_system_prompt: str = settings.system_prompt or DEFAULT_SYSTEM_PROMPT
        self.system_prompt: str = self.default_system_prompt
        self.retry = RetryPolicy()
        self.tools_refused = False  # this server refused the search tool once: stop offering it
        self.history: list[tuple[str, str]] = []  # (question, answer) of this conversation, for the model
        # The model is sent at most ``history_turns`` (<= 50) of them: a long session keeps no more.
        self.max_history = 50
        self.conversation_id = uuid.uuid4().hex
        # Parsed once: a bad policy file fails at start, not mid-answer; each answer adds its own canary.
        self.policy = load_policy(settings.policy)
        self._first_record = settings.record
        self._recordings = 0
        self._running: Answer | None = None

    @classmethod
    async def create(
        cls, settings: Settings, *, store: Store | None = None, clock: Callable[[], float] = time.monotonic
    ) -> Engine:
        backend = open_backend(settings)
        owns = store is None
        try:
            if store is None:
                store = await open_store(settings)
            return cls(settings, store, backend, clock=clock, owns_store=owns)
        except BaseException:
            await backend.aclose()
            if owns and store is not None:
                await store.close()
            raise

    # -- what the UI reads --------------------------------------------------------------------

    @property
    def backend_label(self) -> str:
        return self._backend.label

    @property
    def model(self) -> str:
        return self._backend.model

    @property
    def backend(self) -> Backend:
        return self._backend

    async def info(self) -> EngineInfo:
        return EngineInfo(
            backend=self._backend.label,
            model=self._backend.model,
            base_url=self._backend.base_url,
            kb_name=self.store.kb_name,
            kb_size=await self.store.count(),
        )

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        return await self.store.get_answer(audit_id)

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        return await self.store.list_answers(limit=limit)

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        return await self.store.audit_stats(by, limit=limit)

    def new_conversation(self) -> None:
        self.history.clear()
        self.conversation_id = uuid.uuid4().hex

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        """Switch model or endpoint; applies to the next question. Unset arguments keep their value."""
        update: dict[str, Any] = {
            k: v for k, v in (("base_url", base_url), ("model", model)) if v is not None
        }
        if api_key is not None:
            update["api_key"] = api_key
        if backend is not None:
            update["backend"] = backend
        elif base_url is not None:
            update["backend"] = "openai"
        if self._first_record is not None:
            # A cassette holds one backend's session: the new backend records next to the first one.
            self._recordings += 1
            first = self._first_record
            update["record"] = first.with_name(f"{first.stem}.{self._recordings}{first.suffix}")
        settings = Settings.model_validate({**self.settings.model_dump(), **update})
        new = open_backend(settings)
        self.tools_refused = False  # a new endpoint or model may take tools
        old, self._backend, self.settings = self._backend, new, settings
        await old.aclose()

    async def close(self) -> None:
        await self._backend.aclose()
        if self._owns_store:
            await self.store.close()

    # -- one answer ---------------------------------------------------------------------------

    async def ask(self, question: str) -> AsyncGenerator[Event, None]:
        """Each step of the answer runs as a task of its own, so that ``cancel`` can stop it wherever it waits
        (the model's stream, retrieval, verification) and the answer still ends with its ``cancelled`` event."""
        run = Answer(self, question, clock=self._clock)
        self._running = run
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
            if self._running is run:
                self._running = None
            await inner.aclose()

    async def cancel(self) -> None:
        run = self._running
        if run is None:
            return
        run.cancel_requested = True
        if run.step is not None and not run.step.done():
            run.step.cancel()


def load_policy(path: Path | None) -> SafetyPolicy:
    """The safety policy without a canary (each answer adds its own): read once, when the engine starts."""
    return SafetyPolicy.from_toml(path) if path is not None else SafetyPolicy.default()
