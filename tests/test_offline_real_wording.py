"""The offline answerer on the wording a real clinic's questions and documents use (each case a defect the real
corpora showed, in a small knowledge base of our own words): a possessive name, a slip of a class word, a
qualifier no passage repeats, "does", an age group, list lines without full stops, an aim for a goal, a
word of asking.

Every question runs through the real engine, as `hippo-tui ask` runs it.
"""

from __future__ import annotations

import pytest

from hippo_tui.events import EndEvent
from tests.support.asking import answers_over

PASSAGES = {
    "bell": ("Bell's Palsy › Treatment", "Prednisone 60 mg daily for 1 week, started within 72 hours of onset."),
    "pet": (
        "Pre-eclampsia › Treatment of hypertension",
        "Treat a BP of 160/110 mmHg or higher:\nLabetalol 20 mg IV every 10 minutes\nHydralazine 5 mg IV, repeat in 20 minutes up to 30 mg in total\n"
        "Nifedipine 10 mg orally",
    ),
    "k": (
        "Hyperkalaemia › Lowering potassium",
        "Nebulised salbutamol 10 mg lowers serum potassium by about 0.6 mmol/L within 30 minutes.",
    ),
    "tooth": (
        "Dental trauma › Avulsed teeth",
        "An avulsed primary tooth is never put back, because of the risk to the permanent tooth beneath.",
    ),
    "htn": (
        "Hypertension › Step 1",
        "First line, over 55 or Afro-Caribbean: offer a CCB such as amlodipine 5 mg daily.",
    ),
    "pertussis": (
        "Pertussis › Treatment",
        "Azithromycin 10 mg/kg once daily for 3 days; swab and start it at once when the infant is under 3 months.",
    ),
    "txa": (
        "Tranexamic acid › Dosing",
        "Postpartum haemorrhage: 1 g IV over 10 minutes within 3 hours of birth [2]\n"
        "Trauma: 1 g IV over 10 minutes, then 1 g over 8 hours [3]\nReferences",
    ),
    "acs": (
        "NSTEMI › Drug management",
        "Aspirin 300 mg loading dose. Clopidogrel 300 mg loading dose if PCI is planned within 24 hours.",
    ),
    "stemi": ("STEMI › Management", "Prasugel is an option for primary PCI in people under 75."),  # sic: the card's typo
    "flu": ("Influenza › Vaccination", "Offer the influenza vaccine every autumn to adults aged 65 and over."),
    "torsion": ("Testicular torsion › Management", "Suspected testicular torsion needs surgical exploration within 6 hours of the onset of pain."),
    "mdma": ("Ecstacy › Management", "Treat hyperthermia after MDMA (ecstacy) with rapid external cooling."),
    "aur": ("Urinary retention › Management", "Acute retention: catheterise at once; give an alpha blocker for 2 days before removal."),
    "divert": ("Diverticulitis › Outpatient treatment", "Uncomplicated diverticulitis may be treated as an outpatient with oral antibiotics if the patient can drink."),
    "lvad": ("LVAD › Low flow alarm", "Find the blood pressure with a Doppler cuff: MAP goal 70-80 mmHg."),
    "psi": ("Pneumonia scores › Severity index", "PSI class I: under 51 points, 30-day mortality 0.1%, outpatient care."),
    "pulse": ("Trauma › Pulses", "A palpable radial pulse does not prove a systolic pressure over 80 mmHg."),
}  # fmt: skip
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

CASES = [
    (
        "bells palsey steriod dose and for how long",
        "bell",
        "60 mg",
    ),  # "Bell's", a slip, a class for its member
    (
        "hydralazine IV dose for severe BP in preeclampsia, how often can I repeat",
        "pet",
        "repeat in 20 minutes",
    ),
    ("how much does nebulised salbutamol drop the potassium in hyperkalaemia", "k", "0.6 mmol/L"),
    ("kid knocked out a baby tooth, should I put it back in", "tooth", "never put back"),
    # A class word answered by a passage naming a member of it; an age is an age group, not words to find.
    ("first line antihypertensive for a 62 year old Afro-Caribbean man", "htn", "amlodipine 5 mg"),
    ("whooping cough in a 6 week old - which antibiotic and dose", "pertussis", "10 mg/kg"),
    # a lay term, and a misspelling of a street name, for what the card calls it
    ("management of a twisted testicle", "torsion", "within 6 hours"),
    ("treatment of hyperthermia after extasy", "mdma", "rapid external cooling"),
    # a clinician's shorthand and a lay phrase for the step the card names: "TWOC" is taking the catheter out,
    # treating "at home" is treating as an outpatient
    ("acute urinary retention, start an alpha blocker before TWOC?", "aur", "alpha blocker for 2 days"),
    ("uncomplicated diverticulitis, ok to manage at home on oral abx?", "divert", "oral antibiotics"),
    # the asker's aim for the card's goal; a word of asking ("can I trust …") names no subject
    ("LVAD patient with no palpable pulse - what MAP am I aiming for", "lvad", "MAP goal 70-80 mmHg"),
    ("PSI class I in a young man with pneumonia - can I trust the score", "psi", "mortality 0.1%"),
]
UNCOVERED = "semaglutide dose for severe obesity in a young adult"
TXA = "What is the dose of tranexamic acid in trauma?"
PRASUGREL = "prasugrel loading dose for STEMI going to PCI"


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(
        tmp_path_factory.mktemp("home"), PASSAGES, IDS, [q for q, *_ in CASES] + [UNCOVERED, TXA, PRASUGREL]
    )


@pytest.mark.parametrize(("question", "source", "fact"), CASES)
def test_a_real_clinic_wording_is_answered_from_its_passage(answers, question, source, fact):
    end = answers[question]
    assert {c.id for c in end.citations} == {IDS[source]}, end.text
    assert fact in end.text
    assert "does not cover" not in end.text
    # Every statement is backed: list lines written out in a row do not run into one another's claims.
    assert end.coverage is not None and not end.coverage.unbacked, end.text


def test_the_answer_opens_with_the_indication_asked_for_and_leaves_the_others_out(answers):
    end = answers[TXA]
    assert end.text.startswith("Trauma: 1 g IV over 10 minutes"), end.text
    assert "Postpartum" not in end.text and "References" not in end.text
    # The card's own footnote marks are not quoted: they would read as citation numbers of ours.
    assert "[3]" not in end.text and "[2]" not in end.text
    assert [c.id for c in end.citations] == [IDS["txa"]] and not end.coverage.unbacked


def test_a_drug_spelled_right_is_not_read_as_a_sources_typo_nor_answered_by_another_drug(answers):
    # A card misspells "prasugrel"; the question's correct spelling must not be "corrected" to the typo, which
    # no longer names a drug, and so let the clopidogrel card answer for prasugrel.
    end = answers[PRASUGREL]
    assert IDS["acs"] not in {c.id for c in end.citations}, end.text
    assert "Clopidogrel" not in end.text


def test_a_question_on_a_subject_no_passage_names_still_abstains(answers):
    end = answers[UNCOVERED]
    assert not end.citations
    assert "does not cover" in end.text
