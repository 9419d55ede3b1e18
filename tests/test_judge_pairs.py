"""The labelled judge set: the offline judge and the veto meet their targets, so a regression fails the suite.

The pairs (tests/data/judge_pairs.jsonl) were written for the project: "dev" before the judge and the veto
were tuned, "holdout" after. bench/bench_judge.py prints the same numbers per kind, against a baseline.
"""

from __future__ import annotations

import pytest

from bench.bench_judge import STRICT, load
from hippo_tui.verification.offline_judge import supports
from hippo_tui.verification.veto import check_claim

PAIRS = load()
KINDS = {
    "verbatim",
    "paraphrase",
    "number-word paraphrase",
    "unit equivalence",
    *STRICT,  # a false "grounded" on these shows a wrong dose, duration, threshold, direction or negation
    "partial compound claim",
    "topical but unsupported",
    "unrelated",
    "prompt-injection excerpt",
}


def test_the_set_is_ours_whole_and_well_formed():
    assert len(PAIRS) >= 150
    assert {p["kind"] for p in PAIRS} == KINDS
    assert all(isinstance(p["label"], bool) and p["claim"] and p["excerpt"] for p in PAIRS)
    assert {p["split"] for p in PAIRS} == {"dev", "holdout"}
    assert sum(p["split"] == "holdout" for p in PAIRS) >= 40
    assert len({p["id"] for p in PAIRS}) == len(PAIRS)
    # The examples are in it.
    claims = {p["claim"] for p in PAIRS}
    assert "Metformin should be stopped if the eGFR falls below 45." in claims
    assert "Clarithromycin lowers the INR." in claims


@pytest.mark.parametrize("split", ["dev", "holdout"])
def test_the_offline_judge_is_right_at_least_92_percent_of_the_time(split: str):
    rows = [p for p in PAIRS if p["split"] == split]
    wrong = [p["id"] for p in rows if supports(p["claim"], p["excerpt"]) != p["label"]]
    assert 1 - len(wrong) / len(rows) >= 0.92, wrong


def test_no_wrong_number_direction_or_negation_is_called_grounded():
    passed = [
        p["id"]
        for p in PAIRS
        if p["kind"] in STRICT and not p["label"] and supports(p["claim"], p["excerpt"])
    ]
    assert passed == []


def test_the_veto_alone_catches_them_and_spares_every_supported_claim():
    # Over a judge that says "grounded" to everything (a model waving things through).
    missed = [
        p["id"]
        for p in PAIRS
        if p["kind"] in STRICT and not p["label"] and check_claim(p["claim"], p["excerpt"]) is None
    ]
    vetoed = [p["id"] for p in PAIRS if p["label"] and check_claim(p["claim"], p["excerpt"]) is not None]
    assert missed == [] and vetoed == []
