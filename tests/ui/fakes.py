"""Fakes and pilot helpers for the UI tests.

The scripted engine and its demo scripts live in the package (the screenshot script and the UI benchmark
use them too); they are re-exported here under the name the tests use.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from hippo_tui.ui.scripted import (
    IDS,
    QUESTION,
    SOURCES,
    ScriptedEngine,
    ScriptedStore,
    answer_events,
    error_events,
    long_answer_events,
    reset_events,
    safety_events,
    timeout_events,
)

__all__ = [
    "IDS",
    "QUESTION",
    "SOURCES",
    "ScriptedEngine",
    "ScriptedStore",
    "answer_events",
    "ask",
    "error_events",
    "long_answer_events",
    "reset_events",
    "safety_events",
    "timeout_events",
    "until",
]


async def until(pilot: Pilot, condition: Callable[[], bool], *, tries: int = 400) -> None:
    """Let the app process messages until ``condition()`` holds (no wall-clock sleeps)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("condition never became true")


async def ask(pilot: Pilot, question: str) -> None:
    """Type a question into the prompt and press Enter."""
    app = pilot.app
    await until(pilot, lambda: not app.prompt.disabled)
    app.prompt.value = question
    app.prompt.focus()
    await pilot.press("enter")
