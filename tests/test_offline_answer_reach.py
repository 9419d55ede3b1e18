"""What the offline answerer answers that it used to leave "not covered", each a shape real questions showed,
in a small knowledge base of our own words: a card's own typo of the asked word ("primay"); a score named by
two names, one of them misspelt, that the card calls an index; the filler of a question ("his", "ones",
"ago"); a sex no card names; of two cards that cover a part alike, the one that says it in one sentence, unless the other is titled for
the age group asked about. And what it still does not answer: a named score no card names, criteria a card on
the condition does not give.

Every question runs through the real engine, as `hippo-tui ask` runs it.
"""

from __future__ import annotations

import pytest

from hippo_tui.events import EndEvent
from tests.support.asking import answers_over
from tests.support.asking import cited as _cited

PASSAGES = {
    "teeth": (
        "Dental injuries › Knocked-out teeth",
        "An avulsed tooth in primay dentition is not replanted: replanting harms the adult tooth beneath. "
        "An avulsed adult tooth is replanted at once, held by the crown.",
    ),
    "colitis": (
        "Proctitis › Assessing a flare",
        "Harrow and Wendell's severity index: a severe flare is six bloody stools a day with a fever. A mild "
        "flare is up to four stools a day, without blood.",
    ),
    "shingles": (
        "Shingles › Antivirals",
        "Aciclovir 800 mg five times a day for 7 days treats shingles when started within 72 hours of the rash.",
    ),
    "sah": (
        "Subarachnoid haemorrhage › Vasospasm and rebleeding",
        "Vasospasm after a subarachnoid haemorrhage is usually treated with nimodipine. Start nimodipine when "
        "the subarachnoid haemorrhage is confirmed: rebleeding is most likely in the first 24 hours.",
    ),
    "spasm": (
        "Neurosurgical follow-up › Arteries",
        "Vasospasm starts 4 to 14 days after the bleed.",
    ),
    "gout": (
        "Gout › Flares",
        "Colchicine 500 micrograms two to four times a day treats a gout flare in the big toe.",
    ),
    "copd": (
        "COPD: treating an exacerbation",
        "Offer an antibiotic only when there are signs of pneumonia; doxycycline 200 mg on the first day is a "
        "common first choice.",
    ),
    "pneumonia": (
        "Pneumonia in adults",
        "A low severity score means treatment at home; doxycycline 200 mg on the first day, then 100 mg daily.",
    ),
}
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

TOOTH = "child knocked out a baby tooth, should I put it back in"
INDEX = "harrow and wendal criteria for a severe flare of proctitis"
FILLER = "his shingles came on 2 days ago - is aciclovir the one to give"
UNNAMED = "harrow and baker score for a severe flare of proctitis"
SEX = "woman with a severe flare of gout"
CONDITION = "gout criteria for a flare in the big toe"
SPASM = "subarachnoid haemorrhage, when does vasospasm usually start"
ADULTS = "dose of doxycycline for pneumonia in adults"
QUESTIONS = [TOOTH, INDEX, FILLER, UNNAMED, SEX, CONDITION, SPASM, ADULTS]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(tmp_path_factory.mktemp("home"), PASSAGES, IDS, QUESTIONS)


def test_a_cards_own_typo_of_the_asked_word_is_that_word(answers):
    # "baby tooth" is "primary tooth"; the card wrote "primay": the answer is its line on primary teeth.
    end = answers[TOOTH]
    assert "is not replanted" in end.text and _cited(end) == {IDS["teeth"]}, end.text
    assert "does not cover" not in end.text


def test_a_score_of_two_names_is_named_by_either_and_may_be_called_an_index(answers):
    # "Wendal" is two slips from the card's "Wendell", never corrected; "Harrow" names the score all the same.
    end = answers[INDEX]
    assert "six bloody stools a day" in end.text and _cited(end) == {IDS["colitis"]}, end.text


def test_a_score_neither_of_whose_names_a_card_uses_is_not_answered(answers):
    end = answers[UNNAMED]
    assert not end.citations and "does not cover" in end.text, end.text


def test_criteria_a_card_on_the_condition_never_gives_are_not_answered_by_it(answers):
    # The gout card names gout, a flare and the big toe, but no criteria, score or index of its own.
    end = answers[CONDITION]
    assert not end.citations and "does not cover" in end.text, end.text


def test_the_filler_of_a_question_is_not_a_subject_the_cards_lack(answers):
    end = answers[FILLER]
    assert "Aciclovir 800 mg" in end.text and _cited(end) == {IDS["shingles"]}, end.text


def test_a_sex_no_card_names_is_no_subject_a_card_must_repeat(answers):
    # No card says "woman" or "man": the gout card is guidance for everyone.
    end = answers[SEX]
    assert "Colchicine 500 micrograms" in end.text and _cited(end) == {IDS["gout"]}, end.text


def test_of_two_cards_that_cover_a_part_alike_the_one_that_says_it_in_one_sentence_answers(answers):
    # Both cards name vasospasm, starting and a time; only one says when vasospasm starts.
    end = answers[SPASM]
    assert "4 to 14 days after the bleed" in end.text and IDS["spasm"] in _cited(end), end.text


def test_of_two_cards_that_cover_a_part_alike_the_one_for_the_age_group_asked_about_answers(answers):
    # The COPD card says the drug, its dose and pneumonia in one sentence; the card titled for adults with
    # pneumonia is the one on the subject.
    end = answers[ADULTS]
    assert "then 100 mg daily" in end.text and _cited(end) == {IDS["pneumonia"]}, end.text
