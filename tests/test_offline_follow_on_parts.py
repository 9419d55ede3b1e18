"""A later part of one question that names only a drug, or asks only for a treatment, is about the condition the
question named before it: "… and how much aspirin" after Kawasaki disease is not answered with the aspirin dose
a card on pre-eclampsia gives, nor "what drug can I give" for hiccups with a drug for chest pain. Where a card on
the condition gives the drug, the part is answered from it.

Every question runs through the real engine, as `hippo-tui ask` runs it.
"""

from __future__ import annotations

import pytest

from hippo_tui.events import EndEvent
from tests.support.asking import answers_over
from tests.support.asking import cited as _cited

PASSAGES = {
    "eclampsia": (
        "Aspirin in pregnancy › Preventing pre-eclampsia",
        "Aspirin 75 mg once daily from 12 weeks of pregnancy prevents pre-eclampsia in women at high risk.",
    ),
    "kawasaki": (
        "Kawasaki disease › Diagnosis",
        "Kawasaki disease is diagnosed by a fever for 5 days with four of the five clinical criteria.",
    ),
    "angina": (
        "Angina › Persistent pain",
        "For persistent chest pain, the drug to give is glyceryl trinitrate 400 micrograms under the tongue.",
    ),
    "gout": (
        "Gout › Flares",
        "Colchicine 500 micrograms two to four times a day treats a gout flare in the big toe.",
    ),
}
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

ASPIRIN = "kawasaki disease immunoglobulin dose and how much aspirin"
HICCUPS = "persistent hiccups for 3 days, what drug can I give"
GOUT = "gout flare in the big toe, how much colchicine"
QUESTIONS = [ASPIRIN, HICCUPS, GOUT]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(tmp_path_factory.mktemp("home"), PASSAGES, IDS, QUESTIONS)


def test_a_drug_asked_after_a_condition_is_not_answered_with_its_dose_for_another(answers):
    end = answers[ASPIRIN]
    assert IDS["eclampsia"] not in _cited(end) and "75 mg" not in end.text, end.text
    assert "does not cover" in end.text


def test_a_treatment_asked_for_a_condition_no_card_names_is_not_answered(answers):
    end = answers[HICCUPS]
    assert not end.citations and "glyceryl" not in end.text.lower(), end.text
    assert "does not cover" in end.text


def test_a_drug_asked_after_a_condition_its_card_names_is_answered_from_that_card(answers):
    end = answers[GOUT]
    assert "Colchicine 500 micrograms" in end.text and _cited(end) == {IDS["gout"]}, end.text
