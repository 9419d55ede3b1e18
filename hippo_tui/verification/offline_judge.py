"""The offline grounding judge: does an excerpt say what a claim says? Lexical, deterministic, no weights.

It passes a source when one of its claims shares enough content words (spelling variants made one) with a
sentence of the excerpt, each clause of the claim does too, and the veto (``veto``: numbers in any spelling,
comparators, direction, negation) finds nothing wrong with it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hippo_tui.verification.lexical import judge_words
from hippo_tui.verification.markers import split_sentences, strip_markers
from hippo_tui.verification.quantities import find, normalize
from hippo_tui.verification.veto import check_claim

MATCHED = 0.6  # share of a claim's words the judge wants in one sentence of the excerpt
CLAUSE_MATCHED = 0.5  # … and of each of its clauses' words
# An excerpt's sentence that addresses whoever checks it is an injection, not evidence.
_TO_THE_JUDGE = re.compile(
    r"\b(?:ignore (?:all |any |the )?(?:previous|prior|above|earlier|rest|other)|grounded|"
    r"(?:reply|respond|answer) with|(?:previous|prior|these|my|new) instructions|checker|verifier|"
    r"mark (?:every|all|each|this|these|the) (?:claims?|sources?|citations?|excerpts?|answers?))\b|"
    r"^\W*(?:system|assistant)\s*[:,]",
    re.I,
)
_CLAUSES = re.compile(r";|,?\s+(?:and|but|whereas|while|although)\s+", re.I)


def matches(claim: str, excerpt: str) -> bool:
    """The lexical half of the judge: the claim's words (numbers aside: the veto reads those) are mostly in one
    sentence of the excerpt, and so are the words of each of its clauses ("X, and Y" needs Y too)."""
    text = strip_markers(claim)
    said = [
        judge_words(_numberless(s))
        for s in split_sentences(excerpt) or [excerpt]
        if not _TO_THE_JUDGE.search(s)
    ]
    # A claim may join a sentence to the one after it ("Cool a burn … Do not apply ice" → "no ice on a burn").
    sentences = said + [a | b for a, b in itertools.pairwise(said)]
    want = judge_words(_numberless(text))
    if not want or _share(want, sentences) < MATCHED:
        return False
    return all(_share(w, sentences) >= CLAUSE_MATCHED for w in _clause_words(text) if w)


def supports(claim: str, excerpt: str) -> bool:
    """The offline judge: the words match and the veto finds nothing wrong with the numbers, the direction or
    the negation."""
    return matches(claim, excerpt) and check_claim(claim, excerpt) is None


def _share(want: set[str], sentences: Sequence[set[str]]) -> float:
    return max((len(want & s) / len(want) for s in sentences), default=0.0)


def _numberless(text: str) -> str:
    # "five days" and "5 days" are one quantity to the veto, and no words at all to the word match.
    t = normalize(text)
    for q in reversed(find(t)):
        t = t[: q.start] + " " + t[q.end :]
    return t


def _clause_words(text: str) -> list[set[str]]:
    return [judge_words(_numberless(c)) for c in _CLAUSES.split(text)]


def judge(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Verdicts for a grounding request, in the ``{"checks": [{"source_id", "grounded"}]}`` shape."""
    checks = []
    for item in items:
        claims = [c for c in item.get("claims") or [] if isinstance(c, str)]
        excerpt = str(item.get("excerpt") or "")
        checks.append(
            {"source_id": str(item.get("source_id")), "grounded": any(supports(c, excerpt) for c in claims)}
        )
    return {"checks": checks}
