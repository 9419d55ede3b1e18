"""The real engine's events for a few demo questions, recorded once and replayed into the UI.

Screenshots and snapshot tests show the real product: the offline backend on the demo knowledge base
(and two bundled demo cassettes), with a counter for a clock so every ``t`` is the same on every run.
The recorded events then drive the app through ``ScriptedEngine`` (which can pause mid-answer), and the
app reads the real store written by the recording (KB size, audit records).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hippo_tui.config import Settings
from hippo_tui.events import Event
from hippo_tui.prompts import DEFAULT_SYSTEM_PROMPT
from tests.support.asking import ask_once
from tests.support.scripted import ScriptedEngine

CASSETTES = resources.files("hippo_tui") / "data" / "cassettes"


@dataclass(frozen=True)
class Demo:
    """One demo question and how the engine is set up to answer it."""

    question: str
    cassette: str | None = None  # a bundled cassette replayed instead of the offline backend
    options: dict[str, Any] = field(default_factory=dict)  # more Settings fields


# Asked in this order into one data folder, so their audit ids are 1, 2, 3, 4.
DEMOS: dict[str, Demo] = {
    "verified": Demo("How should uncomplicated cystitis be treated?"),
    # One source per search: the second part of the question needs another, found mid-answer.
    "reset": Demo(
        "What is the blood pressure target for hypertension and how is a gout flare treated?",
        options={"retrieval_k": 1},
    ),
    "safety": Demo("What dose of amlodipine should my patient start on?", cassette="safety-trip.jsonl"),
    # The cassette's grounding reply never comes: a short limit reaches the timeout without the 12 s wait.
    "timeout": Demo(
        "What dose of amlodipine?", cassette="grounding-timeout.jsonl", options={"grounding_timeout": 0.2}
    ),
}


# Recorded only when asked for by name (the screenshots), after DEMOS: the snapshot tests' store stays as it is.
EXTRA_DEMOS: dict[str, Demo] = {
    "three-outcomes": Demo(
        "How is hypertension diagnosed and treated, and how is cystitis treated?", cassette="three-outcomes.jsonl"
    ),
}


@dataclass
class Recording:
    """A demo's events plus what the UI shows of the engine that produced them."""

    question: str
    events: list[Event]
    backend_label: str
    model: str


def counter_clock(step: float = 0.05) -> Callable[[], float]:
    """A clock that advances ``step`` seconds per reading: real order, fixed values."""
    ticks = itertools.count()
    return lambda: round(next(ticks) * step, 4)


def demo_settings(home: Path, demo: Demo | None = None) -> Settings:
    options: dict[str, Any] = {"home": home, "offline_tokens_per_second": 0}
    if demo is not None:
        options.update(demo.options)
        if demo.cassette:
            options.update(replay=Path(str(CASSETTES / demo.cassette)), replay_speed=0)
    return Settings(**options)


async def record(home: Path, names: list[str] | None = None) -> dict[str, Recording]:
    """Ask each demo question of the real engine, each in its own engine on the same data folder."""
    from hippo_tui.engine import Engine  # not at import time: the screenshot script imports this lazily

    out: dict[str, Recording] = {}
    for name in names or list(DEMOS):
        demo = DEMOS.get(name) or EXTRA_DEMOS[name]
        engine = await Engine.create(demo_settings(home, demo), clock=counter_clock())
        try:
            events = await ask_once(engine, demo.question)
            info = await engine.info()
            out[name] = Recording(demo.question, events, info.backend, info.model)
        finally:
            await engine.close()
    return out


def record_sync(home: Path, names: list[str] | None = None) -> dict[str, Recording]:
    return asyncio.run(record(home, names))


# When a recorded answer was asked, as the audit panel shows it: a fixed time, like the counter clock,
# so the same recording draws the same frame on every run.
FROZEN_CREATED = "2026-01-01T09:00:00+00:00"
# Timings the backend measures on the wall clock (not the engine's clock): left out of a frozen record.
WALL_CLOCK_TIMINGS = frozenset({"model_ttft"})


class FrozenTimes:
    """The real store, with every audit record's ``created`` read as one fixed time and its wall-clock
    timings left out, so a recording draws the same audit panel on every run."""

    def __init__(self, store: Any, created: str = FROZEN_CREATED) -> None:
        self._store = store
        self._created = created

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def get_answer(self, answer_id: int) -> Any:
        record = await self._store.get_answer(answer_id)
        if record is None:
            return None
        timings = {k: v for k, v in record.timings.items() if k not in WALL_CLOCK_TIMINGS}
        return record.model_copy(update={"created": self._created, "timings": timings})


class RecordedEngine(ScriptedEngine):
    """Plays a recording on the real store of the data folder it was recorded in."""

    async def close(self) -> None:
        await super().close()
        await self.store.close()


def replay_factory(
    recording: Recording, pause_after: int | None = None
) -> tuple[RecordedEngine, Callable[[Settings], Awaitable[RecordedEngine]]]:
    """An engine playing ``recording`` (pausing after ``pause_after`` events), and the app engine
    factory that opens it on the real store: inside the app's event loop, as a store belongs to its loop.
    """
    engine = RecordedEngine(
        recording.events,
        pause_after=pause_after,
        backend_label=recording.backend_label,
        model=recording.model,
    )
    engine._default_prompt = engine.system_prompt = DEFAULT_SYSTEM_PROMPT  # the real engine's

    async def factory(settings: Settings) -> RecordedEngine:
        from hippo_tui.store import open_store

        engine.store = FrozenTimes(await open_store(settings))  # type: ignore[assignment]
        return engine

    return engine, factory
