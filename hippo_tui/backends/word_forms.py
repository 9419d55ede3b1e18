"""A question's word in the forms the sources write it: "dislocated" for a card on "dislocation", "avulsed" for
"avulsion", "immobilise" for "immobilization"; and as a source's own slip of it ("primay" for "primary"). The
stemmer leaves such pairs apart ("dislocat" and "dislocation"), so a question in one form read as not covered
by a source in the other.

Only a word no source uses is read so, only as source words it begins (all but its last letter at most), and
only when such a word goes on for a few letters more: an ending, not another word ("arterial" is not
"arteritis": they part after five letters of nine). A source's slip is a source word of the same first letter
one slip from the asked word, by the rule the question's own slips are read by (``spelling``).
"""

from __future__ import annotations

from collections.abc import Iterable

from hippo_tui.backends.spelling import is_slip

MIN_SHARED = 5  # letters the two forms must share from the start
MAX_ENDING = 6  # letters the source's form may add after what they share


def _shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _same_word(word: str, v: str) -> bool:
    if v.isdigit():
        return False
    n = _shared(word, v)
    ending = n >= MIN_SHARED and n >= len(word) - 1 and len(v) - n <= MAX_ENDING
    return ending or (v[0] == word[0] and is_slip(word, v))


def source_forms(words: Iterable[str], vocabulary: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each of ``words`` that no source uses, the source words that are it with another ending or a slip."""
    out = {}
    for w in words:
        if w in vocabulary or w.isdigit() or len(w) < MIN_SHARED:
            continue
        forms = frozenset(v for v in vocabulary if _same_word(w, v))
        if forms:
            out[w] = forms
    return out
