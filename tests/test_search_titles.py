"""A document whose title names what the question asks about comes before a long book's passage that says the
question's words more often (a defect the real corpora showed: general treatment books outranked the card on
the very subject; the documents here are our own words)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.models import Provenance, Source
from hippo_tui.store import Store
from hippo_tui.store.open import open_postgres

BOOK, CARD = "books/standard-treatment.pdf", "cards/scabies.md"
# (document, title, excerpt)
PASSAGES = {
    "book": (BOOK, "Standard Treatment Guidelines › Chapter 5 › Skin",
             "Scabies in a child: the treatment is benzyl benzoate for the child and every household contact."),
    "card": (CARD, "Scabies", "Treatment: permethrin 5% cream, for a child as for an adult, washed off after 8 hours."),
    "other": (BOOK, "Standard Treatment Guidelines › Chapter 5 › Skin", "Impetigo: wash the crusts off."),
    # Other subjects, so that the question's words are rare enough to weigh (IDF).
    **{f"filler{i}": (f"cards/{s}.md", s.title(), f"{s.title()}: see the protocol on the wall.")
       for i, s in enumerate(("gout", "asthma", "burns", "croup", "anaemia", "malaria", "epilepsy", "otitis"))},
}  # fmt: skip
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}
QUESTION = "scabies treatment for a child"


async def _fill(store: Store) -> None:
    await store.upsert(
        Source(id=IDS[key], title=title, excerpt=excerpt,
               provenance=Provenance(document=doc, version="1", ingested="2024-01-01T00:00:00Z"))
        for key, (doc, title, excerpt) in PASSAGES.items()
    )  # fmt: skip


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "hippo.db", seed=None)
    await _fill(s)
    yield s
    await s.close()


async def test_the_document_titled_as_asked_comes_first(store: Store) -> None:
    ids = [h.id for h in await store.search(QUESTION, k=3)]
    assert ids[:2] == [IDS["card"], IDS["book"]], ids


async def test_without_titles_the_order_is_bm25s(store: Store) -> None:
    # What the answerer reads: the book's passage, saying the question's words most, first.
    ids = [h.id for h in await store.search(QUESTION, k=3, titles=False)]
    assert ids[0] == IDS["book"], ids


async def test_postgres_puts_the_same_document_first(pg_url: str) -> None:
    s = await open_postgres(pg_url, seed=None)
    try:
        await _fill(s)
        ids = [h.id for h in await s.search(QUESTION, k=3)]
    finally:
        await s.close()
    assert ids[:2] == [IDS["card"], IDS["book"]], ids
