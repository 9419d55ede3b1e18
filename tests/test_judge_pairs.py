"""The labelled judge sets: the offline judge meets its targets on the development set (tuned on) and on the
test set (tests/data/judge_pairs_test.jsonl, written before this judge by someone who had not read its code,
never tuned on), so a regression fails the suite. bench/bench_judge.py prints the same numbers per kind."""

from __future__ import annotations

import re
from functools import cache

import pytest

from bench.bench_judge import DEV, STRICT, TEST, TEST2, TEST3, TEST4, TEST5, TEST6
from hippo_tui.evaluation.judging import load_pairs
from hippo_tui.verification.offline_judge import Verdict, judge_claim
from hippo_tui.verification.quantities import WORD_NUMBERS
from hippo_tui.verification.veto import check_claim

PAIRS = load_pairs(DEV)
TEST_PAIRS = load_pairs(TEST)
TEST2_PAIRS = load_pairs(TEST2)
TEST3_PAIRS = load_pairs(TEST3)
TEST4_PAIRS = load_pairs(TEST4)
SETS = {
    "dev": PAIRS,
    "test": TEST_PAIRS,
    "test2": TEST2_PAIRS,
    "test3": TEST3_PAIRS,
    "test4": TEST4_PAIRS,
    "test5": load_pairs(TEST5),
    "test6": load_pairs(TEST6),
}


@cache
def verdicts(name: str) -> dict[str, Verdict]:
    """The offline judge's verdict on each pair of a set, judged once for all the tests below that read it."""
    return {p.id: judge_claim(p.claim, p.excerpt) for p in SETS[name]}


def test_the_sets_are_whole_and_well_formed():
    assert (
        len(PAIRS) >= 150
        and len(TEST_PAIRS) >= 150
        and all(len(SETS[n]) >= 100 for n in ("test2", "test3", "test4", "test5", "test6"))
    )
    for pairs in SETS.values():
        assert len({p.id for p in pairs}) == len(pairs)
        assert 0.35 <= sum(p.grounded for p in pairs) / len(pairs) <= 0.65  # balanced
    claims = {p.claim for p in PAIRS}
    assert "Metformin should be stopped if the eGFR falls below 45." in claims


# Floors at what the judge measures today (dev 84% with round seven's 180 pairs, 88.6% without them; test 85%,
# test2 65%, test3 72%, test4 66%, test5 71%), so that a regression fails; the targets (test 90%, no false "grounded" on the strict kinds) are not met yet.
# test2, test3 and test4 are halves of sets written outside the project in rounds four to six (their other
# halves joined dev, which is why dev fell in rounds five and six): recall on wording never seen is what it lacks.
# test5 is a whole set written in round seven from general clinical knowledge, measured before any change.
# test6 is half of round nine's 240 (61.7% before any change; the other half, p9-…, joined dev at 56.7%).
# Round thirteen added 260 development pairs (r13-…, 59% right before any change for them; dev 81.6% with them).
# Round fifteen added 239 (r15-…, 64.6% right as written; a 240th, r15-166, was left out: its claim is a
# held-back test pair's, word for word, and tuning on it would tune on the test set).
# Round sixteen added 240 (r16-…, 62.9% right as written: 37 of 120 supported claims passed, 6 false grounded).
# Round seventeen added 239 (r17-…, 60.8% right as written: 36 of 120 supported claims passed, 10 false
# grounded; dev 78.9% with them). A 240th, r17-160, was left out: its claim is a held-back pair's, word for word.
# Round eighteen added 233 (r18-…, 63.3% right as written, of all 240: 37 of 120 supported claims passed, 5 false
# grounded; dev 79.1% with them). Seven were left out: their claims are close to held-back pairs' (the same
# words, or most of them with a like excerpt), and tuning on them would tune on the test sets.
# Round nineteen added 224 (r19-…, 62.9% right as written: 34 of 114 supported claims passed, 3 false grounded,
# 1 of a strict kind; dev 80.3% with them). Sixteen of the 240 written were left out by the same rule.
FLOORS = [
    ("dev", 0.79), ("test", 0.86), ("test2", 0.68), ("test3", 0.74), ("test4", 0.72), ("test5", 0.74),
    ("test6", 0.63),
]  # fmt: skip


@pytest.mark.parametrize(("name", "target"), FLOORS)
def test_the_offline_judge_is_right_often_enough(name: str, target: float):
    pairs, judged = SETS[name], verdicts(name)
    wrong = [p.id for p in pairs if judged[p.id].supported != p.grounded]
    assert 1 - len(wrong) / len(pairs) >= target, wrong


# The false "grounded" on the strict kinds known today; the target is none. A new one fails the suite.
KNOWN_FALSE_GROUNDED = {
    # r7-…: round seven's development pairs, written before any change for them (61% right, 15 false
    # grounded then): a drug the other sentence is about (r7-086, r7-117), "within 48 hours" taken as "only" (r7-171).
    "dev": {"x034", "x113", "x160", "x181", "c11", "n139", "r7-086", "r7-117", "r7-171", "p9-112", "p9-124"}
    # r14-…: round fourteen's, as written (61.7% right, 15 false grounded, 9 of a strict kind); still: a drug of a
    # list said of another (r14-015), all for some (r14-190), a threshold of the next group (r14-094, fixed in
    # round seventeen: "the second and third trimesters" are one piece), an
    # exception in the next sentence (r14-132), a frequency read as a count (r14-187). Fixed since: comparisons
    # turned round (r14-003, r14-006), a direction in a second sentence (r14-014), all for some (r14-030).
    | {"r14-015", "r14-187"}
    # r15-…: round fifteen's, as written (64.6% right, 10 false grounded, 3 of a strict kind). Fixed since, of
    # the older ones: all of a kind the excerpt narrows (r14-190), a medicine named as its class's exception
    # (r14-132); and a first line given to another medicine than the claim's (r15-041). In round seventeen: a
    # percentage matched to a score's bare "0 or 1" (r15-199).
    | {"r15-180"}
    # r16-…: round sixteen's, as written (62.9% right, 6 false grounded, 3 of a strict kind). Fixed since: a
    # contrast's "it" (r16-049).
    | {"r16-052", "r16-072"}
    # r17-…: round seventeen's, as written (60.8% right, 10 false grounded, 4 of a strict kind). Fixed since: a
    # dose given IM "when IV access is not possible" (r17-072), "as effective as" against "more effective than"
    # (r17-224), a score's advice from another row (r17-111), "with meals" against "best absorbed before food
    # … can be taken with food if" (r17-012: a condition read in every sentence about the claim).
    # r18-…: round eighteen's, as written (63.3% right, 5 false grounded, 2 of a strict kind).
    | {"r18-018", "r18-090"},
    # r19-…: round nineteen's, as written (62.9% right, 3 false grounded, 1 of a strict kind). Fixed since: a
    # label opening a sentence says what its numbers are for (r19-202).
    "test": 1,
    "test2": 0,
    "test3": 1,
    "test4": 0,
    "test5": 0,
    "test6": 1,
}


@pytest.mark.parametrize("name", list(SETS))
def test_no_new_wrong_number_drug_population_or_negation_is_called_grounded(name: str):
    pairs, judged = SETS[name], verdicts(name)
    passed = {p.id for p in pairs if p.kind in STRICT and not p.grounded and judged[p.id].supported}
    known = KNOWN_FALSE_GROUNDED[name]
    # The test set's pairs are not named here: its misses are counted, never tuned on one by one.
    assert passed <= known if isinstance(known, set) else len(passed) <= known, sorted(passed)


def test_the_veto_alone_spares_the_supported_claims_of_the_development_set():
    # Over a judge that says "grounded" to everything (a model waving things through). The third round's
    # cases it still vetoes are known: "before" against "after starting" in another part of the sentence.
    vetoed = {p.id for p in PAIRS if p.grounded and check_claim(p.claim, p.excerpt) is not None}
    # Still vetoed, by the round they came in (fixed ones are taken off the list, so that none comes back):
    # "300 mg … continued daily" (n055), "usually unnecessary" read as no negation (n217); "should not eat" for
    # "fast" (e058).
    known = {"x076", "n055", "n217", "e058"}
    # "no cardiovascular disease … should not" read as a double negative (k002), "less than 50 kg" taken for
    # the sentence saying "paracetamol … 50 kg or more" (k012), "20%" against "more than 30% … smaller rises"
    # (k030).
    known |= {"k002", "k012", "k030"}
    # Round seven's (r7-…), after this round's fixes: numbers reached by arithmetic (one-sixth of 60 mg, 1 L
    # over 8 hours as 125 mL an hour, 1 in 6 as 16%, "twice the risk" as "half the risk"), a weight band's
    # rival row (r7-010), "until the 12th week" in another clause (r7-062), and negations worded apart ("as
    # long as there are no signs", "even if no other reason", "only within a programme", "stopped" against
    # "do not give … receiving").
    known |= {"r7-010", "r7-022", "r7-042", "r7-062", "r7-080", "r7-082", "r7-091", "r7-104"}
    known |= {"r7-178"}
    # Round nine's (p9-…), as written, before any change for them.
    known |= {"p9-001", "p9-025", "p9-053", "p9-069", "p9-149"}
    # Round thirteen's (r13-…), as written, before any change for them: "non-steroidal" and "non-valvular" read
    # as negations (r13-110, r13-126; reading every "non-" word as a term cost the test set a pair), "can't be
    # explained" against "unexplained", "not eating" against "to avoid eating", a time in "one" as a count, a
    # schedule's doses (0, 1 and 6 months). Fixed since: "10 micrograms of vitamin D a day" read as a day's
    # duration (r13-157, r13-222), "at intervals of 2–3 minutes" (r13-055), "500 mg–1 g" (r13-083), and
    # "non-pregnant", a group of people the population check reads (r13-146), "do not use it more than 3 hours
    # after injury" as a limit (r13-116).
    known |= {"r13-011", "r13-031", "r13-039", "r13-091", "r13-110"}
    known |= {"r13-121", "r13-126", "r13-161", "r13-187", "r13-191"}
    known |= {"r13-230"}
    # Round fourteen's (r14-…), after this round's fixes for them (one patient's reading inside a threshold, a
    # product's strength said apart from its dose, a grade naming a row, "a second dose" going on): sums over
    # phases (2 + 4 months as six), mL of a 1 in 1000 solution as micrograms, "not controlled" steps, a line
    # "joining" two numbers, a loading dose and the dose "thereafter", alternatives sharing a course.
    known |= {"r14-024", "r14-040", "r14-071", "r14-072", "r14-077", "r14-109", "r14-112"}
    known |= {"r14-146", "r14-161", "r14-173", "r14-176", "r14-182", "r14-219", "r14-236"}
    # Round fifteen's (r15-…): 21 of its 124 supported claims as written; after this round's fixes (a final "e"
    # of a verb's stem, "falls into a group", "daily life", a whole-number threshold, "not pregnant", "half to
    # three-quarters", "not controlled"): "three weekly" injections, a dose worked out for a weight (the judge
    # does that sum, the veto alone does not), a row of a table, "within one area", "for the first year" (read
    # as a year only after "during"). x190 is vetoed now that "activates" and "activated" are one word: the
    # claim's two pieces, one with "avoided", are read against one sentence (it was not established before:
    # "enzyme").
    known |= {"r15-009", "r15-037", "r15-053", "r15-075", "r15-091"}
    known |= {"r15-133", "r15-140", "r15-154", "r15-169", "r15-213", "r15-238", "x190"}
    # Round sixteen's (r16-…): 17 of its 120 supported claims as written. Fixed since: "should not be used for
    # more than five days" as a limit (r16-157), "under 18s" as people (r16-234), "the first one" and "is one
    # option" as no number (r16-107, r16-129), "in their 70s" as an age (r16-071), left: "non-sensitised" read as a
    # negation, a list's first items without the "contraindicated" its last one carries (r16-089; lending it
    # was tried and dropped: it read "human dignity … are denied to those who have no …" as a denial), "stopped"
    # matched to the sentence's "offer", sums (1 g four times a day as 4 g), "except" and "unless".
    known |= {"r16-029", "r16-056", "r16-078", "r16-089", "r16-125"}
    known |= {"r16-148", "r16-172", "r16-217", "r16-237"}
    # Round seventeen's (r17-…): 20 of its 120 supported claims as written. Fixed since: "3 years 4 months" as
    # 40 months (r17-052), "a day or two" (r17-037), "x 3/7" (r17-103), "the two" as both (r17-026), "annual"
    # (r17-101, and k120 of round six), "over 24 hours" as a day (r17-171). Left: "can't take" against
    # "contraindicated or not tolerated", sums (70 kg at 25–30 mL/kg, 0.5 mL of 1 mg/mL), "max. 4 doses" as
    # times a day, a list's subject cut from its comparison (r17-034), an age within a row's band (r17-208).
    known |= {"r17-002", "r17-003", "r17-017", "r17-031", "r17-034", "r17-041", "r17-042"}
    known |= {"r17-106", "r17-125", "r17-130", "r17-172", "r17-208", "r17-234"}
    # Round eighteen's (r18-…): 22 of its 120 supported claims as written. Fixed since: an age band from one
    # unit to another ("3 months–12 years"), "from 2 up to 17 years", "not to drink
    # more than 14 units" as a limit, "tds–qds" as three or four times a day, "within the previous hour". (r17-093
    # has been spared since round seventeen read "per dose".) Older ones spared since: numbers the claim puts
    # together read where the excerpt gives them together, not with a plain dose of another sentence (r13-197,
    # r16-210). An opening phrase ("In neonates under a week old, …") introduces one piece, not every piece
    # after it, so the numbers of each are read where the excerpt gives them (r13-100, r14-144, r15-093, r16-011,
    # r16-012, r18-009, r18-232). A sentence going on about the one before ("This should start before
    # conception and continue until 12 weeks") lends it its numbers whichever clause they stand in (r15-163).
    known |= {"r18-025", "r18-060", "r18-061", "r18-068", "r18-074", "r18-085", "r18-103"}
    known |= {"r18-116", "r18-119", "r18-126", "r18-132", "r18-139", "r18-152", "r18-155"}
    known |= {"r18-240"}
    # Round nineteen's (r19-…): 14 of its 114 supported claims as written.
    known |= {"r19-003", "r19-043", "r19-053", "r19-057", "r19-062", "r19-066", "r19-074", "r19-088"}
    known |= {"r19-106", "r19-120", "r19-148", "r19-173", "r19-187", "r19-235"}
    # Since then: a label opening a sentence ("Major trauma …: tranexamic acid 1 g IV over 10 min") lends its
    # words to the numbers after it, so its infusion time outranks "within 3 hours of injury" (r19-075; its
    # verdict was and is "not established", on "started").
    known |= {"r19-075"}
    assert vetoed <= known, sorted(vetoed)


_QUOTED = re.compile(r"“([^”]+)”")
_ALOUD = (("≥", " at least "), ("≤", " at most "), (">", " more than "), ("<", " less than "))
_MISSING_NUMBER = re.compile(r"claim says (.+?); the excerpt gives no such number")


def _numbers(text: str) -> set[float]:
    t = text.lower().replace(",", "")
    found = {float(x) for x in re.findall(r"\d+(?:\.\d+)?", t)}
    return found | {v for w, v in WORD_NUMBERS.items() if re.search(rf"\b{w}\b", t)}


@pytest.mark.parametrize("name", ["dev", "test"])
def test_every_reason_is_true(name: str):
    """Each reason quotes only what is there, and a number it says is missing is missing."""
    pairs, judged = SETS[name], verdicts(name)
    false = []
    for p in pairs:
        v = judged[p.id]
        said = f"{p.claim.lower()} {p.excerpt.lower()}"
        said += " " + said.replace("-", "")  # "COVID-19" is quoted as read, "covid19"
        aloud = said  # "≥6.5" is quoted as read aloud, "at least 6.5"
        for sign, words in _ALOUD:
            aloud = aloud.replace(sign, words)
        said += " " + aloud
        if v.supported:
            assert v.reason == "" and v.element is None
            continue
        assert v.reason and v.element, p.id
        for piece in _QUOTED.findall(v.reason):
            words = re.findall(r"[a-z0-9]+", piece.rstrip("…").lower())
            if not all(w in said or w.rstrip("s") in said for w in words):
                false.append((p.id, v.reason))
        missing = _MISSING_NUMBER.search(v.reason)
        if missing:
            values = _numbers(missing.group(1)) - {1.0}
            if values and values <= _numbers(p.excerpt):
                false.append((p.id, v.reason))
    assert false == []
