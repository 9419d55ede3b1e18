"""Shared fixtures, kept generic: a throwaway data folder, an opened demo store, the scripted SSE server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.store import DEMO_KB, Store


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
