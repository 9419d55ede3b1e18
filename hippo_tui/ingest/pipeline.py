"""Reading and writing at once: documents are parsed (in worker processes when there are many, one per
CPU) while the store writes the ones already parsed, and SQLite indexes text without holding the GIL, so
the parse of the next batches overlaps the write of the last one. Everything is still written in the run's
one transaction: an error in any file, raised here from the worker, rolls all of it back.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_tui.ingest.reading import Overrides, parse_files, skipped
from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem

if TYPE_CHECKING:
    from hippo_tui.store import Store

BATCH = 20  # documents per write: small enough to overlap, large enough that each write is one round trip
AHEAD = 3  # batches parsed ahead of the writer (bounds memory on a large folder)
POOL_MIN = 64  # documents to parse before worker processes are worth their start-up (about 0.3 s)
MAX_WORKERS = 4
_DONE = object()


class BatchReader:
    """An async iterator of parsed batches, produced by a worker thread; ``skipped`` fills as it goes."""

    def __init__(
        self,
        paths: Sequence[Path],
        heads: dict[str, DocumentHead],
        overrides: Overrides,
        tick: Callable[[], None],
        workers: int | None = None,
    ) -> None:
        self._paths, self._heads, self._overrides, self._tick = paths, heads, overrides, tick
        self._workers = workers if workers is not None else min(MAX_WORKERS, os.cpu_count() or 1)
        self.skipped: list[DocumentReport] = []
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=AHEAD)
        self._stop = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._worker = asyncio.ensure_future(asyncio.to_thread(self._produce))

    def _put(self, item: object) -> None:
        if not self._stop.is_set():
            asyncio.run_coroutine_threadsafe(self._queue.put(item), self._loop).result()

    def _produce(self) -> None:
        try:
            to_parse = []
            for path in self._paths:
                report = skipped(path, self._heads.get(str(path)), self._overrides)
                if report is None:
                    to_parse.append(path)
                else:
                    self.skipped.append(report)
                    self._tick()
            batches = [to_parse[i : i + BATCH] for i in range(0, len(to_parse), BATCH)]
            for batch in self._parsed(batches):
                if self._stop.is_set():
                    return
                for _ in batch:
                    self._tick()
                self._put(batch)
            self._put(_DONE)
        except BaseException as e:  # handed to the writer, which raises it inside the transaction
            self._put(e)

    def _parsed(self, batches: list[list[Path]]) -> Iterator[list[IngestItem]]:
        """Each batch parsed, in order: in worker processes when there are enough documents to pay for them."""
        workers = min(self._workers, len(batches))
        if workers < 2 or sum(map(len, batches)) < POOL_MIN:
            for batch in batches:
                yield parse_files(batch, self._overrides)
            return
        # spawn, not fork: this process has threads (the store's), and a forked child would inherit their locks.
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        try:
            yield from pool.map(parse_files, batches, [self._overrides] * len(batches))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def __aiter__(self) -> BatchReader:
        return self

    async def __anext__(self) -> list[IngestItem]:
        got = await self._queue.get()
        if got is _DONE:
            raise StopAsyncIteration
        if isinstance(got, BaseException):
            raise got
        return got

    async def close(self) -> None:
        """Stop the worker (after the file it is reading) and wait for it."""
        self._stop.set()
        while not self._queue.empty():  # a worker blocked on a full queue gets its put through
            self._queue.get_nowait()
        await self._worker


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
    workers: int | None = None,
) -> list[DocumentReport]:
    """Ingest ``paths`` (from ``collect``) into ``store`` in one transaction: every document's report, in order.

    ``workers`` is how many processes parse (default: the CPUs, at most MAX_WORKERS; 1 parses in a thread).
    """
    heads = await store.document_heads([str(p) for p in paths])
    reader = BatchReader(paths, heads, overrides, tick, workers)
    try:
        reports = await store.apply_ingest(reader, when=when, dry_run=dry_run, retire=retire, kb_name=kb_name)
    finally:
        await reader.close()
    order = {str(p): i for i, p in enumerate(paths)}
    return sorted(reports + reader.skipped, key=lambda r: order[r.key])
