"""Shared fixtures, kept generic: a throwaway data folder, an opened demo store, the scripted SSE server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.store import DEMO_KB, Store


@pytest.fixture(autouse=True)
def no_user_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's config and data folders point into a throwaway folder for every test (and the processes
    it starts): a developer's own config.toml or audit database never changes or receives a test's results."""
    root = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    return root


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
