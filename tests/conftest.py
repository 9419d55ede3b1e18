"""Shared fixtures, kept generic: a throwaway data folder, an opened demo store, the scripted SSE server."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.store import DEMO_KB, Store

_ROOT = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Module-scoped fixtures run before the per-test folders below exist: they too get throwaway folders, so
    no test reads a cache another run left in the user's own folder."""
    root = Path(tempfile.mkdtemp(prefix="hippo-tests-"))
    config.stash[_ROOT] = root
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(root / name.lower())


def pytest_unconfigure(config: pytest.Config) -> None:
    """The throwaway folder goes with the run: a run leaves nothing behind in the temporary folder."""
    root = config.stash.get(_ROOT, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def throwaway_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's config and data folders point into a throwaway folder for every test (and the processes
    it starts): a developer's own config.toml or audit database never changes or receives a test's results.
    The cache folder stays the session's throwaway one (``pytest_configure``): it only saves work, in files
    named by what decides their content, so the processes tests start do not each build the lexicon and the
    patterns again. A test about the cache asks for ``no_user_folders``."""
    root = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    return root


@pytest.fixture
def no_user_folders(throwaway_folders: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own throwaway config, data and (empty) cache folders."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(throwaway_folders / "cache"))
    return throwaway_folders


@pytest.fixture
def hippo_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data folder, exported as HIPPO_HOME (never the real one); model env vars cleared."""
    home = tmp_path / "home"
    home.mkdir()
    for name in (
        "HIPPO_BASE_URL",
        "HIPPO_MODEL",
        "HIPPO_API_KEY",
        "HIPPO_BACKEND",
        "HIPPO_CONFIG",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HIPPO_HOME", str(home))
    return home


@pytest.fixture
async def store(hippo_home: Path) -> AsyncIterator[Store]:
    """The demo knowledge base in a fresh database."""
    s = await Store.open(hippo_home / "hippo.db", seed=DEMO_KB)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture(scope="session")
def scripted_server() -> Iterator[Any]:
    """One real HTTP server on 127.0.0.1 for the session; each test loads its scenario with ``play``."""
    from tests.support.server import ScriptedServer  # only sessions that use it start a server

    with ScriptedServer() as server:
        yield server


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """One PostgreSQL cluster for the whole session, with a migrated template database. Skips with the
    reason where PostgreSQL cannot run here, unless HIPPO_REQUIRE_POSTGRES is set (CI on a machine with the
    server binaries): then a missing cluster fails instead of quietly testing one backend."""
    import asyncio
    import concurrent.futures
    import os

    from tests.support import postgres

    reason = postgres.missing_reason()
    if reason:
        if os.environ.get("HIPPO_REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL tests required (HIPPO_REQUIRE_POSTGRES) but cannot run: {reason}")
        pytest.skip(reason)
    cluster = postgres.start()
    try:
        # In a thread of its own: the first test to ask for it may already be running an event loop.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, _make_template(cluster)).result()
        yield cluster
    finally:
        cluster.close()


async def _make_template(cluster: Any) -> None:
    import psycopg

    from hippo_tui.store.open import open_postgres
    from hippo_tui.store.pg.store import migrate_database
    from tests.support.backends import DEMO_TEMPLATE, TEMPLATE

    async with await psycopg.AsyncConnection.connect(cluster.url("postgres"), autocommit=True) as conn:
        for name in (TEMPLATE, DEMO_TEMPLATE):
            await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await conn.execute(f"CREATE DATABASE {TEMPLATE}")
        await migrate_database(cluster.url(TEMPLATE))
        await conn.execute(f"CREATE DATABASE {DEMO_TEMPLATE} TEMPLATE {TEMPLATE}")
    demo = await open_postgres(cluster.url(DEMO_TEMPLATE))
    await demo.close()


@pytest.fixture
def pg_url(pg_cluster: Any) -> Iterator[str]:
    """A fresh migrated database on the session's cluster (empty: no knowledge base seeded yet)."""
    yield from _fresh_database(pg_cluster, "hippo_template")


@pytest.fixture
def pg_demo_url(pg_cluster: Any) -> Iterator[str]:
    """A fresh database holding the demo knowledge base."""
    yield from _fresh_database(pg_cluster, "hippo_template_demo")


def _fresh_database(cluster: Any, template: str) -> Iterator[str]:
    from tests.support.backends import drop_database, new_database

    admin = cluster.url("postgres")
    name = new_database(admin, template)
    yield cluster.url(name)
    drop_database(admin, name)
