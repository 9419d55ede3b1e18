"""A clinician's everyday words find the passage that uses the clinical term (the lexicon's [terms])."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.models import Source
from hippo_tui.store import Store

PASSAGES = {
    "neuropathic": ("Neuropathic pain › Management", "Offer amitriptyline, duloxetine, gabapentin or pregabalin."),
    "open": ("Open fractures › Antibiotics", "Cefazolin within the hour for every open fracture."),
    "anaphylaxis": ("Anaphylaxis › Adrenaline", "Adrenaline 0.5 mg intramuscular, repeated after five minutes."),
    "coc": ("Postpartum contraception", "Combined oral contraceptives from 21 days after birth if not breastfeeding."),
    "nerve": ("Nerve conduction studies", "Nerve studies need no tablets stopped beforehand."),
    "fracture": ("Fracture clinic › Tibia", "A tibia fracture in plaster is seen again at one week."),
    "reaction": ("Dental block › Reaction", "An adult reaction to the adrenaline in a dental block: palpitations."),
    "pill": ("Pill esophagitis", "A pill taken lying down may start ulcers after a delivery of many doses."),
    "mother": ("Rubella › Mother", "A mother found not immune is vaccinated after the birth."),
    "child": ("Rubella › Child", "A child with rubella stays off nursery; vaccinate the contacts."),
}  # fmt: skip
FILLER = ["Asthma › Inhaler technique", "Gout › Diet", "Sepsis › Fluids", "Croup › Steroid"]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "hippo.db", seed=None)
    rows = [*PASSAGES.values(), *((title, f"{title}: see the local protocol.") for title in FILLER)]
    await s.upsert(
        Source(id=f"00000000-0000-4000-8000-{i:012d}", title=title, excerpt=excerpt)
        for i, (title, excerpt) in enumerate(rows)
    )
    yield s
    await s.close()


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("first line tablets for nerve pain", "neuropathic"),
        ("compound fracture of the tibia, which antibiotic", "open"),
        ("IM adrenaline dose, adult anaphylactic reaction", "anaphylaxis"),
        ("when can she start the combined pill after delivery", "coc"),
        ("mum with rubella, vaccinate when?", "mother"),
    ],
)
async def test_a_lay_term_finds_the_clinical_term_first(store: Store, question: str, wanted: str) -> None:
    hits = await store.search(question, k=3)
    assert hits and hits[0].title == PASSAGES[wanted][0], [h.title for h in hits]
