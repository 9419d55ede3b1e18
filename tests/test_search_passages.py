"""Which of a document's passages a search puts first: the one whose own words (title and excerpt) say the
question, not a neighbour that only carries them in its body, the rest of its section (a defect the real
corpora showed: the passage with the fact ranked below its section's other passages; the documents here are
our own words)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.store import Store
from hippo_tui.store.covering import by_coverage
from hippo_tui.store.open import open_postgres
from tests.support.passages import fill, source_id, store_of

GUIDE, CARD = "guides/stroke.pdf", "cards/stroke.md"
FILLER = " Keep the patient nil by mouth until the swallow screen is passed, and record it in the notes."
# (title, excerpt, document, body): an ingested passage's body is its section's other passages.
PASSAGES = {
    "nursing": ("Stroke guide › Acute stroke", "Nurse the patient sitting up.", GUIDE,
                "Give aspirin 300 mg as the first dose. The aspirin dose is then reduced; aspirin dose changes "
                "are recorded." + FILLER),
    "dose": ("Stroke guide › Acute stroke",
             "Give aspirin 300 mg as the first dose, by mouth or rectally, for two weeks." + FILLER * 2, GUIDE,
             "Nurse the patient sitting up."),
    "card": ("Stroke card", "Thrombolysis within 4.5 hours of onset.", CARD, None),
}  # fmt: skip
IDS = {key: source_id(i) for i, key in enumerate(PASSAGES)}
QUESTION = "aspirin dose after an acute stroke"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", PASSAGES.values())
    yield s
    await s.close()


async def test_the_passage_that_says_the_question_stands_for_its_document(store: Store) -> None:
    hits = await store.search(QUESTION, k=3)
    # The neighbour says "aspirin" and "dose" more often, but only in its body: the passage giving the
    # dose comes first.
    assert [h.id for h in hits] == [IDS["dose"], IDS["card"], IDS["nursing"]], [h.excerpt[:30] for h in hits]


async def test_postgres_puts_the_same_passage_first(pg_url: str) -> None:
    s = await open_postgres(pg_url, seed=None)
    try:
        await fill(s, PASSAGES.values())
        hits = await s.search(QUESTION, k=3)
    finally:
        await s.close()
    assert [h.id for h in hits] == [IDS["dose"], IDS["card"], IDS["nursing"]], [h.excerpt[:30] for h in hits]


def test_which_document_comes_first_is_left_to_bm25() -> None:
    # (name, score, document, title and excerpt): the second document's passage says the whole question in
    # its own words, the first's passages say it in part; documents keep their places, passages move within.
    rows = [
        ("a1", 8.5, "a", "stroke"),
        ("b1", 8.0, "b", "aspirin dose stroke"),
        ("a2", 7.0, "a", "aspirin dose"),
    ]
    ordered = by_coverage([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3:] for r in rows],
                          ["aspirin", "dose", "stroke"], {"aspirin": 1, "dose": 1, "stroke": 1}, 100)  # fmt: skip
    assert ordered == ["a2", "b1", "a1"]
