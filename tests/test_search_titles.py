"""A document whose title names what the question asks about comes before a long book's passage that says the
question's words more often (a defect the real corpora showed: general treatment books outranked the card on
the very subject; the documents here are our own words)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.store import Store
from hippo_tui.store.open import open_postgres
from tests.support.passages import fill, source_id, store_of

BOOK, CARD = "books/standard-treatment.pdf", "cards/scabies.md"
# (title, excerpt, document)
PASSAGES = {
    "book": ("Standard Treatment Guidelines › Chapter 5 › Skin",
             "Scabies in a child: the treatment is benzyl benzoate for the child and every household contact.",
             BOOK),
    "card": ("Scabies", "Treatment: permethrin 5% cream, for a child as for an adult, washed off after 8 hours.", CARD),
    "other": ("Standard Treatment Guidelines › Chapter 5 › Skin", "Impetigo: wash the crusts off.", BOOK),
    # Other subjects, so that the question's words are rare enough to weigh (IDF).
    **{f"filler{i}": (s.title(), f"{s.title()}: see the protocol on the wall.", f"cards/{s}.md")
       for i, s in enumerate(("gout", "asthma", "burns", "croup", "anaemia", "malaria", "epilepsy", "otitis"))},
}  # fmt: skip
IDS = {key: source_id(i) for i, key in enumerate(PASSAGES)}
QUESTION = "scabies treatment for a child"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", PASSAGES.values())
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
        await fill(s, PASSAGES.values())
        ids = [h.id for h in await s.search(QUESTION, k=3)]
    finally:
        await s.close()
    assert ids[:2] == [IDS["card"], IDS["book"]], ids


# A title said in other words than the question's: a child's age typed for "children", a lay description for
# the clinical term that titles the card.
OTHER_WORDS = {
    "book": ("Standard Treatment Guidelines › Chapter 2 › Dehydration", "Dehydration: ORS, ORS by mouth.", BOOK),
    "chapter": ("Standard Treatment Guidelines › Chapter 3 › Chest infection",
                "Antibiotics when the CRP is above 100 mg/L.", BOOK),
    "children": ("Paediatrics", "Dehydration: give ORS, 50 mL/kg over 4 hours.", "cards/children.md"),
    "pneumonia": ("Pneumonia", "A chest infection: antibiotics when the CRP is above 100 mg/L.",
                  "cards/pneumonia.md"),
    **{f"filler{i}": (s.title(), f"{s.title()}: see the protocol on the wall.", f"cards/{s}.md")
       for i, s in enumerate(("gout", "asthma", "burns", "croup", "anaemia", "malaria", "epilepsy", "otitis"))},
}  # fmt: skip
OTHER_IDS = {key: source_id(i) for i, key in enumerate(OTHER_WORDS)}


@pytest.fixture
async def other_words(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", OTHER_WORDS.values())
    yield s
    await s.close()


@pytest.mark.parametrize(
    ("question", "book", "card"),
    [("ORS for dehydration in a 3 year old", "book", "children"),
     ("ORS for dehydration in a 30 year old", "book", "book"),  # an adult's age says nothing of children
     ("ORS for dehydration for 3 days", "book", "book"),  # a time, not an age
     ("CRP above which antibiotics for a chest infection", "chapter", "pneumonia")],
)  # fmt: skip
async def test_a_title_said_in_other_words_comes_first(
    other_words: Store, question: str, book: str, card: str
) -> None:
    assert (await other_words.search(question, k=3, titles=False))[0].id == OTHER_IDS[book]
    assert (await other_words.search(question, k=3))[0].id == OTHER_IDS[card]


def test_the_folded_definitions_are_kept_between_processes_and_a_damaged_file_is_rebuilt(
    tmp_path, monkeypatch
):
    from hippo_tui import cache_files
    from hippo_tui.store import titles

    monkeypatch.setattr(cache_files, "cache_dir", lambda: tmp_path)
    built = titles._folded_definitions()
    titles._definitions.cache_clear()
    assert titles._definitions() == built  # built, and kept
    kept = list(tmp_path.glob("title-definitions-*.bin"))
    assert len(kept) == 1
    titles._definitions.cache_clear()
    assert titles._definitions() == built  # read back
    kept[0].write_bytes(b"damaged")
    titles._definitions.cache_clear()
    assert titles._definitions() == built  # rebuilt, not read
    titles._definitions.cache_clear()
