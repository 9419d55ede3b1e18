"""Store benchmark on a synthetic 100,000-source knowledge base.

Both backends in one run, SQLite and PostgreSQL (a throwaway local cluster with fsync on, or --database):
ingest MB/s, search p50/p95, get_many of 100 ids, audit answers per second with 8 concurrent writers,
index sizes, the naive baselines in the same process (100 single queries; search as a LIKE scan), the
ratios PostgreSQL/SQLite and how much the two backends' top 5 overlap. Ratios matter more than absolute
times: machines are noisy.

    python bench/bench_store.py [--sources 100000] [--queries 300] [--database postgresql://…]
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
from typing import Any

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


async def _audit_rate(store: Store, writers: int = 8, each: int = 40) -> float:
    """Answers recorded per second (begin, citations, finish: three write transactions each) by ``writers``
    concurrent tasks on one store."""
    from hippo_tui.models import CitationAttempt

    attempt = CitationAttempt(source_id=str(uuid.uuid4()), claims=["c"], check_one="missing", check_two="unchecked")

    async def writer() -> None:
        for _ in range(each):
            aid = await store.begin_answer(question="q", model="bench", backend="offline")
            await store.record_citations(aid, [attempt])
            await store.finish_answer(aid, raw_text="a", final_text="a", outcome="complete", timings={})

    t = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return writers * each / (time.perf_counter() - t)


async def _index_mb(store: Store) -> tuple[float, float]:
    """(search index, whole database) in MB."""
    if hasattr(store, "pool"):
        cur = await store.db.execute("SELECT pg_relation_size('sources_tsv'), pg_database_size(current_database())")
        fts, total = await cur.fetchone() or (0, 0)
    else:
        try:
            cur = await store.db.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'sources_fts%'")
            (fts,) = await cur.fetchone() or (0,)
        except Exception:  # SQLite built without the dbstat table
            fts = 0
        cur = await store.db.execute("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
        (total,) = await cur.fetchone() or (0,)
    return (fts or 0) / 1e6, total / 1e6


async def measure(store: Store, kb: Path, ids: list[str], qs: list[str], seed: int) -> dict[str, object]:
    """Every measure on one backend; the same questions and lookups for each (same seed)."""
    rng = random.Random(seed)
    kb_mb = kb.stat().st_size / 1e6  # noqa: ASYNC240 (once, before timing)
    t = time.perf_counter()
    await store.import_jsonl(kb)
    import_s = time.perf_counter() - t
    if hasattr(store, "pool"):
        await store.db.execute("ANALYZE")  # what autovacuum does after a bulk load on a real server
    it = iter(qs * 2)
    await store.search(qs[0])  # warm the cache
    search_ms = await _timed(lambda: store.search(next(it), k=5), len(qs))
    top5 = [[h.id for h in await store.search(q, k=5)] for q in qs[:100]]
    like_it = iter(qs[: max(10, len(qs) // 30)])

    async def like_scan() -> None:
        # The naive ranked search: score every active row by how many query words it contains.
        words = terms(next(like_it))
        score = " + ".join("(CASE WHEN excerpt LIKE ? THEN 1 ELSE 0 END)" for _ in words)
        cur = await store.db.execute(
            f"SELECT id FROM sources WHERE status = 'active' ORDER BY {score} DESC LIMIT 5", [f"%{w}%" for w in words]
        )
        await cur.fetchall()

    like_ms = await _timed(like_scan, max(10, len(qs) // 30))
    samples = [[*rng.sample(ids, 95), *(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(5))]
               for _ in range(200)]  # fmt: skip
    s_it, n_it = iter(samples), iter(samples)
    many_ms = await _timed(lambda: store.get_many(next(s_it)), len(samples))

    async def naive() -> None:
        for sid in next(n_it):
            await store.get(sid)

    naive_ms = await _timed(naive, 50)
    fts_mb, db_mb = await _index_mb(store)
    return {"import_s": import_s, "mb_s": kb_mb / import_s, "search": search_ms, "like": like_ms,
            "many": many_ms, "naive": naive_ms, "audit": await _audit_rate(store), "fts_mb": fts_mb, "db_mb": db_mb,
            "top5": top5}  # fmt: skip


def _table(results: dict[str, dict[str, Any]], n: int, queries: int) -> bool:
    names = list(results)
    rows: list[tuple[str, ...]] = []
    ok = True

    measures: list[tuple[str, Callable[[dict[str, Any]], float], str]] = [
        ("ingest", lambda r: r["mb_s"], "MB/s"),
        ("search k=5 p50", lambda r: _p(r["search"], 50), "ms"),
        ("search k=5 p95", lambda r: _p(r["search"], 95), "ms"),
        ("  baseline: LIKE scan p50", lambda r: _p(r["like"], 50), "ms"),
        ("get_many(100) p50", lambda r: _p(r["many"], 50), "ms"),
        ("  baseline: 100 x get() p50", lambda r: _p(r["naive"], 50), "ms"),
        ("audit answers/s, 8 writers", lambda r: r["audit"], "/s"),
        ("search index size", lambda r: r["fts_mb"], "MB"),
        ("database size", lambda r: r["db_mb"], "MB"),
    ]
    for label, value, unit in measures:
        values = [value(results[b]) for b in names]
        ratio = f"{values[1] / values[0]:.2f}" if len(values) == 2 and values[0] else ""
        rows.append((label, *(f"{v:,.2f} {unit}" for v in values), ratio))
    header = ("measure", *names, "ratio " + "/".join(reversed(names)) if len(names) == 2 else "")
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(len(header))]
    print(f"\nStore benchmark: {n:,} synthetic sources (10% retired), {queries} search queries, 200 lookups\n")
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    for b in names:
        p95 = _p(results[b]["search"], 95)
        ok &= p95 <= 50
        print(f"{b}: search p95 {p95:.1f} ms (target <= 50 ms: {'ok' if p95 <= 50 else 'MISSED'}); "
              f"get_many vs 100 x get() {_p(results[b]['naive'], 50) / _p(results[b]['many'], 50):.1f}x; "
              f"search vs LIKE scan {_p(results[b]['like'], 50) / _p(results[b]['search'], 50):.1f}x")  # fmt: skip
    if len(names) == 2:
        a, b = (results[x]["top5"] for x in names)
        shared = [len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(a, b, strict=True)]
        print(f"top-5 overlap between backends: mean {statistics.mean(shared):.0%} over {len(shared)} questions")
    return ok


async def run(n: int, queries: int, database: str | None) -> int:
    rng = random.Random(42)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "synthetic.jsonl"
        t = time.perf_counter()
        ids = make_kb(kb, n, rng)
        print(f"generated {n:,} sources in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        qs = _questions(rng, queries)
        async with await Store.open(Path(tmp) / "bench.db", seed=None) as store:
            results["sqlite"] = await measure(store, kb, ids, qs, seed=7)
        print("sqlite done", file=sys.stderr)
        cluster = None
        if database is None:
            cluster, database = _cluster()
        try:
            if database:
                from hippo_tui.store.open import open_postgres

                async with await open_postgres(database, seed=None) as pg:
                    results["postgres"] = await measure(pg, kb, ids, qs, seed=7)
        finally:
            if cluster is not None:
                cluster.close()
    return 0 if _table(results, n, queries) else 1


def _cluster() -> tuple[Any, str | None]:
    """A throwaway durable cluster (fsync on, as SQLite's synchronous=FULL), or (None, None) with the reason."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.support import postgres

    reason = postgres.missing_reason()
    if reason:
        print(f"PostgreSQL skipped: {reason}", file=sys.stderr)
        return None, None
    cluster = postgres.start(durable=True)
    return cluster, cluster.url("postgres")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--database", help="a PostgreSQL URL to measure (default: a throwaway local cluster)")
    args = parser.parse_args()
    return asyncio.run(run(args.sources, args.queries, args.database))


if __name__ == "__main__":
    sys.exit(main())
