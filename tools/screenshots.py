"""Write SVG screenshots of the app's key states: ``python -m tools.screenshots OUTDIR``.

The screenshots show the real product: the real engine answers the demo questions first (offline backend,
demo KB, two bundled cassettes; a counter for a clock), in a throwaway data folder; each state then runs
the app headless on those recorded events (paused at a fixed event for mid-answer states), on the real
store they were recorded into, with a frozen spinner, and saves ``app.export_screenshot()``. The server
error is scripted: the offline backend has no server to fail.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot

from hippo_tui.events import Event
from hippo_tui.ui.app import HippoApp
from tests.support.pilot import play, until
from tests.support.recorded import EXTRA_DEMOS, Recording, demo_settings, record_sync, replay_factory
from tests.support.scripted import QUESTION, ScriptedEngine, error_events


@dataclass(frozen=True)
class Shot:
    name: str
    size: tuple[int, int]
    demo: str  # a recorded demo (recorded.DEMOS), or "" for the scripted server error
    pause: Callable[[list[Event]], int] | None = None  # stop after this many events (None: to the end)
    ask: bool = True
    keys: tuple[str, ...] = ()  # pressed once the answer is where it should be
    title: str = ""


def _index(events: list[Event], match: Callable[[Event], bool]) -> int:
    return next(i for i, e in enumerate(events) if match(e))


def _streaming(events: list[Event]) -> int:
    return _index(events, lambda e: "[·" in getattr(e, "display", "")) + 8


def _checking(events: list[Event]) -> int:
    return _index(events, lambda e: getattr(e, "phase", "") == "checking") + 1


def _after_reset(events: list[Event]) -> int:
    return _index(events, lambda e: e.type == "reset") + 6


SHOTS = [
    Shot("idle-80x24", (80, 24), "verified", ask=False, title="Ready for a question"),
    Shot("streaming-80x24", (80, 24), "verified", _streaming, title="Streaming, pending citation numbers"),
    Shot("checking-80x24", (80, 24), "verified", _checking, title="Checking citations"),
    Shot("verified-120x34", (120, 34), "verified", title="Verified answer with its sources"),
    Shot("verified-80x24", (80, 24), "verified", title="Verified answer, 80 columns"),
    Shot("verified-40x20", (40, 20), "verified", title="Verified answer, 40 columns"),
    Shot(
        "sources-overlay-40x20",
        (40, 20),
        "verified",
        keys=("ctrl+b",),
        title="Sources overlay, 40 columns",
    ),
    Shot("reset-80x24", (80, 24), "reset", _after_reset, title="A retraction mid-answer, with its note"),
    Shot("safety-withdrawal-80x24", (80, 24), "safety", title="Withdrawn by the safety check"),
    Shot(
        "verification-timeout-80x24",
        (80, 24),
        "timeout",
        title="Grounding check timed out: citations shown, unchecked",
    ),
    Shot("server-error-80x24", (80, 24), "", title="Server error: what to do next"),
    Shot("audit-80x24", (80, 24), "verified", keys=("f3",), title="Audit panel"),
    Shot("help-80x24", (80, 24), "verified", ask=False, keys=("f1",), title="Help"),
    Shot("three-outcomes-80x24", (80, 24), "three-outcomes", title="Supported, contradicted, not established"),
    Shot(
        "audit-three-outcomes-80x24",
        (80, 24),
        "three-outcomes",
        keys=("f3", "end"),
        title="Audit panel: why two citations were not shown",
    ),
]


async def _drive(pilot: Pilot, shot: Shot, question: str, pause_after: int | None) -> None:
    app = pilot.app
    assert isinstance(app, HippoApp)
    await until(pilot, lambda: app.engine is not None and not app.prompt.disabled)
    if shot.ask:
        await play(pilot, question, pause_after)
    if shot.keys:
        await pilot.press(*shot.keys)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def capture(shot: Shot, home: Path, recordings: dict[str, Recording]) -> str:
    """Run one state headless on the recordings made in ``home`` and return its SVG."""
    settings = demo_settings(home)
    if shot.demo:
        recording = recordings[shot.demo]
        pause_after = shot.pause(recording.events) if shot.pause else None
        engine, factory = replay_factory(recording, pause_after)
        question = recording.question
        app = HippoApp(settings, animate=False, engine_factory=factory)
    else:
        pause_after, question = None, QUESTION
        engine = ScriptedEngine(error_events())
        app = HippoApp(settings, engine=engine, animate=False)
    svg: list[str] = []

    async def pilot_fn(pilot: Pilot) -> None:
        await _drive(pilot, shot, question, pause_after)
        svg.append(app.export_screenshot(title=f"hippo-tui — {shot.title or shot.name}"))
        engine.release()
        app.exit()

    run: Callable[[Pilot], Awaitable[None]] = pilot_fn
    app.run(headless=True, size=shot.size, auto_pilot=run)
    if not svg:
        raise RuntimeError(f"no screenshot for {shot.name}")
    return svg[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.screenshots", description=__doc__)
    parser.add_argument("outdir", type=Path, help="folder to write the SVG files into")
    parser.add_argument("--only", nargs="*", help="names of states to capture (default: all)")
    args = parser.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    shots = [s for s in SHOTS if not args.only or s.name in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        recordings = record_sync(home)
        recordings |= record_sync(home, list(EXTRA_DEMOS))
        for shot in shots:
            path = args.outdir / f"{shot.name}.svg"
            path.write_text(capture(shot, home, recordings), encoding="utf-8")
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
