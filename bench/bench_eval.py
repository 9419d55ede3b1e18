"""`hippo-tui eval` with --concurrency N against one question at a time, on the demo question set.

The offline backend streams at a model's pace (40 tokens/s by default), so most of an answer is waiting, as
with a real server. Baseline: concurrency 1, in the same run. Each engine is opened per question, so the
table also shows what that costs: the same run at unlimited pace (opening, retrieval, checks, audit writes).

    python bench/bench_eval.py [--pace 40] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.engine.protocol import AnswerEngine
from hippo_tui.evaluation import DEMO_QUESTIONS, EvalQuestion, load_questions, run_questions, summarize


async def timed(home: Path, pace: float, concurrency: int) -> tuple[float, float | None]:
    questions = load_questions(DEMO_QUESTIONS)

    async def open_engine(q: EvalQuestion) -> AnswerEngine:
        return await Engine.create(Settings(home=home, offline_tokens_per_second=pace))

    start = time.perf_counter()
    results = await run_questions(questions, open_engine, concurrency=concurrency)
    wall = time.perf_counter() - start
    assert len(results) == len(questions) and all(r.outcome == "complete" for r in results)
    return wall, summarize(results).recall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pace", type=float, default=40.0, help="offline tokens per second (default 40)")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        asyncio.run(timed(home, 0, 1))  # build the database once, outside the timings
        rows = [
            (f"pace {args.pace:g} tok/s, concurrency 1 (baseline)", *asyncio.run(timed(home, args.pace, 1))),
            (f"pace {args.pace:g} tok/s, concurrency {args.concurrency}",
             *asyncio.run(timed(home, args.pace, args.concurrency))),
            ("unlimited pace, concurrency 1", *asyncio.run(timed(home, 0, 1))),
        ]  # fmt: skip
    base = rows[0][1]
    print(f"{'run (18 demo questions)':<44} {'wall s':>8} {'vs baseline':>12} {'recall':>7}")
    for name, wall, recall in rows:
        print(f"{name:<44} {wall:>8.2f} {base / wall:>11.2f}x {recall if recall is not None else '-':>7}")


if __name__ == "__main__":
    main()
