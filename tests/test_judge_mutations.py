"""A sentence changed in one place so that it means something else is not supported by the text it came from.

Each case is a reading that changing one word of a source sentence found the judge lacked
(``bench/bench_judge_invariants.py`` makes such changes on any text); written here in words of our own."""

from __future__ import annotations

import pytest

from hippo_tui.verification.offline_judge import judge_claim


@pytest.mark.parametrize(
    ("excerpt", "changed"),
    [
        # an age limit's side, written after its number
        (
            "Offer the yearly booster to adults aged 70 and over.",
            "Offer the yearly booster to adults aged 70 and under.",
        ),
        (
            "Screen children aged 5 years and under for the condition.",
            "Screen children aged 5 years and older for the condition.",
        ),
        ("Refer a mole of 6 mm or larger.", "Refer a mole of 6 mm or smaller."),
        # a length written against its unit
        (
            "The skin test is positive at 10mm or more of induration.",
            "The skin test is positive at 15mm or more of induration.",
        ),
        # a negation put in or left out of a short piece, too short to be matched by its words alone
        (
            "The tablet is taken twice daily, with or without food.",
            "The tablet is not taken twice daily, with or without food.",
        ),
        ("The usual dose is 0.2 mg/kg.", "The usual dose is not 0.2 mg/kg."),
        ("Drug Q acts quickly and is given with meals.", "Drug Q acts quickly and is not given with meals."),
        ("Do not give drug Q to children under 2.", "Give drug Q to children under 2."),
        ("Do not give it to children under 2.", "Give it to children under 2."),
        ("Give it to children under 2.", "Never give it to children under 2."),
        (
            "When an antibiotic is needed: drug R 250 mg twice a day.",
            "When an antibiotic is not needed: drug R 250 mg twice a day.",
        ),
        # one word for its opposite
        ("Check the level 6 hours after the dose.", "Check the level 6 hours before the dose."),
        (
            "Refer if the marker stays above the reference range.",
            "Refer if the marker stays below the reference range.",
        ),
        (
            "Give the second dose when at least two of these apply.",
            "Give the second dose when at most two of these apply.",
        ),
        (
            "Drug S has a shorter action than drug T, so watch closely.",
            "Drug S has a longer action than drug T, so watch closely.",
        ),
        # ... the first or the last word, before the words matched in order
        (
            "After the first week, most people can go back to work.",
            "Before the first week, most people can go back to work.",
        ),
        ("Refer as described in the table below.", "Refer as described in the table above."),
        # ... where the sentence has the word elsewhere too: compared in the very place it was put
        (
            "Older pupils (aged 12 or older) can carry their own inhaler.",
            "Younger pupils (aged 12 or older) can carry their own inhaler.",
        ),
        (
            "A care plan may be spoken for a day patient, but must be written for an inpatient.",
            "A care plan must be spoken for a day patient, but must be written for an inpatient.",
        ),
        # another group of people, where the sentence names the first elsewhere, or as its first word
        (
            "Not all children living with an adult who has the infection will catch it.",
            "Not all adults living with an adult who has the infection will catch it.",
        ),
        (
            "Children weighing 25 to 30 kg may also take the adult tablets: 2 in the morning.",
            "Adults weighing 25 to 30 kg may also take the adult tablets: 2 in the morning.",
        ),
        # firmer than the source
        (
            "Drug U can be considered for women who decline surgery.",
            "Drug U must be considered for women who decline surgery.",
        ),
    ],
)
def test_a_sentence_changed_in_meaning_is_not_supported_by_its_source(excerpt: str, changed: str):
    assert judge_claim(excerpt, excerpt).supported
    assert not judge_claim(changed, excerpt).supported


@pytest.mark.parametrize(
    ("excerpt", "same"),
    [
        # the sides of a comparison given the other way round
        ("Citalopram causes less nausea than sertraline.", "Sertraline causes more nausea than citalopram."),
        # a length in another unit
        ("Refer a wound deeper than 10 mm.", "Refer a wound deeper than 1 cm."),
        # "without delay" is at once, not a negation
        ("Start drug C as soon as possible after the bite.", "Start drug C without delay after the bite."),
        # "No." before a number is no negation, where a claim's sentence breaks after it
        (
            "Only an officer registered under the Act (Act No. 5 of 1999) may inspect the premises.",
            "Only an officer registered under the Act (Act No. 5 of 1999) may inspect the premises.",
        ),
        # what a claim adds after the sentence it repeats is not part of the repeat
        (
            "Stop drug D at once if a rash appears.",
            "Stop drug D at once if a rash appears, and do not restart it.",
        ),
    ],
)
def test_a_sentence_said_again_in_other_order_or_words_keeps_its_sense(excerpt: str, same: str):
    verdict = judge_claim(same, excerpt)
    assert verdict.outcome != "contradicted", verdict.reason


def test_the_reason_quotes_the_sentence_made_inert():
    # The excerpt is a document's text: a terminal escape sequence in it is not passed on to the screen.
    verdict = judge_claim("Give it to children under 2.", "Do not give it to \x1b[2Jchildren under 2.")
    assert verdict.outcome == "contradicted" and verdict.element == "negation"
    assert "\x1b" not in verdict.reason and "Do not give it to" in verdict.reason
