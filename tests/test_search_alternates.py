"""The lexicon's other wordings of a question's words rank what the question's own words find: a short form the
knowledge base rarely writes ("abx" for "antibiotics") no longer brings the few cards that write it first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.store import Store
from hippo_tui.store.narrowing import standing_in
from tests.support.passages import store_of

PASSAGES = [
    (
        "Acute sinusitis › Treatment",
        "Offer an antibiotic when symptoms last more than ten days: amoxicillin.",
    ),
    ("C. difficile › Risk", "Recent abx raise the risk of a second infection: stop abx early."),
    (
        "Fever in infants › Treatment",
        "Abx for a febrile infant under one month whatever the first tests show.",
    ),
    ("Cellulitis › Treatment", "Flucloxacillin is the antibiotic of choice for cellulitis."),
    ("Otitis media › Treatment", "Most children need no antibiotic; it settles in three days."),
    ("Pneumonia › Treatment", "Give an antibiotic within four hours of diagnosis."),
]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", PASSAGES)
    yield s
    await s.close()


async def test_a_rare_short_form_does_not_outrank_the_words_the_question_spells_out(store: Store) -> None:
    titles = [h.title for h in await store.search("which antibiotics for sinusitis", k=3)]
    assert titles[0] == "Acute sinusitis › Treatment"
    assert "C. difficile › Risk" not in titles  # it says "abx" twice, never "antibiotic"


async def test_the_rare_short_form_still_finds_a_card_that_writes_only_it(store: Store) -> None:
    titles = [h.title for h in await store.search("antibiotics for a febrile infant", k=3)]
    assert titles[0] == "Fever in infants › Treatment"


def test_what_stands_in_for_a_word_is_what_the_knowledge_base_writes_less_often() -> None:
    question = "antibiotics for a chest infection seen in GP"
    assert standing_in(question, {"antibiot": 1006, "abx": 41}) >= {"abx", "general practition"}
    assert "abx" not in standing_in(question, {"antibiot": 10, "abx": 41})  # its usual wording there


async def _titles(path: Path, passages: list[tuple[str, str]], question: str) -> list[str]:
    s = await store_of(path, passages)
    try:
        return [h.title for h in await s.search(question, k=3)]
    finally:
        await s.close()


async def test_a_thing_the_knowledge_base_names_only_in_another_wording_is_found(tmp_path: Path) -> None:
    passages = [
        ("Colitis › Severity", "Severe C. difficile: white cells over 15 or creatinine rising."),
        ("Sepsis › Severity", "Severe sepsis: lactate over 4 after fluids."),
        ("Labs", "Which labs to send and how to label them."),
    ]
    # The lexicon's wording is "Clostridioides difficile", which this knowledge base never writes.
    titles = await _titles(tmp_path / "hippo.db", passages, "what labs make c diff severe")
    assert titles[0] == "Colitis › Severity"


async def test_mag_sulph_is_magnesium_sulphate(tmp_path: Path) -> None:
    passages = [
        ("Eclampsia › Magnesium", "Magnesium sulfate 4 g IV over 20 minutes, then 1 g an hour."),
        ("Fits › Loading", "Phenytoin loading dose 20 mg/kg."),
        ("Asthma › Severe", "Nebulised salbutamol and oral prednisolone."),
    ]
    titles = await _titles(tmp_path / "hippo.db", passages, "how much mag sulph")
    assert titles[0] == "Eclampsia › Magnesium"
