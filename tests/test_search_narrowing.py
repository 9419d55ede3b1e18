"""Search ranks on what a question is about: an age's unit, a country and a medicine the knowledge base never
names do not decide which passage comes first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.store import Store
from hippo_tui.store.budget import ranked_words
from hippo_tui.store.narrowing import narrowing
from tests.support.passages import store_of

PASSAGES = {
    "scabies": ("Scabies", "Scabies spreads by close skin contact."),
    "scabies cream": ("Scabies › Treatment", "Permethrin cream to the whole body, repeated once after a week."),
    "scabies itch": ("Scabies › Itch", "The itch may last weeks after treatment."),
    "growth": ("Growth › Charts", "Weigh the child at 1 yr, 2 yr and 3 yr."),
    "tb": ("Tuberculosis › Treatment", "The regimen: six months of four drugs, then two."),
    "uk": ("TB contacts born in the UK", "Screen UK-born contacts once."),
    "acei": ("ACE inhibitor angioedema", "Lip and tongue swelling in a patient on an ACE inhibitor: stop it for good."),
    "sting": ("Insect stings", "Lip swelling after a bee sting settles with an antihistamine."),
    "cough": ("Acute cough › Advice", "Most settle in three weeks; an antibiotic rarely helps."),
    "gp": ("GP antibiotic audit", "Each GP practice audits its GP antibiotic prescribing."),
    "ssri": ("Depression › Fluoxetine", "Fluoxetine for six months after the mood has lifted."),
    "score": ("CHADS2 score", "Heart failure 1 pt, hypertension 1 pt, age over 75 1 pt, stroke 2 pt."),
}  # fmt: skip
FILLER = ["Asthma › Inhaler technique", "Gout › Diet", "Sepsis › Fluids", "Otitis › Watchful waiting"]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    # Fillers: a word weighs nothing in bm25 when it is in half the passages, as in a tiny knowledge base.
    rows = [*PASSAGES.values(), *((title, f"{title}: see the local protocol.") for title in FILLER)]
    s = await store_of(tmp_path / "hippo.db", rows)
    yield s
    await s.close()


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("scabies cream for a 3 yr old", "scabies cream"),  # "yr" is rarer than scabies here, yet only an age
        ("standard TB regimen in the UK", "tb"),  # the country is whose guidance, not what it is about
        ("lip swelling on lisinopril", "acei"),  # a medicine the knowledge base never names, by its class
        ("antibiotic for cough in GP", "cough"),  # where the clinician works, as a country
    ],
)
async def test_what_the_question_is_about_comes_first(store: Store, question: str, wanted: str) -> None:
    hits = await store.search(question, k=3)
    assert hits and hits[0].title == PASSAGES[wanted][0], [h.title for h in hits]


async def test_a_passage_saying_only_the_shorthand_is_no_result(store: Store) -> None:
    # "pt" is a clinician's note for "patient"; a source that prints it means something else ("1 pt", a point).
    hits = await store.search("pt on fluoxetine, how long", k=3)
    assert [h.title for h in hits][:1] == [PASSAGES["ssri"][0]]
    assert PASSAGES["score"][0] not in [h.title for h in hits]


def test_an_age_unit_and_a_country_narrow_but_a_subject_does_not() -> None:
    assert narrowing("scabies in a 3 yr old in the UK") == {"yr", "uk"}
    assert narrowing("6 wk old with fever") == {"wk"}
    assert narrowing("yr of diagnosis of scabies") == set()  # no number before it: not an age
    assert narrowing("chest infection in GP") == {"gp"}
    assert narrowing("resp rate in a 3 yo pt") == {"resp", "yo", "pt"}


def test_a_narrowing_word_ranks_the_candidates_but_never_finds_them() -> None:
    dfs = {"scab": 40, "yr": 20, "cream": 100}
    assert ranked_words(dfs, rows=1000, narrowing={"yr"}) == (["scab", "cream"], ["yr"])
    # A question of narrowing words alone still finds something, by the rarest.
    assert ranked_words({"uk": 30, "yr": 20}, rows=1000, narrowing={"uk", "yr"}) == (["yr"], ["uk"])
