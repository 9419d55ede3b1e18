"""Snapshot tests of the main screen's states at 40x20, 80x24 and 120x34.

What is shown is the real product: the events the real engine produced for the demo questions (offline
backend, demo KB, two bundled cassettes; a counter for a clock), replayed through the scripted engine so an
answer can be frozen at a fixed event, on the real store they were recorded into (KB size, audit ids).
A frozen spinner and no cursor blink (``animate=False``) make every frame exact. The server error stays
scripted: the offline backend has no server to fail.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from hippo_tui.events import Event
from hippo_tui.ui.app import HippoApp
from tests.support.recorded import Recording, demo_settings, replay_factory
from tests.ui.fakes import QUESTION, ScriptedEngine, error_events, play, until

SIZES = {"40x20": (40, 20), "80x24": (80, 24), "120x34": (120, 34)}


def _index(events: list[Event], match: Callable[[Event], bool]) -> int:
    return next(i for i, e in enumerate(events) if match(e))


def _checking(ev: list[Event]) -> int:
    return _index(ev, lambda e: getattr(e, "phase", "") == "checking") + 1


def _after_first_marker(ev: list[Event]) -> int:
    # Mid-sentence after the first pending citation number: text, a [·1] and more text streaming.
    return _index(ev, lambda e: "[·" in getattr(e, "display", "")) + 8


def _after_reset(ev: list[Event]) -> int:
    # The retraction, the new search and its sources, and the answer starting again.
    return _index(ev, lambda e: e.type == "reset") + 6


# state -> (demo, pause after this many events; -1: do not ask; None: play to the end)
STATES: dict[str, tuple[str, Callable[[list[Event]], int] | None]] = {
    "idle": ("verified", lambda ev: -1),
    "thinking": ("verified", lambda ev: 2),
    "sources": ("verified", lambda ev: 4),
    "mid_stream": ("verified", _after_first_marker),
    "after_reset": ("reset", _after_reset),
    "checking": ("verified", _checking),
    "verified_end": ("verified", None),
    "safety_withdrawal": ("safety", None),
    "verification_timeout": ("timeout", None),
    "server_error": ("", None),  # scripted
}


def _scenario(
    state: str, home: Path, recordings: dict[str, Recording]
) -> tuple[HippoApp, Callable[[Pilot], Awaitable[None]]]:
    demo, pause = STATES[state]
    if demo:
        recording = recordings[demo]
        pause_after = pause(recording.events) if pause else None
        _engine, factory = replay_factory(recording, None if pause_after == -1 else pause_after)
        question = recording.question
        app = HippoApp(demo_settings(home), animate=False, engine_factory=factory)
    else:
        pause_after, question = None, QUESTION
        app = HippoApp(demo_settings(home), engine=ScriptedEngine(error_events()), animate=False)

    async def run_before(pilot: Pilot) -> None:
        await until(pilot, lambda: app.engine is not None and not app.prompt.disabled)
        if pause_after == -1:
            return
        await play(pilot, question, pause_after)
        if state == "sources" and app.screen.has_class("-narrow"):
            await pilot.press("ctrl+b")  # thin: the sources are an overlay, opened on demand
        await pilot.pause()

    return app, run_before


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("state", list(STATES))
def test_main_screen(snap_compare, recorded, state: str, size: str) -> None:
    home, recordings = recorded
    app, run_before = _scenario(state, home, recordings)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
