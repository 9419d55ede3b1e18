"""The judge reads everyday paraphrase through WordNet's synonyms and derivations (``verification/thesaurus``),
and never through them for a word that has a check of its own."""

from __future__ import annotations

import pytest

from hippo_tui.verification import thesaurus
from hippo_tui.verification.lexicon import stem
from hippo_tui.verification.offline_judge import judge_claim


def test_the_stored_stems_are_the_stemmers_of_today():
    # The table is searched by stem: a stemmer change must rebuild it (tools/build_thesaurus.py), or every
    # word whose stem moved would silently lose its synonyms.
    rows = [line.split("\t") for line in thesaurus._text().splitlines()]  # (stem, lemma, words)
    entries = [(r[1], r[0]) for r in rows if len(r) == 3]
    assert len(entries) > 40_000
    wrong = [(lemma, kept) for lemma, kept in entries if " ".join(map(stem, lemma.split())) != kept]
    assert not wrong[:10]


def test_every_stored_stem_is_found_from_the_first_row_to_the_last():
    # The look-up bisects the sorted rows; a row it cannot reach is a word whose synonyms silently vanish.
    by_stem: dict[str, list[list[str]]] = {}
    for line in thesaurus._text().splitlines():
        if "\t" in line:
            by_stem.setdefault(line.split("\t")[0], []).append(line.split("\t"))
    stems = sorted(by_stem)
    for key in [stems[0], stems[-1], *stems[:: len(stems) // 500]]:
        assert thesaurus._lines(key) == by_stem[key]


def test_a_look_up_finds_synonyms_and_derivations_in_frequent_senses():
    assert "stop" in thesaurus.related("cessation")  # a derivation ("cease") and its synonyms
    assert "abstain" in thesaurus.related("refrain")
    assert "examiner" in thesaurus.related("inspected")  # an inflected form finds its lemma's entry
    assert thesaurus.related("qwzx") == ()


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        (
            "Patients should refrain from alcohol while taking metronidazole.",
            "Patients should abstain from alcohol while taking metronidazole.",
        ),
        ("The wound should be inspected daily.", "The wound should be examined daily."),
        (
            "Cessation of smoking reduces the risk of ulcer recurrence.",
            "Stopping smoking reduces the risk of ulcer recurrence.",
        ),
    ],
)
def test_everyday_paraphrase_the_lexicon_does_not_list_is_supported(claim: str, excerpt: str):
    assert judge_claim(claim, excerpt).outcome == "supported"


def test_a_synonym_never_stands_in_for_a_line_of_therapy():
    # WordNet says "initial" is "first" (so does the lexicon now); the line of therapy has its own check, and
    # this excerpt gives montelukast the add-on line.
    verdict = judge_claim(
        "Montelukast is the initial maintenance therapy for asthma in adults.",
        "Adults with asthma: offer a low-dose ICS as first-line maintenance therapy; offer montelukast as "
        "add-on therapy.",
    )
    assert verdict.outcome != "supported"
    assert verdict.element == "line of therapy" and "another treatment" in verdict.reason


def test_a_synonym_never_stands_in_for_a_direction():
    verdict = judge_claim(
        "The dosing interval of gentamicin should be shortened in renal impairment.",
        "In renal impairment, extend the dosing interval of gentamicin.",
    )
    assert verdict.outcome != "supported"


def test_what_a_label_heads_is_said_of_it():
    # "Ibuprofen 200 mg tablets: do not take more than 6" negates the taking, as the claim does.
    verdict = judge_claim(
        "Do not take more than 6 ibuprofen 200 mg tablets in 24 hours.",
        "Ibuprofen 200 mg tablets: do not take more than 6 tablets in 24 hours.",
    )
    assert verdict.outcome == "supported", verdict.reason
    # and the label's own condition does not negate the statement under it
    verdict = judge_claim(
        "When doxycycline is contraindicated, azithromycin 1 g orally as one dose is the alternative.",
        "Alternative if doxycycline is contraindicated: azithromycin 1 g orally as one dose.",
    )
    assert verdict.outcome != "contradicted", verdict.reason


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        (
            "Guidance mentions that clopidogrel is the alternative for people with aspirin hypersensitivity "
            "after a TIA.",
            "Clopidogrel is the alternative for people with aspirin hypersensitivity after a TIA.",
        ),
        (
            "Evidence suggests that exercise therapy reduces knee pain in osteoarthritis.",
            "Exercise therapy reduces knee pain in osteoarthritis.",
        ),
    ],
)
def test_a_word_of_saying_the_excerpt_does_without_is_no_gap(claim: str, excerpt: str):
    assert thesaurus.is_light("mentions") and thesaurus.is_light("evidence")
    assert judge_claim(claim, excerpt).outcome == "supported"


@pytest.mark.parametrize(
    ("claim", "excerpt", "word"),
    [
        # a verdict is never light: "prevents" says more than "reduces"
        (
            "Regular handwashing prevents norovirus outbreaks in care homes.",
            "Regular handwashing reduces norovirus outbreaks in care homes.",
            "prevents",
        ),
        # a symptom is a thing the excerpt must say
        (
            "Exercise therapy reduces knee pain and swelling in osteoarthritis.",
            "Exercise therapy reduces knee pain in osteoarthritis.",
            "swelling",
        ),
        # light words alone, with too little of the claim found, are not the excerpt's point
        (
            "Evidence suggests discussing information about statins.",
            "Statins lower cholesterol.",
            "evidence",
        ),
    ],
)
def test_a_missing_word_that_says_something_still_decides(claim: str, excerpt: str, word: str):
    assert not thesaurus.is_light("prevents") and not thesaurus.is_light("swelling")
    verdict = judge_claim(claim, excerpt)
    assert verdict.outcome != "supported"
    assert word in verdict.reason.lower()
