"""`kb ingest` speed and writes on 1,000 generated Markdown documents of about 5 KB each.

Ours is what `hippo-tui kb ingest FOLDER` runs (`ingest_paths`): read, hash, parse, split, compare and
write in one transaction. The naive baseline, in the same run and on the same files, is the way one would
write it first: the same parsers and passages, but every document in its own transaction and every
passage upserted again on every run (no skip by hash, no comparison with what is stored). Each case is
timed in every run; the table shows the best run of each (the machines are shared and noisy).

Cases: the first ingest (MB/s of source text end to end; target ≥ 1 MB/s), a re-ingest of the same
unchanged files (target ≤ 5% of the first run), and a revision of 1 document of 1,000 (rows written: only
that document's passages may be touched).

    python bench/bench_ingest.py [--docs 1000] [--runs 3]
    python bench/bench_ingest.py --big [--mb 1]
    python bench/bench_ingest.py --real FOLDER [--runs 3]

``--big`` measures what one run-on file (MB of text without a full stop) does to ``kb search``: p95 of
searches that match it, with the file ingested (cut under the passage limit), against the same store
without it (target: within 2x), and against the naive baseline of storing it as one passage (what ingest
did before the limit).

``--real`` times the first ingest of a folder of real documents (PDF, Word, HTML, Markdown; not part of
the repository) against the naive baseline run in-process, one file after another, skipping what fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.limits import Limits
from hippo_tui.ingest.passages import passages
from hippo_tui.ingest.reading import Overrides, collect, parse_document, read_bytes
from hippo_tui.ingest.run import run_ingest
from hippo_tui.models import Provenance, Source
from hippo_tui.store import Store

WORDS = (
    "adults children dose daily twice review renal hepatic infection fever culture course oral intravenous "
    "tablet capsule weight kilogram maximum minimum first second line alternative allergy rash interaction "
    "warfarin monitoring blood pressure glucose potassium sodium stop start reduce increase refer urgent "
    "routine pregnancy breastfeeding elderly frail symptoms signs examination history"
).split()
DRUGS = (
    "amoxicillin",
    "nitrofurantoin",
    "doxycycline",
    "metformin",
    "ramipril",
    "amlodipine",
    "prednisolone",
)


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 16))
    drug, dose = rng.choice(DRUGS), rng.choice((5, 10, 20, 50, 100, 250, 500))
    return f"{' '.join(words).capitalize()} {drug} {dose} mg {rng.choice(WORDS)}."


def document(i: int, rng: random.Random, size: int = 5000) -> str:
    parts = [
        f"---\ntitle: Protocol {i}\npublisher: Bench clinic\nupdated: 2026-11-01\n---\n",
        f"# Protocol {i}\n",
    ]
    section = 0
    while sum(len(p) for p in parts) < size:
        section += 1
        parts.append(f"\n## Section {section}\n\n### Part {section}.1\n")
        parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(3, 6))) + "\n")
        parts.append("\n" + "\n".join(f"- {_sentence(rng)}" for _ in range(2)) + "\n")
    return "".join(parts)


def write_docs(folder: Path, n: int) -> int:
    rng = random.Random(11)
    total = 0
    for i in range(n):
        text = document(i, rng)
        (folder / f"protocol-{i:04d}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def cpu() -> float:
    """CPU seconds of this process (the parsing thread and SQLite's included)."""
    t = os.times()
    return t.user + t.system


async def ours(store: Store, folder: Path) -> tuple[float, int, float]:
    """What `kb ingest FOLDER` runs (less argument parsing and printing): seconds, SQLite row changes and
    CPU seconds."""
    changes, cpu0 = store.db.total_changes, cpu()
    start = time.perf_counter()
    paths = await asyncio.to_thread(collect, [folder])
    # As `kb ingest` runs it: each file parsed in a worker process under the default limits.
    await run_ingest(store, paths, overrides=Overrides(), when=datetime.now(UTC), limits=Limits())
    return time.perf_counter() - start, store.db.total_changes - changes, cpu() - cpu0


async def naive(store: Store, folder: Path) -> tuple[float, int, float]:
    """Every document parsed and every passage upserted again, one transaction per document."""
    changes, cpu0 = store.db.total_changes, cpu()
    start = time.perf_counter()
    for path in collect([folder]):
        try:
            doc = parse_document(path, read_bytes(path), Overrides())
            found = passages(doc)
        except IngestError:
            continue  # a real folder has files that cannot be read; the baseline skips them too
        prov = Provenance(document=doc.key, version=doc.version, ingested="now")
        await store.upsert(
            Source(id=p.id, title=p.title, excerpt=p.excerpt, body=p.body, provenance=prov) for p in found
        )
    return time.perf_counter() - start, store.db.total_changes - changes, cpu() - cpu0


def snapshot(db: Path) -> dict[tuple[str, str], tuple[object, ...]]:
    """Every row of the tables ingest writes, keyed (table, key), with the document each belongs to first."""
    con = sqlite3.connect(db)
    out: dict[tuple[str, str], tuple[object, ...]] = {}
    tables = (("sources", "id", "doc_key"), ("documents", "key", "key"), ("document_versions", "id", "key"))
    for table, key, doc in tables:
        with contextlib.suppress(sqlite3.OperationalError):  # the naive store has no documents rows
            for row in con.execute(f"SELECT {key}, {doc}, * FROM {table}"):
                out[(table, str(row[0]))] = tuple(row[1:])
    con.close()
    return out


def changed(before: dict, after: dict, document: str) -> tuple[int, int]:
    """(rows that differ, of those how many belong to another document than ``document``)."""
    keys = [k for k in before.keys() | after.keys() if before.get(k) != after.get(k)]
    others = sum((before.get(k) or after.get(k))[0] != document for k in keys)
    return len(keys), others


def revise_one(folder: Path) -> str:
    """One " mg " made " mcg " in the middle document; its key (resolved path)."""
    path = sorted(folder.iterdir())[len(list(folder.iterdir())) // 2]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(" mg ", " mcg ", 1), encoding="utf-8")
    return str(path.resolve())


async def one_run(root: Path, n: int) -> dict[str, tuple[float, int, float]]:
    """Every case once, ours and naive, on fresh stores and freshly written documents."""
    folder = root / "docs"
    folder.mkdir()
    write_docs(folder, n)
    out: dict[str, tuple[float, int, float]] = {}
    async with Store.open(root / "ours.db", seed=None) as a, Store.open(root / "naive.db", seed=None) as b:
        out["first"], out["naive first"] = await ours(a, folder), await naive(b, folder)
        out["again"], out["naive again"] = await ours(a, folder), await naive(b, folder)
        document = revise_one(folder)
        before = snapshot(root / "ours.db")
        out["revise"], out["naive revise"] = await ours(a, folder), await naive(b, folder)
        differ, elsewhere = changed(before, snapshot(root / "ours.db"), document)
        out["differ"] = (0.0, differ, float(elsewhere))
        out["sources"] = (0.0, await a.count(status=None), 0.0)
    return out


async def run(n: int, runs: int) -> None:
    load = os.getloadavg()[0]
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            results.append(await one_run(Path(tmp), n))
    # The best of the runs for each case: the machine is shared, and the least disturbed run is the truest.
    best = {k: min((r[k] for r in results), key=lambda v: v[0]) for k in results[0]}
    with tempfile.TemporaryDirectory() as tmp:
        size = write_docs(Path(tmp), n)
    print_table(n, size / 1e6, runs, best)
    print(
        f"load average: {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} CPUs"
    )


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def print_table(n: int, mb: float, runs: int, r: dict[str, tuple[float, int, float]]) -> None:
    (first, _, c_first), (n_first, _, nc_first) = r["first"], r["naive first"]
    (again, _, c_again), (n_again, _, nc_again) = r["again"], r["naive again"]
    (revised, writes, _), (n_revised, n_writes, _) = r["revise"], r["naive revise"]
    differ, elsewhere = r["differ"][1], int(r["differ"][2])
    print(
        f"{n} Markdown documents, {mb:.2f} MB of source text, {r['sources'][1]} rows in sources; best of {runs}"
    )
    row = "{:<30}{:>10}{:>10}{:>12}  {}"
    print(row.format("case", "ours", "naive", "naive/ours", "target"))
    print(row.format("first ingest (s)", f"{first:.2f}", f"{n_first:.2f}", f"{n_first / first:.2f}", ""))
    print(row.format("  CPU (s)", f"{c_first:.2f}", f"{nc_first:.2f}", f"{nc_first / c_first:.2f}", ""))
    target = f">= 1 MB/s: {verdict(mb / first >= 1.0)}"
    print(row.format("  MB/s end to end", f"{mb / first:.2f}", f"{mb / n_first:.2f}", "", target))
    print(row.format("  MB per CPU-second", f"{mb / c_first:.2f}", f"{mb / nc_first:.2f}", "", ""))
    print(
        row.format("re-ingest unchanged (s)", f"{again:.3f}", f"{n_again:.3f}", f"{n_again / again:.1f}", "")
    )
    print(row.format("  CPU (s)", f"{c_again:.3f}", f"{nc_again:.3f}", f"{nc_again / c_again:.1f}", ""))
    share = 100 * again / first
    target = f"<= 5%: {verdict(share <= 5)}"
    print(row.format("  % of first run", f"{share:.1f}%", f"{100 * n_again / n_first:.1f}%", "", target))
    print(
        row.format(
            f"revise 1 of {n} (s)", f"{revised:.3f}", f"{n_revised:.3f}", f"{n_revised / revised:.1f}", ""
        )
    )
    print(
        row.format(
            "  SQLite row changes", writes, n_writes, f"{n_writes / writes:.0f}", "(search index included)"
        )
    )
    target = f"that document's only: {verdict(elsewhere == 0)}"
    print(row.format("  rows that differ after", differ, "", "", target))
    if elsewhere:
        print(f"  of which {elsewhere} belong to other documents")


async def run_real(folder: Path, runs: int) -> None:
    paths = collect([folder])
    mb = sum(p.stat().st_size for p in paths) / 1e6
    best: dict[str, float] = {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            async with (
                Store.open(Path(tmp) / "a.db", seed=None) as a,
                Store.open(Path(tmp) / "b.db", seed=None) as b,
            ):
                for name, (seconds, _, _) in (
                    ("ours", await ours(a, folder)),
                    ("naive", await naive(b, folder)),
                ):
                    best[name] = min(best.get(name, seconds), seconds)
    print(f"{len(paths)} real documents, {mb:.1f} MB; best of {runs}; {os.cpu_count()} CPUs")
    row = "{:<24}{:>10}{:>10}{:>12}  {}"
    print(row.format("first ingest", "ours", "naive", "naive/ours", "target"))
    print(
        row.format(
            "  seconds",
            f"{best['ours']:.1f}",
            f"{best['naive']:.1f}",
            f"{best['naive'] / best['ours']:.2f}",
            "",
        )
    )
    target = f">= 1 MB/s: {verdict(mb / best['ours'] >= 1.0)}"
    print(
        row.format("  MB/s end to end", f"{mb / best['ours']:.2f}", f"{mb / best['naive']:.2f}", "", target)
    )


# Each names a drug only the run-on file mentions, so the file is among the hits whose snippet is built.
QUERIES = tuple(
    f"zelboxacin {w}" for w in ("warfarin dose", "renal review", "infection fever", "oral tablet", "glucose")
)


async def p95_search(store: Store, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        for q in QUERIES:
            start = time.perf_counter()
            await store.search(q, 5)
            times.append(time.perf_counter() - start)
    times.sort()
    return times[max(0, int(len(times) * 0.95) - 1)]


async def run_big(mb: float, n: int = 300) -> None:
    rng = random.Random(5)
    run_on = " ".join(  # no full stop anywhere
        _sentence(rng).rstrip(".") + (", zelboxacin," if i % 50 == 0 else ",")
        for i in range(int(mb * 1e6 / 90))
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        write_docs(root / "docs", n)
        results = {}
        for case in ("without", "ours", "naive"):
            async with Store.open(root / f"{case}.db", seed=None) as store:
                await ours(store, root / "docs")
                if case == "ours":
                    (root / "big").mkdir()
                    (root / "big" / "run-on.txt").write_text(f"Run on\n\n{run_on}\n", encoding="utf-8")
                    await ours(store, root / "big")
                elif case == "naive":
                    await store.upsert([Source(id=str(uuid.uuid4()), title="Run on", excerpt=run_on)])
                results[case] = await p95_search(store, 1 if case == "naive" else 6)
    print(
        f"kb search p95 over {len(QUERIES)} queries, {n} documents, one run-on file of {len(run_on) / 1e6:.1f} MB"
    )
    row = "{:<40}{:>12}{:>14}  {}"
    print(row.format("case", "p95 (ms)", "x without", "target"))
    for case, label in (("without", "without the file"), ("ours", "with it, cut under the passage limit"),
                        ("naive", "with it as one passage (naive)")):  # fmt: skip
        ratio = results[case] / results["without"]
        target = f"<= 2x: {verdict(ratio <= 2)}" if case == "ours" else ""
        print(row.format(label, f"{results[case] * 1000:.1f}", f"{ratio:.1f}", target))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real", type=Path, help="a folder of real documents to time instead")
    parser.add_argument("--big", action="store_true", help="kb search with a run-on file in the store")
    parser.add_argument("--mb", type=float, default=1.0, help="--big: the run-on file's size")
    args = parser.parse_args()
    if args.big:
        asyncio.run(run_big(args.mb))
    else:
        asyncio.run(run_real(args.real, args.runs) if args.real else run(args.docs, args.runs))
