"""Asking an engine one question the way a front end does: a conversation of its own, its events, closed."""

from __future__ import annotations

from collections.abc import Iterable

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.engine.protocol import AnswerEngine
from hippo_tui.events import EndEvent, Event
from hippo_tui.store import Store


async def ask_once(engine: AnswerEngine, question: str) -> list[Event]:
    conversation = await engine.open_conversation()
    try:
        return [e async for e in conversation.ask(question)]
    finally:
        await conversation.close()


async def final_answers(store: Store, settings: Settings, questions: Iterable[str]) -> dict[str, EndEvent]:
    """Each question's end event, asked of an engine of its own over ``store`` (which stays open), as a new
    session of the app would ask it."""
    out = {}
    for q in questions:
        engine = await Engine.create(settings, store=store)
        try:
            end = (await ask_once(engine, q))[-1]
        finally:
            await engine.close()
        assert isinstance(end, EndEvent)
        out[q] = end
    return out
