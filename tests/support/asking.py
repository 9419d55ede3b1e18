"""Asking an engine one question the way a front end does: a conversation of its own, its events, closed."""

from __future__ import annotations

from hippo_tui.engine.protocol import AnswerEngine
from hippo_tui.events import Event


async def ask_once(engine: AnswerEngine, question: str) -> list[Event]:
    conversation = await engine.open_conversation()
    try:
        return [e async for e in conversation.ask(question)]
    finally:
        await conversation.close()
