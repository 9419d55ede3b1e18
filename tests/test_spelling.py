"""A typo in a question is read as the word the sources spell; a real word the sources lack is never turned
into another one."""

from __future__ import annotations

import pytest

from hippo_tui.backends.extractive import Context, answer, content_words, render
from hippo_tui.backends.spelling import corrected

SOURCES = [
    "Nitrofurantoin 100 mg twice daily for 3 days. Avoid at term.",
    "Prednisolone for Bell's palsy: a steroid within 72 hours. Warfarin: check the INR.",
    "Hypothyroidism: levothyroxine. Arthritis: paracetamol first. Sickle cell crisis: analgesia.",
    "Scabies in adults and children: apply permethrin 5% cream to the whole body.",
    "Olecranon fracture: refer for fixation if displaced. Scorpion sting: observe for 12 hours.",
]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("nitrofurantion in pregnancy", "nitrofurantoin in pregnancy"),  # two letters swapped
        ("steriod for bells palsey", "steroid for bells palsy"),  # a swap; a letter added
        ("warfrin and the INR", "warfarin and the INR"),  # a letter left out
        ("sickel cell crisis", "sickle cell crisis"),
        # a stemmer of its own took "scabis" for a form of "scabies", which the answerer never matches
        ("scabis in a 3 yr old", "scabies in a 3 yr old"),
        ("olecrenon fracture", "olecranon fracture"),  # one vowel typed for another
        ("scorpian sting", "scorpion sting"),
    ],
)
def test_a_slip_is_read_as_the_word_the_sources_use(typed: str, read: str):
    assert corrected(typed, SOURCES, content_words) == read


@pytest.mark.parametrize(
    "question",
    [
        "How is hyperthyroidism treated?",  # two letters from a source's word: another disease
        "Prednisolone dose for giant cell arteritis",  # one letter changed: another disease
        "Who should get the shingles vaccine?",
        "Is a stent needed?",  # short words are too easily another word
        "Levothyroxine when the steroid is stopped",  # known words, and forms of them, stay
    ],
)
def test_a_word_the_sources_lack_is_not_made_into_another(question: str):
    assert corrected(question, SOURCES, content_words) == question


def test_an_answer_reads_the_question_as_corrected():
    system = {
        "role": "system",
        "content": f'<source id="s1" title="UTI in pregnancy">\n{SOURCES[0]}\n</source>',
    }
    ctx = Context.from_messages([system, {"role": "user", "content": "nitrofurantion dose?"}])
    assert ctx.question == "nitrofurantoin dose?"


def test_a_typo_of_a_word_with_an_ending_is_answered_from_its_card():
    system = {"role": "system", "content": f'<source id="s1" title="Scabies">\n{SOURCES[3]}\n</source>'}
    reply = answer([system, {"role": "user", "content": "scabis in a 3 yr old, wat cream do i use"}])
    assert "permethrin" in render(reply)


def test_a_vowel_typed_for_another_is_answered_from_its_card():
    system = {
        "role": "system",
        "content": f'<source id="s1" title="Elbow injuries">\n{SOURCES[4]}\n</source>',
    }
    reply = render(answer([system, {"role": "user", "content": "olecrenon fracture - when to refer?"}]))
    assert "Olecranon fracture: refer for fixation" in reply
    assert "does not cover" not in reply
