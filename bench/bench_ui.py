"""UI benchmark: a 50,000-character answer streamed through the whole app, against a naive baseline.

One headless run prints a table:
- ours: the app (scripted engine at unlimited speed -> ask worker -> MarkdownStream -> final update()):
  characters per second end to end, and the lag from the last model chunk to the final render;
- naive: the same pieces through ``Markdown.update(full_text)`` per chunk (on a shorter prefix, because
  it is quadratic), compared with ours on the same prefix, as a ratio;
- time from launch to the first frame (a fresh interpreter starting the real app headless).

Targets: >= 5,000 characters/s end to end; first frame <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from hippo_tui.config import Settings
from hippo_tui.events import Event, TextEvent
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.widgets.safe import markdown_parser

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted engine lives with the tests
from tests.support.scripted import ScriptedEngine, long_answer_events, long_answer_pieces

SIZE = (100, 34)


class _TimedEngine(ScriptedEngine):
    """Notes when the last text piece leaves the engine."""

    last_chunk_at = 0.0

    async def ask(self, question: str):
        async for event in super().ask(question):
            if isinstance(event, TextEvent):
                self.last_chunk_at = time.perf_counter()
            yield event


async def _wait(pilot, condition) -> None:
    while not condition():
        await pilot.pause()


async def run_ours(chars: int, piece: int, home: Path) -> dict[str, float]:
    gc.collect()  # each run starts without the previous run's garbage
    events: list[Event] = long_answer_events(chars, piece)
    engine = _TimedEngine(events)
    app = HippoApp(Settings(home=home), engine=engine, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: not app.prompt.disabled)
        app.prompt.value = "Long answer, please"
        start = time.perf_counter()
        await pilot.press("enter")
        await _wait(pilot, lambda: bool(app.turns))
        await pilot.pause()  # the frame with the final text
        done = time.perf_counter()
    return {
        "chars": chars,
        "seconds": done - start,
        "cps": chars / (done - start),
        "lag": done - engine.last_chunk_at,
    }


class _NaiveApp(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(parser_factory=markdown_parser)


async def run_naive(chars: int, piece: int) -> dict[str, float]:
    """The baseline: re-render the whole document on every chunk."""
    gc.collect()
    pieces = long_answer_pieces(chars, piece)
    app = _NaiveApp()
    async with app.run_test(size=SIZE) as pilot:
        md = app.query_one(Markdown)
        app.query_one(VerticalScroll).anchor()
        text = ""
        start = time.perf_counter()
        for p in pieces:
            text += p
            await md.update(text)
        await pilot.pause()
        done = time.perf_counter()
    return {"chars": chars, "seconds": done - start, "cps": chars / (done - start)}


_CHILD = """
import sys, time
from hippo_tui.config import Settings
from hippo_tui.ui.app import HippoApp

async def first_frame(pilot):
    # The auto-pilot starts on Ready, which Textual posts right after the first layout and paint.
    print(time.time(), flush=True)
    pilot.app.exit()

HippoApp(Settings()).run(headless=True, size=(80, 24), auto_pilot=first_frame)
"""


def first_frame_seconds(home: Path, runs: int = 3) -> float:
    """Launch a fresh interpreter running the real app; the best of a few runs (the machine is shared)."""
    env = {**os.environ, "HIPPO_HOME": str(home)}
    best = float("inf")
    for _ in range(runs):
        t0 = time.time()
        out = subprocess.run(
            [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=120, check=True
        )
        stamp = float(out.stdout.strip().splitlines()[-1])
        best = min(best, stamp - t0)
    return best


def _cps(result: dict[str, float]) -> float:
    return result["cps"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chars", type=int, default=50_000)
    parser.add_argument("--prefix", type=int, default=4_000, help="characters for the naive comparison")
    parser.add_argument("--piece", type=int, default=24, help="characters per model chunk (~6 tokens)")
    parser.add_argument("--runs", type=int, default=3, help="runs of ours; the best is reported")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        # Best of a few runs: the machine is shared, and the slowest run measures the neighbours.
        ours = max((asyncio.run(run_ours(args.chars, args.piece, home)) for _ in range(args.runs)), key=_cps)
        ours_prefix = max(
            (asyncio.run(run_ours(args.prefix, args.piece, home)) for _ in range(args.runs)), key=_cps
        )
        naive = asyncio.run(run_naive(args.prefix, args.piece))
        launch = first_frame_seconds(home)

    ratio = ours_prefix["cps"] / naive["cps"]
    rows = [
        ("ours, full answer", f"{ours['chars']:,}", f"{ours['cps']:,.0f}", f"{ours['lag'] * 1000:,.0f} ms"),
        (
            "ours, prefix",
            f"{ours_prefix['chars']:,}",
            f"{ours_prefix['cps']:,.0f}",
            f"{ours_prefix['lag'] * 1000:,.0f} ms",
        ),
        ("naive update() per chunk, prefix", f"{naive['chars']:,}", f"{naive['cps']:,.0f}", "-"),
    ]
    print(
        f"UI streaming, {args.piece}-character chunks at unlimited speed, terminal {SIZE[0]}x{SIZE[1]}"
        f" (ours: best of {args.runs})"
    )
    print(f"{'run':<34} {'chars':>8} {'chars/s':>10} {'last chunk -> final render':>28}")
    for name, chars, cps, lag in rows:
        print(f"{name:<34} {chars:>8} {cps:>10} {lag:>28}")
    print(f"ours / naive on the same {args.prefix:,}-character prefix: {ratio:.1f}x")
    print(f"launch to first frame (fresh interpreter, best of 3): {launch * 1000:,.0f} ms")
    ok_speed = ours["cps"] >= 5_000
    ok_launch = launch <= 1.0
    print(
        f"targets: >= 5,000 chars/s {'met' if ok_speed else 'MISSED'}; first frame <= 1 s {'met' if ok_launch else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
