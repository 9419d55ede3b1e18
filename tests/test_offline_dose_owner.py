"""A dose question is answered only with the dose of the drug asked about, for the group asked about.

A card that gives one drug's dose and names another in passing ("rizatriptan 10 mg, with naproxen or
paracetamol") does not answer for the other's dose, nor does another drug's dose join the answer; a card
limited to children does not answer for an adult, nor one on non-pregnant women for a pregnant woman, but a
group named in passing ("the risk of haemolysis in the newborn") does not make a dose theirs. Where nothing
gives that dose, the answer says the knowledge base does not cover it, as for any question it does not cover.
Every question runs through the real engine, as `hippo-tui ask` runs it, over a small knowledge base of our
own words, and one over the demo knowledge base.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hippo_tui.backends.dose_owner import dose_owners
from hippo_tui.config import Settings
from hippo_tui.events import EndEvent
from hippo_tui.store import DEMO_KB, Store
from tests.support.asking import answers_over, cited, final_answers

PASSAGES = {
    "migraine": (
        "Migraine › Treating an attack",
        "Treat a migraine attack early with rizatriptan 10 mg, together with naproxen or paracetamol.",
    ),
    "ibu-child": (
        "Ibuprofen for children",
        "Children aged 1 to 4 years take ibuprofen 100 mg three times a day after food.",
    ),
    "ibu-adult": (
        "Ibuprofen › Adult dosing",
        "Adults take ibuprofen 400 mg three times a day, and no more than 2.4 g in a day.",
    ),
    "cystitis": (
        "Cystitis in non-pregnant women",
        "Trimethoprim 200 mg twice a day for 3 days treats cystitis in non-pregnant women.",
    ),
    "uti-pregnant": (
        "Urinary infection in pregnancy",
        "In pregnancy, nitrofurantoin 100 mg twice a day for 7 days treats a urinary infection, but avoid it "
        "near term because of the risk of haemolysis in the newborn.",
    ),
    "facial-palsy": (
        "Facial nerve palsy › Drugs",
        "Prednisolone 50 mg once a day for 10 days helps recovery when started within 72 hours. "
        "In a severe facial palsy, aciclovir 400 mg five times a day for 7 days may be added.",
    ),
}
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

PARACETAMOL = "what is the most paracetamol an adult may take in a day"
NAPROXEN = "how much naproxen for a migraine attack"
RIZATRIPTAN = "rizatriptan dose for a migraine attack"
IBU_ADULT = "ibuprofen dose for an adult"
IBU_CHILD = "how much ibuprofen can I give a 3 year old"
NOT_PREGNANT = "trimethoprim dose in pregnancy"
PREGNANT = "nitrofurantoin dose in pregnancy"
STEROID = "steroid dose for facial palsy"
STEROID_HOW_LONG = "steroid dose for facial palsy and for how long"
QUESTIONS = [
    *(PARACETAMOL, NAPROXEN, RIZATRIPTAN, IBU_ADULT, IBU_CHILD),
    *(NOT_PREGNANT, PREGNANT, STEROID, STEROID_HOW_LONG),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(tmp_path_factory.mktemp("home"), PASSAGES, IDS, QUESTIONS)


@pytest.mark.parametrize("question", [PARACETAMOL, NAPROXEN])
def test_another_drugs_dose_is_no_answer_for_the_drug_asked(answers, question):
    # The migraine card names the drug, but its only dose is rizatriptan's: nothing here gives the dose asked.
    end = answers[question]
    assert not end.citations, end.text
    assert "does not cover" in end.text
    assert "10 mg" not in end.text


def test_the_drug_the_dose_belongs_to_is_answered_from_the_same_card(answers):
    end = answers[RIZATRIPTAN]
    assert "rizatriptan 10 mg" in end.text, end.text
    assert cited(end) == {IDS["migraine"]}


def test_an_adult_gets_the_adult_dose_and_a_child_the_childrens(answers):
    adult, child = answers[IBU_ADULT], answers[IBU_CHILD]
    assert "400 mg" in adult.text and "100 mg" not in adult.text, adult.text
    assert cited(adult) == {IDS["ibu-adult"]}
    assert "100 mg three times a day" in child.text, child.text
    assert cited(child) == {IDS["ibu-child"]}


def test_a_card_on_non_pregnant_women_gives_no_dose_for_pregnancy(answers):
    end = answers[NOT_PREGNANT]
    assert not end.citations, end.text
    assert "200 mg" not in end.text


def test_a_group_named_in_passing_does_not_make_the_dose_theirs(answers):
    # The newborn is named for a risk, in a clause of its own: the dose is the mother's.
    end = answers[PREGNANT]
    assert "nitrofurantoin 100 mg twice a day" in end.text, end.text
    assert cited(end) == {IDS["uti-pregnant"]}


def test_a_class_asked_is_answered_with_its_members_dose_alone(answers):
    # Prednisolone is a steroid; aciclovir's dose, in the next sentence of the same card, is not asked for.
    end = answers[STEROID]
    assert "Prednisolone 50 mg" in end.text, end.text
    assert "aciclovir" not in end.text


def test_how_long_for_a_drug_is_not_answered_with_another_drugs_course(answers):
    # "And for how long" asks about the steroid still: aciclovir's 7 days are no answer to it.
    end = answers[STEROID_HOW_LONG]
    assert "for 10 days" in end.text, end.text
    assert "aciclovir" not in end.text


_DRUGS = {"sumatriptan", "paracetamol", "ibuprofen", "amoxicillin", "clarithromycin"}


@pytest.mark.parametrize(
    ("sentence", "owners"),
    [
        ("Offer sumatriptan 50 mg with an NSAID or paracetamol.", {"sumatriptan"}),
        ("Give 1 g of paracetamol every 6 hours.", {"paracetamol"}),
        ("Amoxicillin 500 mg, or clarithromycin 250 mg in allergy.", {"amoxicillin", "clarithromycin"}),
        ("The dose is 1 g every 6 hours.", set()),
        ("Use paracetamol or ibuprofen for fever.", None),
    ],
)
def test_a_dose_belongs_to_the_drug_named_next_to_it(sentence, owners):
    assert dose_owners(sentence, lambda w: {w.lower()} & _DRUGS) == owners


def test_the_demo_kb_gives_no_adult_paracetamol_dose(tmp_path: Path):
    # Its migraine card names paracetamol beside sumatriptan's dose; its paracetamol card is for children.
    question = "how much paracetamol can an adult take in a day"

    async def ask() -> EndEvent:
        store = await Store.open(tmp_path / "hippo.db", seed=DEMO_KB)
        try:
            settings = Settings(home=tmp_path, offline_tokens_per_second=0)
            return (await final_answers(store, settings, [question]))[question]
        finally:
            await store.close()

    end = asyncio.run(ask())
    assert not end.citations, end.text
    assert "sumatriptan" not in end.text and "does not cover" in end.text
