"""One side of a quality said where the excerpt's sentence says the other: contradicted, with both words in the
reason; the same quality said on both sides, or both sides in the claim, is left to the other checks."""

from __future__ import annotations

import pytest

from hippo_tui.verification.offline_judge import judge_claim
from hippo_tui.verification.opposites import opposite

FOLATE = (
    "Methotrexate is taken once a week, on the same day each week. "
    "Folic acid is prescribed on a different day of the week to reduce side effects."
)


@pytest.mark.parametrize(
    ("claim", "excerpt", "words"),
    [
        ("Folic acid is taken on the same day as methotrexate.", FOLATE, ("same", "different")),
        (
            "Apply the patch to the left side of the chest.",
            "Apply the patch to the right side of the chest.",
            ("left", "right"),
        ),
        (
            "Statins are offered for secondary prevention after a stroke.",
            "Offer a statin for primary prevention when the 10-year risk is 10% or more. Aspirin is not used.",
            ("secondary", "primary"),
        ),
    ],
)
def test_the_other_side_of_a_quality_is_contradicted(claim: str, excerpt: str, words: tuple[str, str]):
    verdict = judge_claim(claim, excerpt)
    assert verdict.outcome == "contradicted" and verdict.element == "opposite", verdict
    assert all(f"“{w}”" in verdict.reason for w in words)


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        ("Methotrexate is taken on the same day each week.", FOLATE),
        ("Folic acid is taken on a different day from methotrexate.", FOLATE),
        # Both sides in the claim: it compares them, which the excerpt's own words must bear out elsewhere.
        (
            "Check the blood pressure in the left and right arms.",
            "Check the blood pressure in both the right and left arms.",
        ),
    ],
)
def test_the_same_side_is_not_an_opposite(claim: str, excerpt: str):
    assert judge_claim(claim, excerpt).element != "opposite"


def test_a_claim_repeating_the_sentence_that_says_its_side_is_not_contradicted_by_another():
    # The sentence most about the claim says "same"; the claim repeats another that says "different".
    same = "NTM are cultured in the same way as TB bacilli, and differentiated by biochemical tests."
    different = (
        "It is important to tell NTM from TB bacilli because they require a different approach to care."
    )
    claim = f"Some biochemical tests take weeks to complete; {different[0].lower()}{different[1:]}"
    assert opposite(claim, same) == ("different", "same")
    assert opposite(claim, same, [different]) is None
    assert judge_claim(claim, f"Some biochemical tests take weeks to complete. {same} {different}").supported
