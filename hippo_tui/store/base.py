"""The connection a Store wraps: error translation and write transactions shared by its parts."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from hippo_tui.store.errors import StoreError, translate


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
        self._pending: set[asyncio.Future[None]] = set()  # clean-ups of cancelled writes

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
