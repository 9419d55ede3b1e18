"""Reaching PostgreSQL: the URL told apart from a file path, a pool that survives a restart, and errors that
name the server (host and port) and why, never the password."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from hippo_tui.store.errors import StoreError, StoreLocked, StoreReadOnly

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import AsyncConnectionPool

CONNECT_TIMEOUT = 10  # seconds for one connection attempt: a wrong host fails in seconds, not minutes
POOL_SIZE = 8  # connections one process keeps at most (8 concurrent audit writers in the benchmark)


def is_postgres_url(database: str) -> bool:
    return database.startswith(("postgresql://", "postgres://"))


def describe(url: str) -> str:
    """``postgresql://user@host:port/db`` without the password (nor a query string that may hold one)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)  # libpq also takes host= and port= there (a socket folder, say)
    try:
        port = parts.port or int(query.get("port", ["5432"])[0])
    except ValueError:
        port = 5432
    host = parts.hostname or query.get("host", ["local socket"])[0]
    user = f"{parts.username}@" if parts.username else ""
    db = parts.path.lstrip("/") or "(default database)"
    return f"postgresql://{user}{host}:{port}/{db}"


def _redact(text: str, url: str) -> str:
    password = urlsplit(url).password
    return text.replace(password, "***") if password else text


def translate(err: Exception, url: str) -> StoreError:
    """A psycopg error as the StoreError a user can act on, naming the server and never its password."""
    import psycopg
    from psycopg import errors as e

    where = describe(url)
    text = _redact(str(err).strip() or type(err).__name__, url)
    if isinstance(err, e.InsufficientPrivilege):
        return StoreReadOnly(f"{where}: the database refused this ({text}). Ask its administrator for "
                             "the privileges in `hippo-tui db grants`.")  # fmt: skip
    if isinstance(err, e.LockNotAvailable | e.DeadlockDetected | e.QueryCanceled):
        return StoreLocked(f"{where}: the database is busy ({text}). Try again.")
    if isinstance(err, psycopg.OperationalError):
        return StoreError(f"{where}: cannot reach the database ({text}). Check that PostgreSQL is running "
                          "there and that --database (HIPPO_DATABASE) is right.")  # fmt: skip
    return StoreError(f"{where}: database error: {text}")


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    # Every statement commits by itself unless inside conn.transaction(): reads never hold a snapshot open.
    await conn.set_autocommit(True)


async def open_pool(url: str, *, size: int = POOL_SIZE) -> AsyncConnectionPool:
    """A pool of connections to ``url``. The first connection is made here, so a wrong URL fails now with
    libpq's reason rather than as a pool timeout. (Connections are not checked on every loan, which would
    double the round trips of a lookup: a failed one makes the store check the whole pool instead.)"""
    import psycopg
    from psycopg_pool import AsyncConnectionPool

    # No named prepared statements: they break behind a transaction-mode pooler (PgBouncer).
    kwargs: dict[str, Any] = {"prepare_threshold": None, "connect_timeout": CONNECT_TIMEOUT}
    try:
        probe = await psycopg.AsyncConnection.connect(url, **kwargs)
    except psycopg.Error as err:
        raise translate(err, url) from None
    await probe.close()
    pool = AsyncConnectionPool(
        url,
        kwargs=kwargs,
        min_size=1,
        max_size=max(1, size),
        open=False,
        configure=_configure,
        timeout=CONNECT_TIMEOUT,
        reconnect_timeout=CONNECT_TIMEOUT,
    )
    await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
    return pool
