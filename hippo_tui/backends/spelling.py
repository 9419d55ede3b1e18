"""A tired clinician's typos, read as the word the sources spell ("palsey" as "palsy", "steriod" as "steroid").

Only a word no source uses is corrected, only to a word the sources do use, and only when exactly one such
word is one slip away: two neighbouring letters swapped, or (in words of six letters or more) one letter
left out or added; the same first letter. One letter changed is not a slip but often another word
("arteritis" and "arthritis"), and two slips are never corrected ("hyperthyroidism" is not
"hypothyroidism", nor "overdose" "overuse"). A word whose stem the sources use is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hippo_tui.verification.lexicon import stem

_WORD = re.compile(r"[A-Za-z]+")
MIN_LETTERS = 5  # shorter words are too easily another word ("dose"/"nose")
INDEL_LETTERS = 6  # a letter left out or added only in a longer typed word ("stent" is not "sent")


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a transposition is one edit), stopping once past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        prev2, prev = prev, row
    return prev[-1]


def _slip(w: str, v: str) -> bool:
    if len(w) == len(v):  # a swap of neighbours only, never a letter changed
        diff = [i for i in range(len(w)) if w[i] != v[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and w[diff[0]] == v[diff[1]] and w[diff[1]] == v[diff[0]]
    return len(w) >= INDEL_LETTERS and _distance(w, v, 1) <= 1


def correction(word: str, vocabulary: set[str], by_first: dict[str, list[str]], stems: set[str]) -> str | None:
    w = word.lower()
    if len(w) < MIN_LETTERS or w in vocabulary or stem(w) in stems:
        return None
    close = {v for v in by_first.get(w[0], ()) if _slip(w, v)}
    return close.pop() if len(close) == 1 else None


def corrected(question: str, texts: Iterable[str]) -> str:
    """``question`` with each typo replaced by the one source word it is a slip of."""
    vocabulary = {w.lower() for t in texts for w in _WORD.findall(t)}
    by_first: dict[str, list[str]] = {}
    for v in vocabulary:
        if len(v) >= MIN_LETTERS:
            by_first.setdefault(v[0], []).append(v)
    stems = {stem(v) for v in vocabulary}
    return _WORD.sub(lambda m: correction(m.group(), vocabulary, by_first, stems) or m.group(), question)
