"""What a question asks of its subject ("what sac size", "the vaccine schedule") is an aspect, like a dose or a
duration: a card on the subject that gives the measure or the doses answers it without repeating the word, and
the word is no subject of its own to search for. Seen on the real corpora: "MTX for tubal pregnancy - what sac
size rules it out" was searched as "size" and then answered only from passages naming a size. Our own words."""

from __future__ import annotations

import pytest

from hippo_tui.verification.markers import cited_ids
from tests.test_offline_answer_choice import A, B, C, Src, _answer

INHALERS = Src(
    B, "Asthma › Inhalers", "Check inhaler technique at every review before stepping up treatment."
)
GALLBLADDER = Src(
    C, "Ultrasound › Gallbladder", "Measure the gallbladder wall on ultrasound; over 3 mm is thick."
)


@pytest.mark.parametrize(
    ("question", "title", "excerpt", "said"),
    [
        (
            "methotrexate: what sac size rules it out",
            "Methotrexate › Eligibility",
            "Do not give methotrexate when the gestational sac is over 3.5 cm on ultrasound.",
            "sac is over 3.5 cm",
        ),
        (
            "hepatitis b schedule",
            "Needlestick injury › Hepatitis B",
            "Give hepatitis B vaccine: 3 doses of 1 mL, the second 1 month and the third 6 months after the first.",
            "3 doses of 1 mL",
        ),
    ],
)
def test_a_size_or_schedule_asked_is_answered_by_the_measure_or_doses_the_card_gives(
    question, title, excerpt, said
):
    text = _answer(question, Src(A, title, excerpt), INHALERS, GALLBLADDER)
    assert said in text and cited_ids(text) == [A], text


def test_a_size_asked_of_a_subject_no_card_names_is_still_not_covered():
    text = _answer("what size of kidney stone passes on its own", INHALERS, GALLBLADDER)
    assert "does not cover" in text and not cited_ids(text), text


@pytest.mark.parametrize(
    ("question", "title", "excerpt", "said"),
    [
        (
            "intermittent claudication first line - how much supervised exercise",
            "Peripheral arterial disease › Intermittent claudication",
            "Offer a supervised exercise programme: 2 hours of supervised exercise a week for 3 months.",
            "2 hours of supervised exercise a week",
        ),
        (
            "olecranon fracture, how much displacement means it needs an operation",
            "Elbow injuries › Olecranon fracture",
            "Operative fixation if the fracture displacement is more than 2 mm.",
            "more than 2 mm",
        ),
    ],
)
def test_how_much_of_what_is_no_drug_is_answered_by_the_measure_the_card_gives(
    question, title, excerpt, said
):
    # "How much" asks for a dose only of a drug: of exercise or displacement, the hours or the millimetres.
    text = _answer(question, Src(A, title, excerpt), INHALERS, GALLBLADDER)
    assert said in text and cited_ids(text) == [A], text
