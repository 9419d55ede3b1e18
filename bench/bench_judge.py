"""How well the grounding judges tell supported claims from unsupported ones: the development set against the
held-out test set, per kind, with the gap between them.

- tests/data/judge_pairs.jsonl: the development set, written for the project; the judge is tuned on it.
  Its last 180 pairs (ids r7-…) were written in round seven, for the kinds the held sets showed weak, by
  someone who had read neither the judge nor any pair: 61.1% right and 15 false grounded before any change.
- tests/data/judge_pairs_test.jsonl: the test set, written before this judge by someone who had not read its
  code, committed untouched and never tuned on: what the judge does on text it has never seen.
- tests/data/judge_pairs_test2.jsonl: a second test set, half of 240 pairs written outside the project in
  round four (the other half joined the development set); measured before any change made for them.
- tests/data/judge_pairs_test3.jsonl: a third, the same way in round five (240 pairs by someone who had read
  neither the judge nor any pair; alternate pairs of each kind joined the development set).
- tests/data/judge_pairs_test4.jsonl: a fourth, the same way in round six (240 pairs, 24 kinds of 10, half
  true: within each kind and verdict, alternate pairs went here and to the development set, ids k…/m…).
- tests/data/judge_pairs_test5.jsonl: a fifth, whole, round seven (207 pairs, 25 kinds, written from general
  clinical knowledge by someone who had read neither the judge nor any pair; measured before any change).
- tests/data/judge_pairs_test6.jsonl: a sixth, round nine (240 pairs, 24 kinds of 10, half true, by someone who
  had read neither the judge nor any pair): within each kind, alternate pairs went here and to the development
  set (ids p9-…). Before any change: 61.7% right, 8 false grounded here; 56.7%, 10 on the development half.

Judges, side by side (the same verdicts ``eval judge`` reports):

- baseline: word overlap, grounded when half the claim's words are in the excerpt (the naive judge);
- veto: the deterministic veto over a judge that calls everything grounded;
- offline: the offline judge as shipped (``offline_judge.judge_claim``: every element accounted for).

Columns: accuracy and false "grounded" (an unsupported claim passed: the error a reader cannot see).
Run: ``python bench/bench_judge.py`` (``--misses`` lists the test set's misses by kind, not its pairs).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from hippo_tui.evaluation.judging import JudgeReport, Pair, load_pairs, report
from hippo_tui.verification.offline_judge import supports
from hippo_tui.verification.veto import check_claim

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DEV, TEST = DATA / "judge_pairs.jsonl", DATA / "judge_pairs_test.jsonl"
TEST2, TEST3 = DATA / "judge_pairs_test2.jsonl", DATA / "judge_pairs_test3.jsonl"
TEST4, TEST5 = DATA / "judge_pairs_test4.jsonl", DATA / "judge_pairs_test5.jsonl"
TEST6 = DATA / "judge_pairs_test6.jsonl"
# Kinds on which a false "grounded" is a wrong number, direction, negation, drug, population or line shown
# as verified (the issue's list, in both sets' names).
STRICT = (
    "dose mismatch", "duration mismatch", "threshold mismatch", "direction", "negation", "comparator",
    "dose", "frequency", "duration", "threshold", "unit", "route", "timing", "drug", "population",
    "line of therapy", "number",
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")


def baseline(claim: str, excerpt: str) -> bool:
    words = set(_WORD.findall(claim.lower()))
    return bool(words) and len(words & set(_WORD.findall(excerpt.lower()))) / len(words) >= 0.5


JUDGES: dict[str, Callable[[str, str], bool]] = {
    "baseline": baseline,
    "veto": lambda claim, excerpt: check_claim(claim, excerpt) is None,
    "offline": supports,
}


def judged(pairs: list[Pair], judge: Callable[[str, str], bool], name: str) -> JudgeReport:
    return report(name, pairs, [judge(p.claim, p.excerpt) for p in pairs])


def _cell(r: JudgeReport, kind: str | None) -> str:
    if kind is None:
        return f"{r.accuracy:>7.1%} {r.false_grounded:>4}"
    t = r.by_kind.get(kind)
    return f"{t.right / t.total:>7.0%} {t.false_grounded:>4}" if t else f"{'-':>7} {'-':>4}"


def table(title: str, pairs: list[Pair]) -> str:
    results = {name: judged(pairs, judge, name) for name, judge in JUDGES.items()}
    head = f"{title} ({len(pairs)} pairs)".ljust(30) + "".join(f" {name:>12}" for name in JUDGES)
    lines = [head, f"{'kind':24} {'n':>5}" + " " * 1 + "".join(f" {'acc  f-gr':>12}" for _ in JUDGES)]
    for kind in sorted({p.kind for p in pairs}):
        n = results["offline"].by_kind[kind].total
        lines.append(f"{kind[:24]:24} {n:>5} " + "".join(f" {_cell(r, kind)}" for r in results.values()))
    lines.append(f"{'all':24} {len(pairs):>5} " + "".join(f" {_cell(r, None)}" for r in results.values()))
    strict = [sum(r.by_kind[k].false_grounded for k in STRICT if k in r.by_kind) for r in results.values()]
    lines.append(f"{'false grounded, strict':30}" + "".join(f" {n:>12}" for n in strict))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="count the test set's misses per kind")
    args = parser.parse_args(argv)
    dev, test = load_pairs(DEV), load_pairs(TEST) if TEST.exists() else []
    print(table("development", dev))
    if not test:
        return 0
    print()
    print(table("test (never tuned on)", test))
    later = {
        name: load_pairs(path)
        for name, path in (
            ("test2", TEST2),
            ("test3", TEST3),
            ("test4", TEST4),
            ("test5", TEST5),
            ("test6", TEST6),
        )
    }
    held = {"test": test, **later}
    for name in later:
        print()
        print(table(f"{name} (never tuned on)", held[name]))
    d = judged(dev, supports, "offline")
    gaps = []
    for name, pairs in held.items():
        r = judged(pairs, supports, "offline")
        gaps.append(f"{name} {r.accuracy:.1%} (gap {100 * (d.accuracy - r.accuracy):.1f} points)")
    print(f"\noffline judge: dev {d.accuracy:.1%}, " + ", ".join(gaps))
    t = judged(test, supports, "offline")
    if args.misses:
        for kind, tally in sorted(t.by_kind.items()):
            if tally.right < tally.total:
                print(f"  {kind}: {tally.total - tally.right} missed, {tally.false_grounded} false grounded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
