"""One Textual message per engine event type, posted by the answer's consumer and handled by the app's
``on_answer_…`` handlers. Each carries the ``Answer`` it belongs to (a new question may start while an
earlier answer still verifies). Text comes as a batch: the text events the engine had released by the
time the previous batch was drawn, drawn at once."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message

from hippo_tui.ui.session import Answer

if TYPE_CHECKING:  # the event models (pydantic) load with the engine, after the app's first frame
    from hippo_tui.events import (
        EndEvent,
        ErrorEvent,
        Event,
        ResetEvent,
        SourcesEvent,
        StartEvent,
        TextEvent,
        ThinkingEvent,
    )


class AnswerMessage(Message):
    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer = answer
        self.drawn = asyncio.Event()  # set once its handler has run: the consumer then reads on


M = TypeVar("M", bound=AnswerMessage)


def acknowledges(
    handler: Callable[[Any, M], Awaitable[None] | None],
) -> Callable[[Any, M], Awaitable[None]]:
    """For an ``on_answer_…`` handler: tell the consumer its message is drawn, however the handler ends."""

    @functools.wraps(handler)
    async def handle(self: Any, message: M) -> None:
        try:
            result = handler(self, message)
            if inspect.isawaitable(result):
                await result
        finally:
            message.drawn.set()

    return handle


class AnswerStarted(AnswerMessage):
    def __init__(self, answer: Answer, event: StartEvent) -> None:
        super().__init__(answer)
        self.event = event


class AnswerThinking(AnswerMessage):
    def __init__(self, answer: Answer, event: ThinkingEvent) -> None:
        super().__init__(answer)
        self.event = event


class AnswerSources(AnswerMessage):
    def __init__(self, answer: Answer, event: SourcesEvent) -> None:
        super().__init__(answer)
        self.event = event


class AnswerText(AnswerMessage):
    def __init__(self, answer: Answer, events: list[TextEvent]) -> None:
        super().__init__(answer)
        self.events = events

    @property
    def display(self) -> str:
        return "".join(e.display for e in self.events)

    @property
    def numbers(self) -> dict[str, int]:
        """The pending numbers after the batch (each event carries every number of its turn so far)."""
        return self.events[-1].numbers


class AnswerReset(AnswerMessage):
    def __init__(self, answer: Answer, event: ResetEvent) -> None:
        super().__init__(answer)
        self.event = event


class AnswerEnded(AnswerMessage):
    def __init__(self, answer: Answer, event: EndEvent, skipped: list[Event] | None = None) -> None:
        super().__init__(answer)
        self.event = event
        # Text (and phase notes) read before the end and never drawn on their own: the end's final text
        # has it all. They still go in the inspector's log.
        self.skipped = skipped or []


class AnswerFailed(AnswerMessage):
    def __init__(self, answer: Answer, event: ErrorEvent) -> None:
        super().__init__(answer)
        self.event = event


# The message for a batch of one event, by the event's ``type`` (each model's tag), not its class: the
# classes load with the engine. Text comes as ``AnswerText`` (a batch of one or more).
_ONE_EVENT: dict[str, Callable[[Answer, Any], AnswerMessage]] = {
    "start": AnswerStarted,
    "thinking": AnswerThinking,
    "sources": AnswerSources,
    "reset": AnswerReset,
    "end": AnswerEnded,
    "error": AnswerFailed,
}


# Every event type the app draws: the ones above, and text (in batches).
HANDLED_TYPES = frozenset({*_ONE_EVENT, "text"})


def message_for(answer: Answer, batch: list[Event]) -> AnswerMessage:
    """The message that carries ``batch`` (one event, consecutive text events, or text through the end)
    to its handler."""
    last = batch[-1]
    if len(batch) > 1 and last.type == "end":
        return AnswerEnded(answer, last, batch[:-1])
    texts = [e for e in batch if e.type == "text"]
    if len(texts) == len(batch):
        return AnswerText(answer, texts)
    [event] = batch
    make = _ONE_EVENT.get(event.type)
    if make is not None:
        return make(answer, event)
    raise TypeError(f"no message for {type(event).__name__}")
