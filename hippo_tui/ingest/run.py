"""One ingest run: read and parse every document, then write them all in one transaction.

Parsing comes first and in full (in a worker thread), so the write lock is held only while writing (an
app open on the same data folder waits for that, not for the parse). A file that cannot be read is one
failed file with its reason: the others go in (``strict`` makes any failure stop the run before anything
is written).
"""

from __future__ import annotations

import asyncio
import os
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.limits import Limits
from hippo_tui.ingest.manifest import Manifest, apply
from hippo_tui.ingest.reading import Overrides, gone, parse_file, skipped
from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem

if TYPE_CHECKING:
    from hippo_tui.store import Store


@dataclass(frozen=True)
class Failure:
    """A file that could not be read, and why, in words a user can act on."""

    key: str
    reason: str


@dataclass
class Outcome:
    """What one run did: the documents' reports, the files that failed, and warnings (file: what)."""

    reports: list[DocumentReport] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    written: bool = False  # False: a dry run, --strict with a failure, or nothing to write


Parse = Callable[[Path, Overrides], IngestItem]
Read = IngestItem | DocumentReport | Failure


def _read_one(path: Path, head: DocumentHead | None, overrides: Overrides, parse: Parse) -> Read:
    try:
        report = skipped(path, head, overrides)
        return parse(path, overrides) if report is None else report
    except IngestError as e:
        return Failure(str(path), e.reason)


def read_all(
    paths: Sequence[Path],
    heads: dict[str, DocumentHead],
    overrides: Overrides,
    tick: Callable[[], None] = lambda: None,
    limits: Limits | None = None,
    manifests: Sequence[Manifest] = (),
) -> tuple[list[IngestItem], list[DocumentReport], list[Failure]]:
    """(the documents to write, parsed; the reports of those skipped because their stored version is this
    very file; the files that failed), in the order of ``paths``. Blocking: run it in a worker thread.
    ``tick`` is called once per document. With ``limits`` each file is parsed in a worker process under
    them (``sandbox``), one worker per core (up to 4) side by side. ``manifests`` (the folders'
    ``hippo-kb.toml``) fill in what ``overrides`` leave unset, file by file."""

    def for_file(path: Path) -> Overrides:
        return apply(list(manifests), path, overrides) if manifests else overrides

    if limits is None:
        read = []
        for path in paths:
            read.append(_read_one(path, heads.get(str(path)), for_file(path), parse_file))
            tick()
    else:
        read = _read_in_workers(paths, heads, for_file, tick, limits)
    items = [r for r in read if isinstance(r, IngestItem)]
    done = [r for r in read if isinstance(r, DocumentReport)]
    return items, done, [r for r in read if isinstance(r, Failure)]


def _read_in_workers(
    paths: Sequence[Path],
    heads: dict[str, DocumentHead],
    for_file: Callable[[Path], Overrides],
    tick: Callable[[], None],
    limits: Limits,
) -> list[Read]:
    from hippo_tui.ingest.sandbox import Sandbox

    n = max(1, min(os.cpu_count() or 1, 4, len(paths)))
    idle: queue.SimpleQueue[Sandbox] = queue.SimpleQueue()
    boxes = [Sandbox(limits) for _ in range(n)]
    for box in boxes:
        idle.put(box)

    def one(path: Path) -> Read:
        box = idle.get()  # each thread drives one worker process at a time
        try:
            return _read_one(path, heads.get(str(path)), for_file(path), box.parse)
        finally:
            idle.put(box)
            tick()

    try:
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(one, paths))
    finally:
        for box in boxes:
            box.close()


async def _tell_apart(store: Store, items: list[IngestItem]) -> None:
    """Documents sharing a printed title (with each other or a stored active one) told apart in citations."""
    if not items:
        return
    from hippo_tui.ingest.same_titles import tell_apart

    mine = {i.doc.key for i in items}
    stored = {d.key: d.title for d in await store.list_documents() if d.active and d.key not in mine}
    tell_apart(items, stored)


async def ingest_paths(
    store: Store, paths: Sequence[Path], *, overrides: Overrides, when: datetime, **options: Any
) -> list[DocumentReport]:
    """``run_ingest`` all or nothing: the first file that fails raises its IngestError, nothing written."""
    outcome = await run_ingest(store, paths, overrides=overrides, when=when, strict=True, **options)
    if outcome.failures:
        first = outcome.failures[0]
        raise IngestError(first.key, first.reason)
    return outcome.reports


async def run_ingest(
    store: Store,
    paths: Sequence[Path],
    *,
    overrides: Overrides,
    when: datetime,
    dry_run: bool = False,
    strict: bool = False,
    retire: Sequence[tuple[str, str]] = (),
    kb_name: str | None = None,
    tick: Callable[[], None] = lambda: None,
    folders: Sequence[Path] = (),
    prune: bool = False,
    limits: Limits | None = None,
    manifests: Sequence[Manifest] = (),
) -> Outcome:
    """Ingest ``paths`` (from ``find``) into ``store`` in one transaction: every document's report, in order,
    and the files that failed. With ``strict`` a failure writes nothing.

    Stored documents under ``folders`` whose files are gone are reported: "removed" with their passages
    retired when ``prune``, "missing" (and left as they are) otherwise. The demo sources in ``retire`` are
    retired only when some document goes in.
    """
    heads = await store.document_heads([str(p) for p in paths])
    under = await store.documents_under([os.path.join(f, "") for f in folders]) if folders else {}
    missing = await asyncio.to_thread(gone, under, paths)
    items, done, failures = await asyncio.to_thread(
        read_all, paths, heads, overrides, tick, limits, manifests
    )
    await _tell_apart(store, items)
    out = Outcome(failures=failures, warnings=[f"{i.doc.key}: {w}" for i in items for w in i.doc.warnings])
    if strict and failures:
        return out
    if not items and not done and not (prune and missing):
        return out
    reports = await store.apply_ingest(
        items, when=when, dry_run=dry_run, retire=retire if items else (), kb_name=kb_name,
        remove=missing if prune else (),
    )  # fmt: skip
    out.written = not dry_run
    if not prune:
        done += [
            DocumentReport(
                k, under[k].title, under[k].format, under[k].version, "missing", unchanged=under[k].passages
            )
            for k in missing
        ]
    order = {str(p): i for i, p in enumerate(paths)}
    out.reports = sorted(reports + done, key=lambda r: (order.get(r.key, len(order)), r.key))
    return out
