"""The connection a Store wraps: error translation and write transactions shared by its parts."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

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

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error or cancellation.

        IMMEDIATE takes the write lock up front, so a locked database fails here (after busy_timeout)
        rather than half-way through.
        """
        async with self._write_lock:
            with self._errors():
                try:
                    await self._db.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as e:
                    if "within a transaction" not in str(e):
                        raise
                    # A task cancelled while its BEGIN waited for the lock leaves that BEGIN to land
                    # later, ownerless (we hold the write lock, so nobody else's transaction is open).
                    await self._db.execute("ROLLBACK")
                    await self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    if self._db.in_transaction:
                        await asyncio.shield(self._db.execute("ROLLBACK"))
                    raise
                await self._db.execute("COMMIT")
