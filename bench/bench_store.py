"""Store benchmark on a synthetic 100,000-source knowledge base.

Prints one table: import rate, search p50/p95, get_many of 100 ids, and the naive baselines run in the
same process (the same 100-id lookup as 100 single queries; search as a LIKE scan). Ratios matter more
than absolute times: machines are noisy.

    python bench/bench_store.py [--sources 100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from hippo_tui.store import DEMO_KB, Store
from hippo_tui.store.query import STOP_WORDS, terms

# Real text is Zipf-distributed with function words at the top. The synthetic vocabulary copies that:
# stop-words first (the search drops them from questions), then clinical words from the demo KB, then
# invented words, so the corpus is large and its frequent content words are as frequent as in real notes.
_DEMO_WORDS = sorted(
    {w.strip(".,;:()").lower() for line in DEMO_KB.read_text(encoding="utf-8").splitlines()
     for w in json.loads(line)["excerpt"].split() if w.strip(".,;:()").isalpha() and len(w) > 3}
    - STOP_WORDS
)  # fmt: skip
_FUNCTION = ["the", "of", "and", "to", "in", "a", "is", "for", "with", "or", "be", "at", "by", "on", "if", "as",
             "are", "should", "this", "it", "from", "an", "not", "when", "who", "can", "have", "their", "than"]  # fmt: skip
_SYLLABLES = [
    "ca",
    "lo",
    "mi",
    "ter",
    "dra",
    "vin",
    "sul",
    "pa",
    "xo",
    "rel",
    "ton",
    "bi",
    "que",
    "fa",
    "nor",
]


def _vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    words = [*_FUNCTION, *_DEMO_WORDS]
    while len(words) < size:
        words.append("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return list(dict.fromkeys(words))


def _zipf_picker(rng: random.Random, words: list[str]) -> Callable[[int], list[str]]:
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(words))))
    return lambda k: rng.choices(words, cum_weights=cumulative, k=k)


def make_kb(path: Path, n: int, rng: random.Random) -> list[str]:
    """Write n sources (10% retired) as JSONL; return their ids."""
    pick = _zipf_picker(rng, _vocabulary(rng))
    ids = []
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            ids.append(sid)
            sentences = [
                " ".join(pick(rng.randint(8, 16))).capitalize() + "." for _ in range(rng.randint(2, 4))
            ]
            row = {"id": sid, "title": " ".join(pick(4)).capitalize(), "excerpt": " ".join(sentences),
                   "publisher": "Synthetic", "updated": "2024-01-01", "status": "active"}  # fmt: skip
            if i % 10 == 9:
                row.update(status="retired", retired_reason="synthetic", superseded_by=ids[i - 1])
            f.write(json.dumps(row) + "\n")
    return ids


def _questions(rng: random.Random, count: int) -> list[str]:
    """Questions as clinicians type them: function words around 2-5 content words (Zipf over content)."""
    content = [w for w in _vocabulary(random.Random(1)) if w not in STOP_WORDS]
    pick = _zipf_picker(rng, content)
    openers = ["What is the", "How should I manage", "Which dose of", "When do we stop", "Is it safe to give"]
    return [f"{rng.choice(openers)} {' '.join(pick(rng.randint(2, 5)))} in adults?" for _ in range(count)]


async def _timed(fn: Callable[[], Awaitable[object]], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _p(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]
    )


async def run(n: int, queries: int) -> int:
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "synthetic.jsonl"
        t = time.perf_counter()
        ids = make_kb(kb, n, rng)
        print(f"generated {n:,} sources in {time.perf_counter() - t:.1f} s", file=sys.stderr)

        async with await Store.open(Path(tmp) / "bench.db", seed=None) as store:
            t = time.perf_counter()
            await store.import_jsonl(kb)
            import_s = time.perf_counter() - t
            rate = n / import_s

            qs = _questions(rng, queries)
            it = iter(qs * 2)
            await store.search(qs[0])  # warm the page cache
            search_ms = await _timed(lambda: store.search(next(it), k=5), queries)

            like_qs = qs[: max(10, queries // 30)]
            like_it = iter(like_qs)

            async def like_scan() -> None:
                # The naive ranked search: score every active row by how many query words it contains.
                words = terms(next(like_it))
                score = " + ".join("(excerpt LIKE ?)" for _ in words)
                cur = await store.db.execute(
                    f"SELECT id FROM sources WHERE status = 'active' ORDER BY {score} DESC LIMIT 5",
                    [f"%{w}%" for w in words],
                )
                await cur.fetchall()

            like_ms = await _timed(like_scan, len(like_qs))

            def sample() -> list[str]:
                chosen = rng.sample(ids, 95) + [str(uuid.uuid4()) for _ in range(5)]  # 5 missing
                rng.shuffle(chosen)
                return chosen

            samples = [sample() for _ in range(200)]
            s_it, n_it = iter(samples), iter(samples)
            many_ms = await _timed(lambda: store.get_many(next(s_it)), len(samples))

            async def naive() -> None:
                for sid in next(n_it):
                    await store.get(sid)

            naive_ms = await _timed(naive, len(samples))

    rows = [
        ("import", f"{rate:,.0f} sources/s", f"{import_s:.2f} s total", ">= 5,000/s", rate >= 5000),
        ("search k=5", f"{_p(search_ms, 50):.2f} ms", f"{_p(search_ms, 95):.2f} ms", "p95 <= 20 ms", _p(search_ms, 95) <= 20),
        ("  baseline: LIKE scan", f"{_p(like_ms, 50):.2f} ms", f"{_p(like_ms, 95):.2f} ms", "", None),
        ("get_many(100 ids)", f"{_p(many_ms, 50):.2f} ms", f"{_p(many_ms, 95):.2f} ms", "p50 <= 5 ms", _p(many_ms, 50) <= 5),
        ("  baseline: 100 x get()", f"{_p(naive_ms, 50):.2f} ms", f"{_p(naive_ms, 95):.2f} ms", "", None),
    ]  # fmt: skip
    print(
        f"\nStore benchmark: {n:,} synthetic sources (10% retired), {queries} search queries, 200 lookups\n"
    )
    header = ("measure", "p50 / rate", "p95 / total", "target", "")
    widths = [max(len(str(r[i])) for r in [*rows, header]) for i in range(4)]
    line = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths), "--"))
    for name, a, b, target, ok in rows:
        print(line.format(name, a, b, target, "" if ok is None else ("ok" if ok else "MISSED")))
    print(
        f"\nget_many vs 100 single queries: {statistics.median(naive_ms) / statistics.median(many_ms):.1f}x faster; "
        f"FTS5 search vs LIKE scan: {statistics.median(like_ms) / statistics.median(search_ms):.1f}x faster"
    )
    return 0 if all(r[4] is not False for r in rows) else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    return asyncio.run(run(args.sources, args.queries))


if __name__ == "__main__":
    sys.exit(main())
