"""What the PostgreSQL store's parts share: the pool, error translation and write transactions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hippo_tui.store.base import StoreBase
from hippo_tui.store.errors import StoreError
from hippo_tui.store.pg import adapter
from hippo_tui.store.pg.connect import describe, translate

if TYPE_CHECKING:
    import aiosqlite
    from psycopg_pool import AsyncConnectionPool


class PgBase(StoreBase):
    url: str
    writer: str  # this process's lease on the answers it writes (see PgAuditMixin.mark_interrupted)

    def __init__(self, pool: AsyncConnectionPool, url: str) -> None:  # no super(): there is no SQLite file
        self.pool, self.url = pool, url
        self._conn = adapter.Connection(pool)
        self._db = cast("aiosqlite.Connection", self._conn)  # the mixins' statements run through it
        # Messages name the server, never the password: f"{store.path}: …" reads as a URL.
        self.path = cast(Path, describe(url))
        self.busy_timeout = 0.0
        self._write_lock = asyncio.Lock()  # unused: the server orders transactions
        self._doc_counts: dict[str, int] = {}
        self._pending: set[asyncio.Future[None]] = set()
        self._closed = False

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import psycopg
        from psycopg_pool import PoolClosed

        if self._closed:
            raise StoreError(f"{self.path}: the store is closed")
        try:
            yield
        except PoolClosed as e:
            raise StoreError(f"{self.path}: the store is closed") from e
        except psycopg.Error as e:
            raise translate(e, self.url) from e

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction on one pooled connection; every statement of this task inside it runs there.

        A nested call (a write inside another's transaction) joins the outer one, as on SQLite, where the
        mixins never nest.
        """
        if adapter.in_transaction(self.pool) is not None:
            yield self._db
            return
        with self._errors():
            async with self._conn.connection() as conn, conn.transaction():
                token = adapter.current.set({**adapter.current.get({}), id(self.pool): conn})
                try:
                    yield self._db
                finally:
                    adapter.current.reset(token)
        if self._conn.wrote_sources:
            self._conn.wrote_sources = False
            await self._sources_written()

    async def _sources_written(self) -> None:
        """After a committed transaction that wrote sources (the search index brings itself up to date)."""

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[None]:
        """Several reads on one pooled connection (one loan, not one per statement), each committing alone."""
        if adapter.in_transaction(self.pool) is not None:
            yield
            return
        with self._errors():
            async with self._conn.connection() as conn:
                token = adapter.current.set({**adapter.current.get({}), id(self.pool): conn})
                try:
                    yield
                finally:
                    adapter.current.reset(token)

    async def _one(self, sql: str, params: Any = ()) -> Any:
        """The first column of the first row of a query (None when no row)."""
        with self._errors():
            row = await (await self._conn.execute(sql, params)).fetchone()
        return row[0] if row else None
