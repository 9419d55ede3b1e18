"""A small knowledge base a test builds itself: one source per (title, excerpt), with ids in order."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hippo_tui.models import Source
from hippo_tui.store import Store


def source_id(i: int) -> str:
    return f"00000000-0000-4000-8000-{i:012d}"


async def store_of(path: Path, passages: Iterable[tuple[str, str]]) -> Store:
    """A new SQLite store at ``path`` (no demo seed) holding ``passages``."""
    store = await Store.open(path, seed=None)
    await store.upsert(
        Source(id=source_id(i), title=title, excerpt=excerpt) for i, (title, excerpt) in enumerate(passages)
    )
    return store
