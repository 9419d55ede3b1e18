"""A question in a clinician's note shorthand ("dex", "lac", "hep b", "OP poisoning", "vit B6") or a lay name
("tubal pregnancy", "compound fracture", "nerve pain") is answered from the card that spells the thing out, and
still not from a card on something else. The cards are our own words."""

from __future__ import annotations

import pytest

from hippo_tui.backends.extractive.words import content_words
from hippo_tui.verification.markers import cited_ids
from tests.test_offline_answer_choice import A, B, Src, _answer

OTHER = Src(B, "Asthma › Inhalers", "Check inhaler technique at every review before stepping up treatment.")


@pytest.mark.parametrize(
    ("question", "card", "said"),
    [
        (
            "croup dex dose",
            Src(A, "Croup › Treatment", "Give dexamethasone 0.15 mg/kg by mouth as a single dose for croup."),
            "dexamethasone 0.15 mg/kg",
        ),
        (
            "hep b vaccine schedule",
            Src(
                A,
                "Hepatitis B › Vaccine",
                "The hepatitis B vaccine schedule is three doses: now, 1 and 6 months.",
            ),
            "three doses",
        ),
        (
            "OP poisoning atropine dose",
            Src(
                A,
                "Organophosphate poisoning › Treatment",
                "In organophosphate poisoning give atropine 2 mg IV and double the dose every 5 minutes.",
            ),
            "atropine 2 mg",
        ),
        (
            "vit B6 dose with isoniazid",
            Src(
                A,
                "Isoniazid › Neuropathy",
                "Give pyridoxine 25 mg daily with isoniazid to prevent neuropathy.",
            ),
            "pyridoxine 25 mg",
        ),
        (
            "MTX for tubal pregnancy: which sac rules it out",
            Src(
                A,
                "Ectopic pregnancy › Methotrexate",
                "Do not give methotrexate for an ectopic pregnancy with a sac over 4 cm.",
            ),
            "sac over 4 cm",
        ),
        (
            "compound fracture antibiotic",
            Src(A, "Open fracture › Antibiotics", "Give cefazolin within one hour of an open fracture."),
            "cefazolin",
        ),
        (
            "first line drug for nerve pain",
            Src(
                A,
                "Neuropathic pain › Drugs",
                "Offer amitriptyline or gabapentin first line for neuropathic pain.",
            ),
            "amitriptyline",
        ),
    ],
)
def test_a_question_in_shorthand_is_answered_from_the_card_that_spells_it_out(question, card, said):
    text = _answer(question, card, OTHER)
    assert said in text and cited_ids(text) == [A], text


def test_a_card_on_another_subject_does_not_answer_the_shorthand():
    # "dex" is dexamethasone: a card that only names dextrose does not answer a dex dose.
    card = Src(A, "Hypoglycaemia › Treatment", "Give dextrose 10% 2 mL/kg IV for hypoglycaemia in croup.")
    text = _answer("croup dex dose", card)
    assert "does not cover" in text and not cited_ids(text), text


def test_op_alone_is_not_read_as_organophosphate():
    # Only "OP poisoning" names the poison: "OP" on its own is also an outpatient clinic.
    assert "organophosphate" in content_words("OP poisoning")
    assert "organophosphate" not in content_words("OP clinic follow up")


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("dex", "dexamethasone"),
        ("lac repair", "laceration repair"),
        ("hep b", "hepatitis b"),
        ("hep c", "hepatitis c"),
        ("OP poisoning", "organophosphate poisoning"),
        ("vit B6", "pyridoxine"),
        ("vitamin B6", "pyridoxine"),
        ("TB meds", "TB medicines"),
        ("tubal pregnancy", "ectopic pregnancy"),
        ("compound fracture", "open fracture"),
        ("nerve pain", "neuropathic pain"),
        ("pericardial inflammation", "pericarditis"),
        ("when to pop it back", "when to reduce it"),
        # A result noted with a sign is the word.
        ("RSV+ infants", "RSV positive infants"),
        ("HIV +ve mother", "HIV positive mother"),
        ("GBS -ve", "GBS negative"),
    ],
)
def test_shorthand_and_lay_names_are_read_as_the_term_a_card_writes(typed, written):
    assert content_words(typed) == content_words(written)


def test_a_grade_or_an_ion_with_a_plus_is_no_positive_result():
    assert "positive" not in content_words("2+ proteinuria") | content_words("Ca2+ level")


def test_a_positive_result_asked_in_words_is_answered_by_the_line_that_notes_it():
    card = Src(
        A,
        "Fever in infants › Urine",
        "Fever in infants: check the urine in all.\nRSV+ infants still have a 5% rate of urine infection.",
    )
    text = _answer("infant with fever, RSV swab positive - still check the urine?", card, OTHER)
    assert "RSV+ infants still have" in text and cited_ids(text) == [A], text


def test_a_query_mark_before_a_word_is_a_suspected_diagnosis_not_the_end_of_a_question():
    # "chest pain ?ACS, ... do I give oxygen" is one question about suspected ACS; split at the "?" its first
    # part asked only "chest pain", answered from a card on the causes of chest pain.
    card = Src(A, "Acute coronary syndrome › Oxygen", "Oxygen: only offer if sats below 94%.")
    causes = Src(B, "Chest pain › Causes", "Chest pain may come from the chest wall, the lungs or the gut.")
    text = _answer("chest pain ?ACS, sats 96% on air - do I give oxygen", card, causes)
    assert text.startswith("Oxygen: only offer if sats below 94%") and cited_ids(text) == [A], text
