"""A PostgreSQL connection shaped like the part of aiosqlite the store's mixins use (``execute`` with
``?`` marks, ``executemany``, cursors with ``fetchone``/``fetchall``/``rowcount``), so the statements that
are the same SQL on both backends are written once.

Inside a write transaction every statement of the task runs on that transaction's connection (a context
variable); outside one each statement borrows a pooled connection and commits by itself.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import AsyncIterator, Generator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import AsyncConnectionPool

_MARK = re.compile(r"\?")
# pool -> the connection of the transaction this task is in (per pool: a copy between two databases runs
# one store's transaction while reading the other).
current: contextvars.ContextVar[dict[int, psycopg.AsyncConnection[Any]]] = contextvars.ContextVar(
    "hippo_pg_connection"
)


def in_transaction(pool: AsyncConnectionPool) -> psycopg.AsyncConnection[Any] | None:
    return current.get({}).get(id(pool))


def to_pg(sql: str) -> str:
    """SQLite's ``?`` marks as psycopg's ``%s`` (a literal ``%`` doubled first). Our statements hold no
    ``?`` inside string literals."""
    return _MARK.sub("%s", sql.replace("%", "%%"))


class Rows:
    """A statement's result, read whole: what aiosqlite's cursor offers the mixins."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self._rows, self.rowcount = rows, rowcount

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    async def __aenter__(self) -> Rows:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def __aiter__(self) -> AsyncIterator[tuple[Any, ...]]:
        for row in self._rows:
            yield row


class _Pending:
    """``await db.execute(…)`` and ``async with db.execute(…) as cur`` both, as aiosqlite allows."""

    def __init__(self, run: Any) -> None:
        self._run = run
        self._rows: Rows | None = None

    def __await__(self) -> Generator[Any, None, Rows]:
        return self._run.__await__()

    async def __aenter__(self) -> Rows:
        self._rows = await self._run
        return self._rows

    async def __aexit__(self, *exc: object) -> None:
        return None


# A statement that writes a source's text: the folded search index must be brought up to date after it.
_WRITES_SOURCES = re.compile(r"^\s*(?:INSERT\s+INTO|UPDATE)\s+sources\b", re.I)


class Connection:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool
        self.wrote_sources = False  # since the store last indexed stale sources

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> _Pending:
        return _Pending(self._execute(to_pg(sql), params))

    async def _execute(self, sql: str, params: Sequence[Any] | dict[str, Any]) -> Rows:
        self.wrote_sources |= bool(_WRITES_SOURCES.match(sql))
        conn = in_transaction(self.pool)
        if conn is not None:
            return await _run(conn, sql, params)
        async with self.connection() as conn:
            return await _run(conn, sql, params)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection; when it turns out broken (the server restarted), every idle one is checked
        before the error goes on, so the next answer gets a live connection rather than another dead one."""
        import psycopg

        try:
            async with self.pool.connection() as conn:
                yield conn
        except psycopg.OperationalError:
            await self.pool.check()
            raise

    async def native(self, sql: str, params: Sequence[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
        """PostgreSQL's own SQL (``%s`` marks), for the statements that differ between the backends."""
        return await (await self._execute(sql, params)).fetchall()

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.wrote_sources |= bool(_WRITES_SOURCES.match(sql))
        conn = in_transaction(self.pool)
        if conn is None:
            async with self.connection() as conn, conn.transaction():
                await _many(conn, to_pg(sql), rows)
        else:
            await _many(conn, to_pg(sql), rows)


async def _run(conn: psycopg.AsyncConnection[Any], sql: str, params: Sequence[Any] | dict[str, Any]) -> Rows:
    cur = await conn.execute(sql, params or None)  # text built from our constants
    rows = await cur.fetchall() if cur.description else []
    return Rows(list(rows), cur.rowcount)


async def _many(conn: psycopg.AsyncConnection[Any], sql: str, rows: Sequence[Sequence[Any]]) -> None:
    if rows:
        async with conn.cursor() as cur:
            await cur.executemany(sql, rows)  # text built from our constants
