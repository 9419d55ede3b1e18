"""Snapshot tests of the main screen's states at 40x20, 80x24 and 120x34.

Deterministic by construction: the scripted engine (fixed events, fixed ``t``), a frozen spinner and
no cursor blink (``animate=False``), answers paused at a fixed event so mid-stream states are exact.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from hippo_tui.events import Event
from hippo_tui.ui.app import HippoApp
from tests.ui.fakes import (
    QUESTION,
    ScriptedEngine,
    answer_events,
    error_events,
    play,
    reset_events,
    safety_events,
    until,
)

SIZES = {"40x20": (40, 20), "80x24": (80, 24), "120x34": (120, 34)}


def _checking_index(events: list[Event]) -> int:
    return next(i for i, e in enumerate(events) if getattr(e, "phase", "") == "checking")


def _reset_index(events: list[Event]) -> int:
    return next(i for i, e in enumerate(events) if e.type == "reset")


# state -> (events, pause after this many events or None to play to the end)
STATES: dict[str, tuple[Callable[[], list[Event]], Callable[[list[Event]], int] | None]] = {
    "idle": (answer_events, lambda ev: -1),
    "thinking": (answer_events, lambda ev: 1),
    "sources": (answer_events, lambda ev: 3),
    "mid_stream": (answer_events, lambda ev: 5),
    "after_reset": (reset_events, lambda ev: _reset_index(ev) + 4),
    "checking": (answer_events, lambda ev: _checking_index(ev) + 1),
    "verified_end": (answer_events, None),
    "safety_withdrawal": (safety_events, None),
    "server_error": (error_events, None),
}


def _scenario(state: str) -> tuple[ScriptedEngine, Callable[[Pilot], Awaitable[None]]]:
    make_events, pause = STATES[state]
    events = make_events()
    pause_after = pause(events) if pause else None

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, HippoApp)
        await until(pilot, lambda: not app.prompt.disabled)
        if pause_after == -1:
            return
        await play(pilot, QUESTION, pause_after)
        if state == "sources" and app.screen.has_class("-narrow"):
            await pilot.press("ctrl+b")  # thin: the sources are an overlay, opened on demand
        await pilot.pause()

    return ScriptedEngine(events, pause_after=pause_after), run_before


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("state", list(STATES))
def test_main_screen(snap_compare, settings, state: str, size: str) -> None:
    engine, run_before = _scenario(state)
    app = HippoApp(settings, engine=engine, animate=False)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
