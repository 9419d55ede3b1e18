"""UI benchmark: a 50,000-character answer streamed through the whole app, against a naive baseline.

One headless run prints a table:
- ours: the app (scripted engine at unlimited speed -> ask worker -> MarkdownStream -> final update()):
  characters per second end to end (wall and CPU time), and the lag from the last model chunk to the
  first frame painted with the final, verified answer (instant judge);
- naive: the same pieces through ``Markdown.update(full_text)`` per chunk (on a shorter prefix, because
  it is quadratic), compared with ours on the same prefix, as a ratio;
- time from launch to the first frame (a fresh interpreter starting the real app headless; its target
  is checked by bench_startup.py).

Targets: last chunk -> final render <= 150 ms for the 4,000-character prefix and <= 400 ms for the
50,000-character answer; >= 5,000 characters/s end to end; ours >= 30x the naive update() on the prefix.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown

from hippo_tui.config import Settings
from hippo_tui.events import Event, TextEvent
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.widgets.safe import markdown_parser, safe

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted engine lives with the tests
from fresh_heap import fresh_process_heap

from tests.support.scripted import ScriptedEngine, long_answer_events, long_answer_pieces

SIZE = (100, 34)


class _TimedEngine(ScriptedEngine):
    """Notes when the last text piece leaves the engine."""

    last_chunk_at = 0.0

    async def play(self, question: str, prompt: str):
        async for event in super().play(question, prompt):
            if isinstance(event, TextEvent):
                self.last_chunk_at = time.perf_counter()
            yield event


async def _wait(pilot, condition) -> None:
    while not condition():
        await pilot.pause()


class _FrameClock:
    """Notes the first frame painted after the app has drawn the answer's end, and the first with the
    sidebar's verified marks (drawn right after the answer's).

    Polling with the pilot would not do: ``pilot.pause()`` waits for the CPU to go idle (up to 1 s
    while the app streams), which would measure the pilot, not the app.
    """

    def __init__(self, app: HippoApp) -> None:
        self.app = app
        self.final_frame = asyncio.Event()
        self.final_at = 0.0
        self.sidebar_frame = asyncio.Event()
        self.sidebar_at = 0.0
        self._paint = Screen._compositor_refresh

    def __enter__(self) -> _FrameClock:
        clock = self

        def paint(screen: Screen) -> None:
            clock._paint(screen)
            answer = clock.app.session.latest
            if screen is not clock.app.screen or answer is None or not answer.done:
                return
            if not clock.final_at:
                clock.final_at = time.perf_counter()
                clock.final_frame.set()
            if not clock.sidebar_at and clock.app.sidebar.query(".-cited"):
                clock.sidebar_at = time.perf_counter()
                clock.sidebar_frame.set()

        Screen._compositor_refresh = paint  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Screen._compositor_refresh = self._paint  # type: ignore[method-assign]


async def run_ours(chars: int, piece: int, home: Path) -> dict[str, float]:
    fresh_process_heap()
    events: list[Event] = long_answer_events(chars, piece)
    engine = _TimedEngine(events)
    app = HippoApp(Settings(home=home), engine=engine, animate=False, settle_heap=True)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: not app.prompt.disabled)
        await pilot.pause()
        with _FrameClock(app) as clock:
            start, cpu = time.perf_counter(), time.process_time()
            await app.ask("Long answer, please")  # what Enter calls, without the pilot's idle wait
            await clock.final_frame.wait()
            cpu = time.process_time() - cpu
            await clock.sidebar_frame.wait()
        shown = app.pane.turns[-1].source
        final = app.turns[-1].text
        if shown != safe(final) or "verified" not in str(app.pane.turns[-1].footer.render()):
            raise SystemExit("the final frame does not show the final, verified answer")
    seconds = clock.final_at - start
    return {
        "chars": chars,
        "seconds": seconds,
        "cpu": cpu,
        "cps": chars / seconds,
        "lag": clock.final_at - engine.last_chunk_at,
        "sidebar_lag": clock.sidebar_at - engine.last_chunk_at,
    }


class _NaiveApp(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(parser_factory=markdown_parser)


async def run_naive(chars: int, piece: int) -> dict[str, float]:
    """The baseline: re-render the whole document on every chunk."""
    fresh_process_heap()
    pieces = long_answer_pieces(chars, piece)
    app = _NaiveApp()
    async with app.run_test(size=SIZE) as pilot:
        md = app.query_one(Markdown)
        app.query_one(VerticalScroll).anchor()
        text = ""
        start, cpu = time.perf_counter(), time.process_time()
        for p in pieces:
            text += p
            await md.update(text)
        await pilot.pause()
        done = time.perf_counter()
    cpu = time.process_time() - cpu
    return {"chars": chars, "seconds": done - start, "cpu": cpu, "cps": chars / (done - start)}


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


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each measure's median over the runs, and the lags' range."""
    middle = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    lags = [r["lag"] for r in runs]
    return {**middle, "lag_min": min(lags), "lag_max": max(lags)}


def _lags(r: dict[str, float]) -> str:
    spread = f"[{r['lag_min'] * 1000:,.0f}-{r['lag_max'] * 1000:,.0f}]"
    return f"{r['lag'] * 1000:,.0f} ms {spread} ({r['sidebar_lag'] * 1000:,.0f} ms)"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chars", type=int, default=50_000)
    parser.add_argument("--prefix", type=int, default=4_000, help="characters for the naive comparison")
    parser.add_argument("--piece", type=int, default=24, help="characters per model chunk (~6 tokens)")
    parser.add_argument("--runs", type=int, default=5, help="runs of ours; medians are reported")
    parser.add_argument("--no-launch", action="store_true", help="skip the first-frame measurement")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline (no ratio)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        # The median of a few runs, with the lags' range: how long the end takes depends on where the
        # drawing is when the model stops, and the machine is shared.
        ours = _median([asyncio.run(run_ours(args.chars, args.piece, home)) for _ in range(args.runs)])
        ours_prefix = _median([asyncio.run(run_ours(args.prefix, args.piece, home)) for _ in range(args.runs)])
        naive = (
            {"chars": args.prefix, "seconds": float("nan"), "cpu": float("nan"), "cps": float("nan")}
            if args.no_naive
            else asyncio.run(run_naive(args.prefix, args.piece))
        )
        launch = float("nan") if args.no_launch else first_frame_seconds(home)

    ratio = ours_prefix["cps"] / naive["cps"]
    rows = [
        ("ours, full answer", ours, _lags(ours)),
        ("ours, prefix", ours_prefix, _lags(ours_prefix)),
        ("naive update() per chunk, prefix", naive, "-"),
    ]
    print(
        f"UI streaming, {args.piece}-character chunks at unlimited speed, terminal {SIZE[0]}x{SIZE[1]}"
        f" (ours: median of {args.runs} runs, lag range in brackets; load average {os.getloadavg()[0]:.2f})"
    )
    print(f"{'run':<34} {'chars':>8} {'wall s':>7} {'CPU s':>7} {'chars/s':>9} {'last chunk -> final render [range] (sidebar)':>46}")
    for name, r, lag in rows:
        print(
            f"{name:<34} {r['chars']:>8,} {r['seconds']:>7.2f} {r['cpu']:>7.2f} {r['cps']:>9,.0f} {lag:>46}"
        )
    print(f"ours / naive on the same {args.prefix:,}-character prefix: {ratio:.1f}x")
    print(f"launch to first frame (fresh interpreter, best of 3; target in bench_startup.py): {launch * 1000:,.0f} ms")
    targets = [
        (f"final render <= 150 ms at {ours_prefix['chars']:,}", ours_prefix["lag"] <= 0.150),
        (f"final render <= 400 ms at {ours['chars']:,}", ours["lag"] <= 0.400),
        (">= 5,000 chars/s end to end", ours["cps"] >= 5_000),
        (">= 30x naive update()", ratio >= 30),
    ]
    print("targets: " + "; ".join(f"{name} {'met' if ok else 'MISSED'}" for name, ok in targets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
