"""Two typos in one question, in a knowledge base with typos of its own: each is read as the word meant, and
the words meant are read together as the phrase the lexicon knows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.store import Store
from tests.support.passages import store_of

CAP = ("Chest › Management", "CAP of low severity: amoxicillin is the antibiotic of choice.")
PASSAGES = [
    CAP,
    ("Clinics", "A comunit health worker visits every week."),  # the knowledge base's own typo
    ("Pneumonia › Severity", "CURB-65 tells low from high severity pneumonia."),
    *((f"Community care › Visit {i}", f"Community nurses review wounds on day {i}.") for i in range(30)),
    ("Meningitis › Antibiotics", "Ceftriaxone antibiotic at once; do not wait for the scan."),
    ("Antibiotic stewardship", "Review every antibiotic prescription at 48 hours."),
    ("Asthma › Inhaler technique", "Check the technique at every visit."),
    ("Gout › Diet", "Less beer and red meat."),
    ("Alcohol withdrawal", "Delirium after the second day: diazepam, thiamine before glucose."),
]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", PASSAGES)
    yield s
    await s.close()


async def test_two_typos_read_together_find_the_abbreviated_passage(store: Store) -> None:
    hits = await store.search("low severity comunity acquired pnemonia antibiotic", k=3)
    assert hits[0].title == CAP[0], [h.title for h in hits]


async def test_a_typo_the_knowledge_base_shares_once_does_not_hide_the_word_meant(store: Store) -> None:
    # "comunity" is one slip from "community" (30 passages) and from the one passage's own "comunit".
    hits = await store.search("comunity?", k=3)
    assert hits and hits[0].title.startswith("Community care"), [h.title for h in hits]


async def test_a_vowel_typed_for_another_is_a_slip(store: Store) -> None:
    # The commonest misspelling of a long word: one vowel for another ("delerium", "paracetomol").
    hits = await store.search("delerium", k=3)
    assert hits and hits[0].title == "Alcohol withdrawal", [h.title for h in hits]


async def test_a_typo_the_knowledge_base_also_makes_is_read_as_the_word_meant(tmp_path: Path) -> None:
    # "pregancy" is in the index (one passage's own typo), but "pregnancy" is in 30 times as many passages.
    passages = [
        ("Feeding survey", "Staff recorded pregancy and feeding practices on a form."),
        *(
            (f"Pregnancy › Visit {i}", f"At visit {i} of pregnancy, check the blood pressure.")
            for i in range(30)
        ),
        *((f"Gout › Diet {i}", "Less beer and red meat.") for i in range(40)),
    ]
    s = await store_of(tmp_path / "hippo.db", passages)
    try:
        titles = [h.title for h in await s.search("pregancy", k=3)]
    finally:
        await s.close()
    assert "Feeding survey" in titles  # the word as typed is still searched for
    assert any(t.startswith("Pregnancy") for t in titles), titles
