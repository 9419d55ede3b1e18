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
    ],
)
def test_a_sentence_changed_in_meaning_is_not_supported_by_its_source(excerpt: str, changed: str):
    assert judge_claim(excerpt, excerpt).supported
    assert not judge_claim(changed, excerpt).supported
