"""The connection a Store wraps: error translation and write transactions shared by its parts."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import aiosqlite

from hippo_tui.store.errors import StoreError, translate

Row = tuple[Any, ...]
MAX_BATCH = 500  # rows in one grouped INSERT (SQLite allows 32,766 parameters)
# Rows a write must index to be followed by merging the search index (``compact_index``).
COMPACT_ROWS = 1000


class Listed(NamedTuple):
    """A source as ``kb list`` prints it: enough without building its record (pydantic, most of the command's
    start)."""

    id: str
    status: str
    title: str


class StoreBase:
    path: Path
    busy_timeout: float

    def __init__(self, db: aiosqlite.Connection, path: Path, busy_timeout: float) -> None:
        self._db = db
        self.path = path
        self.busy_timeout = busy_timeout
        # One connection, many tasks: writes take turns so one task never commits another's half.
        self._write_lock = asyncio.Lock()
        # Word -> number of active sources containing it, for search's cost bound. Cleared on every
        # write to sources here; another process's writes can leave it stale, which only shifts which
        # rare words a large-KB search ranks on, never what counts as a match.
        self._doc_counts: dict[str, int] = {}
        self._pending: set[asyncio.Future[Any]] = set()  # clean-ups of cancelled writes, grouped inserts
        self._waiting: dict[tuple[str, tuple[str, ...]], list[tuple[Row, asyncio.Future[int]]]] = {}

    async def compact_index(self, written: int = COMPACT_ROWS) -> None:
        """After a write that indexed ``written`` rows: make the search index quicker to read, where the
        backend's index gains from it (SQLite's ``Store`` merges its segments); nothing here."""

    async def list_rows(
        self, *, status: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[Listed]:
        """``list_sources`` as ``Listed`` rows. Here from the records; SQLite's ``Store`` reads the three columns
        alone."""
        sources = await self.list_sources(status=status, limit=limit, offset=offset)  # type: ignore[attr-defined]
        return [Listed(s.id, s.status, s.title) for s in sources]

    @property
    def db(self) -> aiosqlite.Connection:
        return self._db

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn sqlite3 errors into StoreErrors that name the path."""
        try:
            yield
        except sqlite3.Error as e:
            raise translate(e, self.path, self.busy_timeout) from e
        except ValueError as e:
            # aiosqlite raises ValueError once the connection is closed.
            if "closed" in str(e).lower() or "no active connection" in str(e).lower():
                raise StoreError(f"{self.path}: the store is closed") from e
            raise

    async def _begin(self) -> None:
        begin = asyncio.ensure_future(self._db.execute("BEGIN IMMEDIATE"))
        try:
            await asyncio.shield(begin)
        except asyncio.CancelledError:
            # The BEGIN runs on in aiosqlite's thread and may still get the lock: undo it once it lands,
            # so a cancelled write never leaves the database write-locked for other processes.
            undo = asyncio.ensure_future(self._undo_begin(begin))
            self._pending.add(undo)
            undo.add_done_callback(self._pending.discard)
            raise
        except sqlite3.OperationalError as e:
            if "within a transaction" not in str(e):
                raise
            # A cancelled BEGIN landed before its undo ran; we hold the write lock, so it is ownerless.
            await self._db.execute("ROLLBACK")
            await self._db.execute("BEGIN IMMEDIATE")

    async def _undo_begin(self, begin: asyncio.Future[Any]) -> None:
        try:
            await begin
        except (sqlite3.Error, ValueError):
            return  # it never started (locked out, or the store closed)
        async with self._write_lock:
            if self._db.in_transaction:
                await self._db.execute("ROLLBACK")

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error or cancellation.

        IMMEDIATE takes the write lock up front, so a locked database fails here (after busy_timeout)
        rather than half-way through.
        """
        async with self._write_lock:
            with self._errors():
                await self._begin()
                try:
                    yield self._db
                except BaseException:
                    if self._db.in_transaction:
                        await asyncio.shield(self._db.execute("ROLLBACK"))
                    raise
                await self._db.execute("COMMIT")

    async def _insert_grouped(self, table: str, columns: tuple[str, ...], row: Row) -> int:
        """Insert ``row`` and return its id once it is committed, grouped with every insert into the same
        table and columns waiting when the write lock comes free: one transaction and one INSERT for all of
        them, so a few round trips to SQLite's thread and one commit instead of those of each.

        Why: under a burst (a server's 50 questions at once) each write transaction costs several trips
        through an event loop busy with running answers; one at a time, the 50th question's start waited
        for 49 such transactions (bench/bench_server.py: first event p95 1.4 s; grouped, 0.13 s)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        key = (table, columns)
        if key not in self._waiting:
            self._waiting[key] = []
            flush = asyncio.ensure_future(self._flush_grouped(key))  # no caller's cancellation stops it
            self._pending.add(flush)
            flush.add_done_callback(self._pending.discard)
        self._waiting[key].append((row, future))
        return await future  # a caller cancelled before its group's INSERT is left out of it

    async def _flush_grouped(self, key: tuple[str, tuple[str, ...]]) -> None:
        batch: list[tuple[Row, asyncio.Future[int]]] | None = None  # None: not yet taken from the queue
        try:
            async with self._transaction():
                # Taken once the lock is ours: what queued while another write held it goes in too.
                batch = [(row, f) for row, f in self._waiting.pop(key) if not f.cancelled()]
                ids = [i for start in range(0, len(batch), MAX_BATCH)
                       for i in await self._insert_batch(key, batch[start : start + MAX_BATCH])]  # fmt: skip
        except BaseException as e:
            if batch is None:  # failed before it was taken (the lock): the queue fails with it
                batch = self._waiting.pop(key, [])
            error = e if isinstance(e, Exception) else StoreError(f"{self.path}: the write was stopped")
            for _, future in batch:
                if not future.done():
                    future.set_exception(error)
            if not isinstance(e, Exception):
                raise
            return
        for (_, future), answer_id in zip(batch, ids, strict=True):
            if not future.done():
                future.set_result(answer_id)

    async def _insert_batch(
        self, key: tuple[str, tuple[str, ...]], batch: list[tuple[Row, Any]]
    ) -> list[int]:
        """The ids of ``batch``'s rows, in its order, from one multi-row INSERT ... RETURNING."""
        table, columns = key
        names = ", ".join(columns)
        marks = "(" + ", ".join("?" * len(columns)) + ")"
        sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([marks] * len(batch))} RETURNING id, {names}"
        returned = await self._db.execute_fetchall(sql, [v for row, _ in batch for v in row])
        # RETURNING's order is not promised: each row takes an id returned with exactly its values (rows
        # alike in every value are interchangeable).
        ids: dict[Row, list[int]] = {}
        for row_id, *values in returned:
            ids.setdefault(tuple(values), []).append(int(row_id))
        return [ids[tuple(row)].pop() for row, _ in batch]
