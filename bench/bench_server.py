"""50 concurrent answers against one `hippo-tui serve` (offline backend, unlimited pace) on this machine:
time to first event and to ``end`` (p50, p95), errors, the server's peak memory; against the same 50
answers run one after another in-process, in the same run (ratios, not absolute times).

Target: p95 time to first event over the server <= 250 ms.

    python bench/bench_server.py [--answers 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.evaluation import DEMO_QUESTIONS, load_questions

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the serve subprocess helper lives with the tests
from tests.support.serve import Serve


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


async def one_over_http(client: httpx.AsyncClient, question: str) -> tuple[float, float, bool]:
    start = time.perf_counter()
    first = None
    ok = False
    async with client.stream("POST", "/v1/ask", json={"question": question}) as r:
        async for line in r.aiter_lines():
            if line.startswith("data:"):
                first = first if first is not None else time.perf_counter() - start
                ok = '"type":"end"' in line and '"outcome":"complete"' in line
    return first or float("nan"), time.perf_counter() - start, ok and r.status_code == 200


async def over_server(url: str, questions: list[str]) -> tuple[list[tuple[float, float, bool]], float]:
    limits = httpx.Limits(max_connections=len(questions) + 5)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        start = time.perf_counter()
        results = await asyncio.gather(*(one_over_http(client, q) for q in questions))
        return list(results), time.perf_counter() - start


async def in_process(home: Path, questions: list[str]) -> tuple[list[tuple[float, float, bool]], float]:
    engine = await Engine.create(Settings(home=home, offline_tokens_per_second=0))
    out = []
    start = time.perf_counter()
    try:
        for q in questions:
            conversation = await engine.open_conversation()
            t0 = time.perf_counter()
            first = None
            async for event in conversation.ask(q):
                first = first if first is not None else time.perf_counter() - t0
                last = event
            out.append((first or float("nan"), time.perf_counter() - t0, last.type == "end"))
            await conversation.close()
    finally:
        await engine.close()
    return out, time.perf_counter() - start


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def row(name: str, results: list[tuple[float, float, bool]], wall: float) -> list[str]:
    firsts, ends = [r[0] for r in results], [r[1] for r in results]
    errors = sum(not r[2] for r in results)
    return [name, f"{pct(firsts, 50) * 1000:.0f}", f"{pct(firsts, 95) * 1000:.0f}", f"{pct(ends, 50) * 1000:.0f}",
            f"{pct(ends, 95) * 1000:.0f}", f"{wall:.2f}", str(errors)]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=50)
    args = parser.parse_args()
    demo = [q.question for q in load_questions(DEMO_QUESTIONS)]
    questions = [demo[i % len(demo)] for i in range(args.answers)]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        local, local_wall = asyncio.run(in_process(home / "local", questions))
        runs = {}
        for running in ("0", "8"):  # 0: every answer worked on at once; 8: the server's default bound
            (home / running).mkdir()
            with Serve(home / running, "--answers-per-token", str(args.answers + 1), "--running", running) as s:
                runs[running] = asyncio.run(over_server(s.url, questions))
                assert s.proc is not None
                rss = peak_rss_mib(s.proc.pid)
        (served, served_wall), unbounded = runs["8"], runs["0"]
    header = ["run", "first p50 ms", "first p95 ms", "end p50 ms", "end p95 ms", "wall s", "errors"]
    rows = [header, row(f"in-process, {args.answers} one by one", local, local_wall),
            row(f"serve, {args.answers} at once, unbounded", *unbounded),
            row(f"serve, {args.answers} at once, --running 8", served, served_wall)]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    ratio = pct([r[0] for r in served], 95) / pct([r[0] for r in local], 95)
    print(f"\nfirst-event p95 ratio serve/in-process: {ratio:.1f}x · wall ratio: {served_wall / local_wall:.2f}x"
          f" · server peak RSS {rss:.0f} MiB · target p95 first event <= 250 ms: "
          f"{'met' if pct([r[0] for r in served], 95) <= 0.25 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
