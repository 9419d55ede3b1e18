"""One ingest run: read and parse every document, then write them all in one transaction.

Parsing comes first and in full (in a worker thread), so the write lock is held only while writing (an
app open on the same data folder waits for that, not for the parse) and a bad file stops the run before
anything is written.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.ingest.reading import Overrides, gone, parse_file, skipped
from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem

if TYPE_CHECKING:
    from hippo_tui.store import Store


def read_all(
    paths: Sequence[Path],
    heads: dict[str, DocumentHead],
    overrides: Overrides,
    tick: Callable[[], None] = lambda: None,
) -> tuple[list[IngestItem], list[DocumentReport]]:
    """(the documents to write, parsed; the reports of those skipped because their stored version is this
    very file). Blocking: run it in a worker thread. ``tick`` is called once per document."""
    items: list[IngestItem] = []
    done: list[DocumentReport] = []
    for path in paths:
        report = skipped(path, heads.get(str(path)), overrides)
        if report is None:
            items.append(parse_file(path, overrides))
        else:
            done.append(report)
        tick()
    return items, done


async def ingest_paths(
    store: Store,
    paths: Sequence[Path],
    *,
    overrides: Overrides,
    when: datetime,
    dry_run: bool = False,
    retire: Sequence[tuple[str, str]] = (),
    kb_name: str | None = None,
    tick: Callable[[], None] = lambda: None,
    folders: Sequence[Path] = (),
    prune: bool = False,
) -> list[DocumentReport]:
    """Ingest ``paths`` (from ``collect``) into ``store`` in one transaction: every document's report, in order.

    Stored documents under ``folders`` whose files are gone are reported: "removed" with their passages
    retired when ``prune``, "missing" (and left as they are) otherwise.
    """
    heads = await store.document_heads([str(p) for p in paths])
    under = await store.documents_under([os.path.join(f, "") for f in folders]) if folders else {}
    missing = await asyncio.to_thread(gone, under, paths)
    items, done = await asyncio.to_thread(read_all, paths, heads, overrides, tick)
    reports = await store.apply_ingest(
        items, when=when, dry_run=dry_run, retire=retire, kb_name=kb_name, remove=missing if prune else ()
    )
    if not prune:
        heads_gone = [(k, under[k]) for k in missing]
        done += [
            DocumentReport(k, h.title, h.format, h.version, "missing", unchanged=h.passages)
            for k, h in heads_gone
        ]
    order = {str(p): i for i, p in enumerate(paths)}
    return sorted(reports + done, key=lambda r: (order.get(r.key, len(order)), r.key))
