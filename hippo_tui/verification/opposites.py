"""A claim that says one of two opposite qualities where the excerpt's sentence about it says the other: "on the
same day" for "on a different day", "the left side" for "the right", "acute" for "chronic".

Direction words (more/less, before/after, raise/lower) have checks of their own that read what they are said
of; these are qualities that name one thing or its opposite whatever they stand beside, so the sentence most
about the claim saying the other one, and never the claim's, is enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Each pair names the two sides of one quality; a word is read whole (stems would join "lateral" to
# "bilateral").
_PAIRS = (
    ("same", "different"), ("left", "right"), ("acute", "chronic"), ("proximal", "distal"),
    ("anterior", "posterior"), ("medial", "lateral"), ("unilateral", "bilateral"), ("benign", "malignant"),
    ("systolic", "diastolic"), ("local", "systemic"), ("morning", "evening"), ("primary", "secondary"),
    ("internal", "external"), ("inspiratory", "expiratory"), ("conscious", "unconscious"), ("together", "apart"),
)  # fmt: skip
_OPPOSITE = {a: b for x, y in _PAIRS for a, b in ((x, y), (y, x))}
_WORD = re.compile(r"[a-z]+")


_REPEATED = 0.75  # of a sentence's words in the claim: the claim repeats that sentence


def opposite(claim: str, sentence: str, others: Sequence[str] = ()) -> tuple[str, str] | None:
    """(the claim's word, the sentence's opposite) when the claim says one side of a quality that the
    sentence says only the other side of, and the claim repeats none of the ``others`` sentences that say
    the claim's side (a claim joining two sentences may take its word from the other one)."""
    mine, theirs = _words(claim), _words(sentence)
    for word in sorted(mine & _OPPOSITE.keys()):
        other = _OPPOSITE[word]
        if other in theirs and word not in theirs and other not in mine and not _repeats(mine, word, others):
            return word, other
    return None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _repeats(mine: set[str], word: str, others: Sequence[str]) -> bool:
    said = (w for w in map(_words, others) if word in w)
    return any(len(w & mine) >= _REPEATED * len(w) for w in said)
