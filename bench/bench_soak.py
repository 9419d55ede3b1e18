"""Soak benchmark: one app session answering hundreds of questions, memory and time per answer.

The real app runs headless on the real engine (offline backend at unlimited speed, a fresh store in a
temporary home) and answers N questions one after the other. At each checkpoint it prints the resident
memory (RSS) and the mean time per answer over the answers just before it. The same run is made twice:
- ours: the app as shipped (bounded pane, event log, session turns, engine history);
- naive: the same app with every bound lifted (the windows set to a size never reached), as the app
  was before it pruned.

Targets: RSS(600) - RSS(100) <= 25 MB; time per answer at 600 within 20% of the time at 100.
``--trace`` prints the biggest growth sites between the first and last checkpoints (tracemalloc).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from fresh_heap import fresh_process_heap  # beside this script

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.ui.app import HippoApp

QUESTIONS = [
    "How is hypertension diagnosed?",
    "What is the first-line treatment for type 2 diabetes?",
    "When should a fever in a child be checked by a doctor?",
    "How is community-acquired pneumonia treated?",
]
UNBOUNDED = 10**9
WINDOW = 20  # answers timed before each checkpoint


def rss_mb() -> float:
    """Resident memory of this process, from /proc (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def lift_bounds(app: HippoApp, engine: Engine) -> None:
    """The naive baseline: nothing is pruned."""
    app.pane.max_turns = UNBOUNDED
    app.event_log.max_answers = UNBOUNDED
    app.event_log.max_events = UNBOUNDED
    app.session.max_turns = UNBOUNDED
    engine.max_history = UNBOUNDED


def machine_reference() -> float:
    """Seconds for a fixed pure-Python loop (best of 3): this machine's speed changes by up to ~1.7x over
    a day, so a slowdown between checkpoints is only the app's if the reference stayed the same."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        sum(i * i for i in range(300_000))
        best = min(best, time.process_time() - start)
    return best


def print_row(name: str, row: dict) -> None:
    print(
        f"{name:<18} {row['n']:>8} {row['rss']:>8.1f} {row['per_answer'] * 1000:>10.1f} {row['cpu'] * 1000:>10.1f}"
        f" {row['ref'] * 1000:>8.1f}",
        flush=True,
    )


async def soak(
    name: str, home: Path, answers: int, checkpoints: list[int], *, bounded: bool, trace: bool
) -> list[dict]:
    fresh_process_heap()
    settings = Settings(home=home, offline_tokens_per_second=0)
    engine = await Engine.create(settings)
    app = HippoApp(settings, engine=engine, animate=False, settle_heap=True)
    rows: list[dict] = []
    snapshots = []
    async with app.run_test(size=(100, 34)) as pilot:
        if not bounded:
            lift_bounds(app, engine)
        await pilot.pause()
        times: list[float] = []
        cpus: list[float] = []
        for n in range(1, answers + 1):
            start, cpu = time.perf_counter(), time.process_time()
            # The app's own ask (what Enter in the prompt calls); the pilot's key press would wait
            # for the screen to go idle, which measures the pilot more than the app.
            await app.ask(QUESTIONS[n % len(QUESTIONS)])
            answer = app.session.latest
            assert answer is not None
            await answer.ended.wait()
            await pilot.pause()
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            if n in checkpoints:
                gc.collect()
                recent, recent_cpu = times[-WINDOW:], cpus[-WINDOW:]
                row = {
                    "n": n,
                    "rss": rss_mb(),
                    "per_answer": sum(recent) / len(recent),
                    "cpu": sum(recent_cpu) / len(recent_cpu),
                    "ref": machine_reference(),
                }
                rows.append(row)
                print_row(name, row)  # as it is reached: a run cut short still gives its numbers
                if trace:
                    snapshots.append(tracemalloc.take_snapshot())
    await engine.close()
    if trace and len(snapshots) > 1:
        print(f"\ntracemalloc, {'ours' if bounded else 'naive'}: growth from answer {checkpoints[0]} to {answers}")
        for stat in snapshots[-1].compare_to(snapshots[0], "lineno")[:12]:
            print(f"  {stat}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=600)
    parser.add_argument("--trace", action="store_true", help="tracemalloc: print what grows (slower)")
    parser.add_argument("--no-naive", action="store_true", help="skip the unbounded baseline")
    parser.add_argument("--naive-answers", type=int, help="answers of the baseline (default: --answers)")
    args = parser.parse_args()
    checkpoints = sorted({c for c in (100, 300, 600) if c <= args.answers} | {args.answers})
    if args.trace:
        tracemalloc.start(8)
    naive_n = args.naive_answers or args.answers
    runs = [("ours", True, args.answers)] + ([] if args.no_naive else [("naive, unbounded", False, naive_n)])
    print(f"Soak: {args.answers} answers in one session, offline backend at unlimited speed, terminal 100x34")
    print(f"(time per answer: mean of the {WINDOW} answers before the checkpoint; load average {os.getloadavg()[0]:.2f})")
    print(f"{'run':<18} {'answers':>8} {'RSS MB':>8} {'ms/answer':>10} {'CPU ms':>10} {'ref ms':>8}", flush=True)
    results = {}
    for name, bounded, n in runs:
        points = [c for c in checkpoints if c <= n] or [n]
        with tempfile.TemporaryDirectory() as tmp:
            results[name] = asyncio.run(soak(name, Path(tmp), n, points, bounded=bounded, trace=args.trace))
    verdicts = []
    for name, rows in results.items():
        first, last = rows[0], rows[-1]
        growth = last["rss"] - first["rss"]
        slowdown = last["per_answer"] / first["per_answer"]
        machine = last["ref"] / first["ref"]
        verdicts.append((name, first["n"], last["n"], growth, slowdown, machine))
    for name, a, b, growth, slowdown, machine in verdicts:
        ok_mem = "met" if growth <= 25 else "MISSED"
        # Judged on the app's own slowdown: the machine's speed between the checkpoints divided out.
        ok_time = "met" if slowdown / machine <= 1.2 else "MISSED"
        print(
            f"{name}: RSS({b}) - RSS({a}) = {growth:+.1f} MB (target <= 25: {ok_mem}); "
            f"time per answer {b}/{a} = {slowdown:.2f}x, the machine's reference loop {b}/{a} = {machine:.2f}x,"
            f" so the app's own {b}/{a} = {slowdown / machine:.2f}x (target <= 1.20: {ok_time})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
