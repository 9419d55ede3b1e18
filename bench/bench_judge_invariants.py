"""What the offline judge must say of text whose answer is known without labelling any pair: invariants.

A set of labelled pairs is used up once it is tuned on; these checks need no labels, so they can be run on any
text, a real clinic's included, as often as wanted, and what they find is a misreading, not a taste:

- quote: every sentence of an excerpt is supported by the excerpt (an offline answer quotes its sources);
- joined: every two neighbouring sentences, as one claim of two sentences and joined by a semicolon;
- swapped: a sentence with one lexicon phrase put in its equivalent's place (an abbreviation and what it stands
  for, a lay term and the clinical one, two synonyms) is still supported. Some entries are one-way (a plain
  word for a narrower one: "pregnant" for "antenatal"), so this count is not expected to reach 0.

    python bench/bench_judge_invariants.py [--pairs tests/data/judge_pairs.jsonl] [--kb hippo.db] [--limit N]
        [--show N]

``--kb`` reads the active passages of a knowledge base (a data folder's ``hippo.db``) instead of the pairs'
excerpts: a real corpus, measured locally.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sqlite3
import sys
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hippo_tui.verification.offline_judge import _TO_THE_JUDGE, judge_claim
from hippo_tui.verification.reading import sentences

ROOT = Path(__file__).resolve().parent.parent


def _excerpts(args: argparse.Namespace) -> list[str]:
    if args.kb:
        with sqlite3.connect(f"file:{args.kb}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT excerpt FROM sources WHERE status = 'active' LIMIT ?", (args.limit,))
            return [r[0] for r in rows]
    lines = args.pairs.read_text(encoding="utf-8").splitlines()
    return sorted({json.loads(line)["excerpt"] for line in lines if line.strip()})[: args.limit]


def _said(excerpt: str) -> list[str]:
    return [s for s in sentences(excerpt) if not _TO_THE_JUDGE.search(s) and 3 <= len(s.split()) <= 60]


def _swaps() -> list[tuple[re.Pattern[str], str]]:
    """Each lexicon phrase with an equivalent to put in its place, both ways."""
    lex = tomllib.loads((ROOT / "hippo_tui" / "data" / "lexicon.toml").read_text(encoding="utf-8"))
    pairs = [
        (k, v) for t in ("abbreviations", "terms") for k, v in lex[t].items() if isinstance(v, str) and k != v
    ]
    pairs += [(a, b) for g in lex["synonyms"]["groups"] for a, b in itertools.permutations(g, 2)]
    both = {(a, b) for k, v in pairs for a, b in ((k, v), (v, k)) if len(a) > 1}
    return [(re.compile(rf"\b{re.escape(a)}\b", re.I), b) for a, b in sorted(both)]


# One class's drugs, each standing in for another ("a drug swapped for another of its class").
_SIBLINGS = [
    g.split()
    for g in (
        "atorvastatin simvastatin rosuvastatin pravastatin",
        "ramipril lisinopril enalapril perindopril",
        "losartan candesartan valsartan irbesartan",
        "bisoprolol atenolol propranolol metoprolol",
        "omeprazole lansoprazole esomeprazole pantoprazole",
        "amoxicillin flucloxacillin ampicillin",
        "clarithromycin azithromycin erythromycin",
        "doxycycline lymecycline minocycline",
        "cefalexin ceftriaxone cefuroxime cefotaxime",
        "ciprofloxacin levofloxacin ofloxacin",
        "amlodipine nifedipine felodipine",
        "enoxaparin dalteparin tinzaparin",
        "sertraline citalopram fluoxetine",
        "ibuprofen naproxen diclofenac",
        "apixaban rivaroxaban edoxaban dabigatran",
        "prednisolone hydrocortisone dexamethasone",
        "morphine oxycodone codeine tramadol",
    )
]
_OPPOSITES = [
    ("more than", "less than"),
    ("at least", "at most"),
    ("above", "below"),
    ("over", "under"),
    ("higher", "lower"),
    ("increases", "decreases"),
    ("before", "after"),
    ("longer", "shorter"),
    ("older", "younger"),
    ("greater", "smaller"),
    ("faster", "slower"),
    ("rises", "falls"),
]
_FLIPS = [
    *(p for a, b in _OPPOSITES for p in ((a, b), (b, a))),
    ("fewer than", "more than"),
    ("reduces", "increases"),
]
_POPULATIONS = [("adults", "children"), ("children", "adults"), ("women", "men"), ("men", "women")]
_FIRMER = [(r"\b(?:may|can|could) be\b", "must be"), (r"\bshould be considered\b", "must be given")]
_NEGATED = re.compile(r"\b(do not|does not|should not|must not|is not|are not|cannot|never)\b")
_UNNEGATED = {"do not": "", "does not": "", "should not": "should", "must not": "must", "is not": "is"}
_UNNEGATED |= {"are not": "are", "cannot": "can", "never": "always"}


def _negation_turned(s: str) -> str | None:
    m = _NEGATED.search(s)
    if m:
        return re.sub(r"\s+", " ", s[: m.start()] + _UNNEGATED[m.group(1)] + s[m.end() :]).strip()
    m = re.search(r"\b(should|must|is|are|can|will)\b", s)
    return s[: m.end()] + " not" + s[m.end() :] if m else None


def _first(s: str, pairs: list[tuple[str, str]], absent: str = "") -> str | None:
    """``s`` with the first of ``pairs`` found put as its other (the other not already in ``absent``)."""
    for a, b in pairs:
        m = re.search(rf"\b{a}\b", s, re.I)
        if m and b not in absent:
            return s[: m.start()] + b + s[m.end() :]
    return None


def _drug_swapped(s: str, low: str) -> str | None:
    for word in re.findall(r"[a-z]+", s.lower()):
        group = next((g for g in _SIBLINGS if word in g), None)
        other = next((o for o in group if o not in low), None) if group else None
        if other:
            return re.sub(rf"\b{word}\b", other, s, count=1, flags=re.I)
    return None


def _number_changed(s: str, excerpt: str) -> str | None:
    m = re.search(r"(?<![\w.])(\d+)(?![\w.]*\d)(?!\s*(?:%|/))", s)
    if m is None:
        return None
    n = int(m.group(1))
    other = next((str(k) for k in (n * 3, n + 7, n * 5 + 1) if str(k) not in excerpt), None)
    return s[: m.start()] + other + s[m.end() :] if other else None


def changed(s: str, excerpt: str) -> Iterator[str]:
    """``s`` changed in one place each way it can be, so that it says something else."""
    low = excerpt.lower()
    changes = [
        _negation_turned(s),
        _first(s, _FLIPS),
        _number_changed(s, excerpt),
        _first(s, _POPULATIONS, low),
        next((re.sub(p, r, s, count=1) for p, r in _FIRMER if re.search(p, s)), None),
        _drug_swapped(s, low),
    ]
    yield from (c for c in changes if c and c != s)


def claims(excerpts: list[str]) -> Iterator[tuple[str, str, str]]:
    """(invariant, claim, excerpt) for every check."""
    swaps = _swaps()
    for excerpt in excerpts:
        said = _said(excerpt)
        for s in said:
            yield "quote", s, excerpt
            for c in changed(s, excerpt):
                yield "changed", c, excerpt
            for pattern, other in swaps:
                m = pattern.search(s)
                if m:
                    yield "swapped", s[: m.start()] + other + s[m.end() :], s
        for a, b in itertools.pairwise(said):
            yield "joined", f"{a} {b}", excerpt
            yield "joined", f"{a.rstrip('. ')}; {b[0].lower()}{b[1:]}", excerpt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=ROOT / "tests" / "data" / "judge_pairs.jsonl")
    parser.add_argument("--kb", type=Path, help="a knowledge base's hippo.db to read passages from")
    parser.add_argument("--limit", type=int, default=3000, help="excerpts read at most")
    parser.add_argument("--show", type=int, default=10, help="failures shown per invariant")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    failed: dict[str, list[str]] = {"quote": [], "joined": [], "swapped": [], "changed": []}
    for name, claim, excerpt in claims(_excerpts(args)):
        total[name] += 1
        verdict = judge_claim(claim, excerpt)
        if verdict.supported == (name == "changed"):
            failed[name].append(
                f"{verdict.outcome} ({verdict.element}): {verdict.reason[:90]} | {claim[:140]}"
            )
    for name, wrong in failed.items():
        said = "supported" if name == "changed" else "not supported"
        print(f"{name:8} {len(wrong):5} of {total[name]:6} {said}")
        for line in wrong[: args.show]:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
