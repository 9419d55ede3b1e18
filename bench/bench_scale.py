"""End to end at 100,000 passages: `ask` (offline, unlimited pace), `kb search`, `kb list` and the app's first
frame, each a fresh process on a data folder holding a synthetic 100,000-source knowledge base.

For `ask` the time to its first text event (read from ``--json`` as the process writes it) and the whole
process; for the others the whole process. Next to each run, in the same round, a bare ``python -c pass``
(the naive floor), reported as a ratio. Then search p50/p95 in one process over the same KB, as a user's
app or server sees it once open. Medians over ``--runs`` rounds; the targets are the issue's.

    python bench/bench_scale.py [--sources 100000] [--runs 5] [--keep DIR]

With ``--keep DIR`` the knowledge base is built in DIR once and reused by later runs with the same ``--sources``
(building 100,000 sources takes minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_startup import FIRST_FRAME, _env
from bench_store import _p, _questions, make_kb

from hippo_tui.store import Store

HIPPO = [sys.executable, "-m", "hippo_tui"]


def _cpu() -> float:
    """CPU ms (user + system) of the finished children: steadier than the wall clock on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _cpu_so_far(pid: int) -> float | None:
    """CPU ms (user + system) a running process has used so far, where /proc says (Linux); else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _ask(question: str, env: dict[str, str]) -> tuple[float, float, float | None]:
    """(first text, whole process) in ms from the process's start, and the CPU ms it had used at its first
    text (steadier than the wall clock while other work shares the machine)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*HIPPO, "ask", "--json", question], env=env, stdout=subprocess.PIPE, text=True)
    first = first_cpu = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if first is None and json.loads(line).get("type") == "text":
            first = (time.perf_counter() - t0) * 1000
            first_cpu = _cpu_so_far(proc.pid)
    proc.wait()
    whole = (time.perf_counter() - t0) * 1000
    return (first if first is not None else whole), whole, first_cpu


def _wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
    return (time.perf_counter() - t0) * 1000


async def _build(home: Path, n: int) -> list[str]:
    rng = random.Random(42)
    kb = home / "synthetic.jsonl"
    make_kb(kb, n, rng)
    async with Store.open(home / "hippo.db", seed=None, kb_name="synthetic") as store:
        await store.import_jsonl(kb)
    kb.unlink()
    return _questions(rng, 200)


def _prepared(home: Path, n: int) -> list[str]:
    """The questions of a KB built earlier in ``home`` for ``n`` sources, else build it now and keep them."""
    saved = home / "questions.json"
    if saved.exists() and (home / "hippo.db").exists():
        kept = json.loads(saved.read_text(encoding="utf-8"))
        if kept.get("sources") == n:
            print(f"reusing the {n:,} sources kept in {home}", file=sys.stderr)
            return list(kept["questions"])
        (home / "hippo.db").unlink()
    t = time.perf_counter()
    questions = asyncio.run(_build(home, n))
    print(f"built {n:,} sources in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    saved.write_text(json.dumps({"sources": n, "questions": questions}), encoding="utf-8")
    return questions


async def _in_process(home: Path, questions: list[str]) -> tuple[list[float], list[float]]:
    """Each search's wall ms and the CPU ms the process used meanwhile (SQLite's thread included): the CPU
    figure holds still while other work shares the machine."""
    async with Store.open(home / "hippo.db", seed=None) as store:
        await store.search(questions[0])
        wall, cpu = [], []
        for q in questions:
            t, c = time.perf_counter(), time.process_time()
            await store.search(q, k=5)
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the knowledge base here once and reuse it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.keep or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        questions = _prepared(home, args.sources)
        (home / "config.toml").write_text("offline_tokens_per_second = 0\n", encoding="utf-8")
        env = _env(str(home)) | {"HIPPO_CONFIG": str(home / "config.toml")}
        commands = {
            "kb search": ([*HIPPO, "kb", "search", questions[1]], 400.0),
            "kb list (a page)": ([*HIPPO, "kb", "list", "--limit", "50"], 400.0),
            "app first frame": ([sys.executable, "-c", FIRST_FRAME], 1500.0),
        }
        _ask(questions[0], env)  # warm-up: bytecode cached, page cache warm
        rows: dict[str, list[float]] = {k: [] for k in ["ask first text", "ask whole", *commands]}
        cpu: dict[str, list[float]] = {k: [] for k in rows}
        base: list[float] = []
        base_cpu: list[float] = []
        for r in range(args.runs):
            c0 = _cpu()
            base.append(_wall([sys.executable, "-c", "pass"], env))
            base_cpu.append(_cpu() - c0)
            c0 = _cpu()
            first, whole, first_cpu = _ask(questions[2 + r], env)
            cpu["ask whole"].append(_cpu() - c0)
            if first_cpu is not None:
                cpu["ask first text"].append(first_cpu)
            rows["ask first text"].append(first)
            rows["ask whole"].append(whole)
            for label, (argv, _target) in commands.items():
                c0 = _cpu()
                rows[label].append(_wall(argv, env))
                cpu[label].append(_cpu() - c0)
        searches, search_cpu = asyncio.run(_in_process(home, questions))
    floor = statistics.median(base)
    targets = {"ask first text": 300.0, "ask whole": 1000.0} | {k: v[1] for k, v in commands.items()}
    print(
        f"\nEnd to end at {args.sources:,} sources, median of {args.runs} runs; python -c pass {floor:.0f} ms "
        f"({statistics.median(base_cpu):.0f} ms CPU)\n"
    )
    print(f"{'measure':<18}{'median ms':>10}{'best ms':>9}{'CPU ms':>8}{'x floor':>9}{'target':>9}")
    for label, values in rows.items():
        med = statistics.median(values)
        ok = "ok" if med <= targets[label] else "MISSED"
        used = f"{statistics.median(cpu[label]):.0f}" if cpu[label] else "-"
        print(
            f"{label:<18}{med:>10.0f}{min(values):>9.0f}{used:>8}{med / floor:>9.1f}{targets[label]:>9.0f}  {ok}"
        )
    p95 = _p(searches, 95)
    print(f"\nsearch in one process: p50 {_p(searches, 50):.1f} ms, p95 {p95:.1f} ms (target p95 <= 50 ms: "
          f"{'ok' if p95 <= 50 else 'MISSED'}); CPU p50 {_p(search_cpu, 50):.1f} ms, "
          f"p95 {_p(search_cpu, 95):.1f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
