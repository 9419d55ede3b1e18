"""How well the grounding judges tell supported claims from unsupported ones, on our labelled pairs.

tests/data/judge_pairs.jsonl holds claim–excerpt pairs written for the project, each with a ``kind`` and a
label (grounded or not); ``split`` is "dev" (written before the judge and the veto were tuned) or "holdout"
(written after tuning: round 1, whose misses then led to a few general fixes, and round 2, written after
all of them). Four judges, side by side, per kind:

- baseline: word overlap — grounded when half the claim's words are in the excerpt;
- lexical: the offline judge's word match alone (``extractive.matches``: paraphrase recall, no number checks);
- veto: the deterministic veto over a judge that calls everything grounded;
- offline: the offline judge as shipped (word match, then the veto), which is what check two uses offline,
  and what any judge's verdict goes through (``verify`` applies the veto to every "grounded").

Columns: accuracy, and false "grounded" (an unsupported claim passed: the error a reader cannot see).
Run: ``python bench/bench_judge.py`` (``--split holdout`` for the held-out pairs only).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from hippo_tui.verification.offline_judge import matches, supports
from hippo_tui.verification.veto import check_claim

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "judge_pairs.jsonl"
# Kinds on which a false "grounded" is a wrong number, direction or negation shown as verified.
STRICT = (
    "dose mismatch",
    "duration mismatch",
    "threshold mismatch",
    "direction",
    "negation",
    "comparator",
)
_WORD = re.compile(r"[a-z0-9]+")


def baseline(claim: str, excerpt: str) -> bool:
    words = set(_WORD.findall(claim.lower()))
    return bool(words) and len(words & set(_WORD.findall(excerpt.lower()))) / len(words) >= 0.5


JUDGES: dict[str, Callable[[str, str], bool]] = {
    "baseline": baseline,
    "lexical": matches,
    "veto": lambda claim, excerpt: check_claim(claim, excerpt) is None,
    "offline": supports,
}


def load(split: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split is None or r["split"] == split]


def score(rows: list[dict], judge: Callable[[str, str], bool]) -> dict[str, tuple[int, int, int]]:
    """Per kind (and "all"): (right, pairs, false grounded)."""
    out: dict[str, list[int]] = {}
    for r in rows:
        said = judge(r["claim"], r["excerpt"])
        for key in (r["kind"], "all"):
            tally = out.setdefault(key, [0, 0, 0])
            tally[0] += said == r["label"]
            tally[1] += 1
            tally[2] += said and not r["label"]
    return {k: (a, b, c) for k, (a, b, c) in out.items()}


def table(rows: list[dict]) -> str:
    results = {name: score(rows, judge) for name, judge in JUDGES.items()}
    kinds = [*sorted({r["kind"] for r in rows}), "all"]
    head = f"{'kind':26} {'n':>4}" + "".join(f" {name:>15}" for name in JUDGES)
    lines = [head, " " * 32 + "".join(f" {'acc  false-gr':>15}" for _ in JUDGES), "-" * len(head)]
    for kind in kinds:
        n = results["offline"][kind][1]
        cells = "".join(f" {results[name][kind][0] / n:>8.0%} {results[name][kind][2]:>6}" for name in JUDGES)
        lines.append(f"{kind:26} {n:>4}{cells}")
    strict = {name: sum(results[name][k][2] for k in STRICT if k in results[name]) for name in JUDGES}
    lines.append(f"{'false grounded, strict kinds':31}" + "".join(f" {strict[name]:>15}" for name in JUDGES))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "holdout"], help="only these pairs (default: all)")
    args = parser.parse_args(argv)
    rows = load(args.split)
    print(f"judge pairs: {len(rows)} ({args.split or 'dev + holdout'})")
    print(table(rows))
    if args.split is None:
        rounds = {
            "dev": load("dev"),
            "holdout 1": [r for r in load("holdout") if r.get("round", 1) == 1],
            "holdout 2": [r for r in load("holdout") if r.get("round") == 2],
        }
        for split, part in rounds.items():
            right = score(part, supports)["all"]
            base = score(part, baseline)["all"]
            print(
                f"{split:10} offline {right[0]}/{right[1]} = {right[0] / right[1]:.1%}"
                f"   baseline {base[0] / base[1]:.1%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
