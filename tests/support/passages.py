"""A small knowledge base a test builds itself: one source per (title, excerpt), with ids in order.

A passage may also name the document it comes from and its body, (title, excerpt, document, body), as an
ingested one does: search ranks a document's passages together and reads a body as the rest of its section.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hippo_tui.models import Provenance, Source
from hippo_tui.store import Store

# (title, excerpt), (title, excerpt, document) or (title, excerpt, document, body)
Passage = tuple[str, str] | tuple[str, str, str] | tuple[str, str, str, str | None]


def source_id(i: int) -> str:
    return f"00000000-0000-4000-8000-{i:012d}"


def _source(i: int, passage: Passage) -> Source:
    title, excerpt, document, body = (*passage, None, None)[:4]  # what a passage leaves out is None
    provenance = None
    if document is not None:
        provenance = Provenance(document=document, version="1", ingested="2024-01-01T00:00:00Z")
    return Source(id=source_id(i), title=title, excerpt=excerpt, body=body, provenance=provenance)


async def fill(store: Store, passages: Iterable[Passage]) -> Store:
    """``store`` (either backend), now holding ``passages``, the i-th with id ``source_id(i)``."""
    await store.upsert(_source(i, passage) for i, passage in enumerate(passages))
    return store


async def store_of(path: Path, passages: Iterable[Passage]) -> Store:
    """A new SQLite store at ``path`` (no demo seed) holding ``passages``."""
    return await fill(await Store.open(path, seed=None), passages)
