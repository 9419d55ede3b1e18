"""Asking an engine one question the way a front end does: a conversation of its own, its events, closed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

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


def answers_over(
    home: Path, passages: Mapping[str, tuple[str, str]], ids: Mapping[str, str], questions: Iterable[str]
) -> dict[str, EndEvent]:
    """Each question's end event from an offline engine over a knowledge base of ``passages`` (key: title,
    excerpt; ``ids``: key to passage id), seeded into a fresh data folder ``home``."""
    kb = home / "clinic.jsonl"
    kb.write_text(
        "".join(
            json.dumps({"id": ids[k], "title": t, "excerpt": e}) + "\n" for k, (t, e) in passages.items()
        ),
        encoding="utf-8",
    )

    async def ask_all() -> dict[str, EndEvent]:
        store = await Store.open(home / "hippo.db", seed=kb)
        try:
            return await final_answers(store, Settings(home=home, offline_tokens_per_second=0), questions)
        finally:
            await store.close()

    return asyncio.run(ask_all())


def cited(end: EndEvent) -> set[str]:
    """The ids of the passages an answer cites."""
    return {c.id for c in end.citations}
