"""Write SVG screenshots of the app's key states: ``python -m hippo_tui.ui.screenshots OUTDIR``.

Each state runs the real app headless on the scripted engine (deterministic events, frozen spinner),
in a throwaway data folder, and saves ``app.export_screenshot()``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot

from hippo_tui.config import Settings
from hippo_tui.events import Event
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.scripted import (
    QUESTION,
    ScriptedEngine,
    answer_events,
    error_events,
    play,
    reset_events,
    safety_events,
    until,
)


@dataclass(frozen=True)
class Shot:
    name: str
    size: tuple[int, int]
    events: Callable[[], list[Event]]
    pause_after: int | None = None  # stop the answer after this many events (None: play to the end)
    ask: bool = True
    keys: tuple[str, ...] = ()  # pressed once the answer is where it should be
    title: str = ""


def _checking(events: list[Event]) -> int:
    return next(i for i, e in enumerate(events) if getattr(e, "phase", "") == "checking") + 1


SHOTS = [
    Shot("idle-80x24", (80, 24), answer_events, ask=False, title="Ready for a question"),
    Shot(
        "streaming-80x24", (80, 24), answer_events, pause_after=6, title="Streaming, pending citation numbers"
    ),
    Shot(
        "checking-80x24",
        (80, 24),
        answer_events,
        pause_after=_checking(answer_events()),
        title="Checking citations",
    ),
    Shot("verified-120x34", (120, 34), answer_events, title="Verified answer with its sources"),
    Shot("verified-80x24", (80, 24), answer_events, title="Verified answer, 80 columns"),
    Shot("verified-40x20", (40, 20), answer_events, title="Verified answer, 40 columns"),
    Shot(
        "sources-overlay-40x20",
        (40, 20),
        answer_events,
        keys=("ctrl+b",),
        title="Sources overlay, 40 columns",
    ),
    Shot("reset-80x24", (80, 24), reset_events, pause_after=9, title="A retraction, with its note"),
    Shot("safety-withdrawal-80x24", (80, 24), safety_events, title="Withdrawn by the safety check"),
    Shot("server-error-80x24", (80, 24), error_events, title="Server error: what to do next"),
    Shot("audit-80x24", (80, 24), answer_events, keys=("f3",), title="Audit panel"),
    Shot("help-80x24", (80, 24), answer_events, ask=False, keys=("f1",), title="Help"),
]


async def _drive(pilot: Pilot, shot: Shot) -> None:
    app = pilot.app
    assert isinstance(app, HippoApp)
    await until(pilot, lambda: not app.prompt.disabled)
    if shot.ask:
        await play(pilot, QUESTION, shot.pause_after)
    if shot.keys:
        await pilot.press(*shot.keys)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def capture(shot: Shot, home: Path) -> str:
    """Run one state headless and return its SVG."""
    engine = ScriptedEngine(shot.events(), pause_after=shot.pause_after)
    app = HippoApp(Settings(home=home), engine=engine, animate=False)
    svg: list[str] = []

    async def pilot_fn(pilot: Pilot) -> None:
        await _drive(pilot, shot)
        svg.append(app.export_screenshot(title=f"hippo-tui — {shot.title or shot.name}"))
        engine.release()
        app.exit()

    run: Callable[[Pilot], Awaitable[None]] = pilot_fn
    app.run(headless=True, size=shot.size, auto_pilot=run)
    if not svg:
        raise RuntimeError(f"no screenshot for {shot.name}")
    return svg[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hippo_tui.ui.screenshots", description=__doc__)
    parser.add_argument("outdir", type=Path, help="folder to write the SVG files into")
    parser.add_argument("--only", nargs="*", help="names of states to capture (default: all)")
    args = parser.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    shots = [s for s in SHOTS if not args.only or s.name in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        for shot in shots:
            path = args.outdir / f"{shot.name}.svg"
            path.write_text(capture(shot, Path(tmp)), encoding="utf-8")
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
