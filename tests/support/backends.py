"""The store conformance suite's two backends: ``open_backend`` opens a fresh store of either kind.

A PostgreSQL store is a new database copied from a migrated template (CREATE DATABASE … TEMPLATE), so each
test starts empty at the cost of a file copy, on the one cluster of the session.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from hippo_tui.store import DEMO_KB, Store
from hippo_tui.store.open import open_postgres

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
TEMPLATE = "hippo_template"  # migrated, empty
DEMO_TEMPLATE = "hippo_template_demo"  # migrated, with the demo knowledge base (most tests' start)
_numbers = itertools.count(1)


def new_database(admin_url: str, template: str = TEMPLATE) -> str:
    """A fresh, migrated, empty database's name (synchronous: a fixture asks for it from a running loop)."""
    import psycopg

    name = f"hippo_test_{next(_numbers)}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # type: ignore[arg-type]
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")  # type: ignore[arg-type]
    return name


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # type: ignore[arg-type]


@asynccontextmanager
async def open_backend(
    request: pytest.FixtureRequest, tmp_path: Path, *, seed: Path | None = DEMO_KB
) -> AsyncIterator[Store]:
    """A fresh store on ``request.param``'s backend, closed (and checked) afterwards."""
    if request.param == "sqlite":
        store = await Store.open(tmp_path / "data" / "hippo.db", seed=seed)
    elif seed == DEMO_KB:
        store = await open_postgres(request.getfixturevalue("pg_demo_url"), seed=seed)
    else:
        store = await open_postgres(request.getfixturevalue("pg_url"), seed=seed)
    try:
        yield store
        assert await store.integrity_check() == "ok"
    finally:
        await store.close()


def is_postgres(store: Store) -> bool:
    return hasattr(store, "pool")


def sqlite_only(store: Store, why: str) -> None:
    """Skip a test of SQLite's own machinery (FTS5 expressions, the file) on PostgreSQL."""
    if is_postgres(store):
        pytest.skip(f"SQLite only: {why}")


async def open_again(store: Store, *, seed: Path | None = None) -> Store:
    """A second store on the same database: another process's view of it."""
    if is_postgres(store):
        return await open_postgres(store.url, seed=seed)  # type: ignore[attr-defined]
    return await Store.open(store.path, seed=seed)


async def write_marker(store: Store) -> object:
    """Something that changes whenever a row of the knowledge base is written (inserted, updated, deleted)."""
    if not is_postgres(store):
        return store.db.total_changes
    cur = await store.db.execute(
        "SELECT (SELECT string_agg(xmin::text || ctid::text, ',' ORDER BY rowid) FROM sources), "
        "(SELECT string_agg(xmin::text || ctid::text, ',' ORDER BY key) FROM documents), "
        "(SELECT count(*) FROM document_versions)"
    )
    return await cur.fetchone()


@asynccontextmanager
async def statements(store: Store) -> AsyncIterator[list[str]]:
    """The SQL statements the store sends while the block runs."""
    seen: list[str] = []
    if not is_postgres(store):
        await store.db.set_trace_callback(seen.append)
        try:
            yield seen
        finally:
            await store.db.set_trace_callback(None)
        return
    conn = store._conn  # type: ignore[attr-defined]
    run = conn._execute

    async def traced(sql: str, params: object) -> object:
        seen.append(sql)
        return await run(sql, params)

    conn._execute = traced
    try:
        yield seen
    finally:
        del conn._execute
