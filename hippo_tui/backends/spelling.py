"""A tired clinician's typos, read as the word the sources spell ("palsey" as "palsy", "steriod" as "steroid").

Only a word no source uses is corrected, only to a word the sources do use, and only when exactly one such
word is one slip away: two neighbouring letters swapped, or (in words of six letters or more) one letter
left out or added, or one vowel typed for another ("olecrenon", search's commonest misspelling); the same
first letter. Another letter changed is not a slip but often another word ("arteritis" and "arthritis"), and two slips are never corrected ("hyperthyroidism" is not
"hypothyroidism", nor "overdose" "overuse"). A word the sources use in another form is left as it is: the
answerer's reading of words (``reads``, passed by it) decides what is another form, so that a typo this module
leaves alone ("scabis") is one the answerer matches ("scabies"), never one a second stemmer merely forgives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache

from hippo_tui.store.slips import INDEL_LETTERS, MIN_LETTERS  # the one rule, shared with search
from hippo_tui.verification.lexical import STOP
from hippo_tui.verification.lexicon import lexicon

_WORD = re.compile(r"[A-Za-z]+")
Reads = Callable[[str], set[str]]  # a text's words as the answerer compares them


def _one_letter_apart(a: str, b: str) -> bool:
    """One of the two is the other with one letter left out."""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    if len(longer) != len(shorter) + 1:
        return False
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def is_slip(w: str, v: str) -> bool:
    """``v`` is ``w`` with one slip: two neighbours swapped, or (six letters or more) a letter left out or added."""
    if len(w) == len(v):  # a swap of neighbours only, never a letter changed
        diff = [i for i in range(len(w)) if w[i] != v[i]]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and w[diff[0]] == v[diff[1]]
            and w[diff[1]] == v[diff[0]]
        )
    return len(w) >= INDEL_LETTERS and _one_letter_apart(w, v)


_VOWELS = frozenset("aeiouy")


def vowel_slip(w: str, v: str) -> bool:
    """``v`` is ``w`` (six letters or more) with one vowel typed for another, never the first letter: search's
    commonest misspelling ("olecrenon", "scorpian"). Only the answerer reads it so; the judge's ``is_slip`` does
    not, a claim's changed vowel may be another word."""
    if len(w) != len(v) or len(w) < INDEL_LETTERS:
        return False
    diff = [i for i in range(len(w)) if w[i] != v[i]]
    return len(diff) == 1 and diff[0] > 0 and w[diff[0]] in _VOWELS and v[diff[0]] in _VOWELS


def correction(
    word: str,
    vocabulary: set[str],
    by_first: dict[str, list[str]],
    stems: Callable[[], set[str]],
    reads: Reads,
) -> str | None:
    w = word.lower()
    if len(w) < MIN_LETTERS or w in vocabulary:
        return None
    close = {v for v in by_first.get(w[0], ()) if is_slip(w, v) or vowel_slip(w, v)}
    # Checked only for a word that is one slip from exactly one source word: reading every word of the
    # sources is most of the work, and most words of a question are either in them or near none.
    if len(close) != 1 or reads(w) <= stems():
        return None
    if lexicon().drug_classes(w):  # a drug's name as the lexicon knows it is no slip, whatever a source wrote
        return None
    return close.pop()


def corrected(question: str, texts: Iterable[str], reads: Reads) -> str:
    """``question`` with each typo replaced by the one source word it is a slip of, unless ``reads`` (the
    answerer's reading of words) already takes it for a source's word."""
    vocabulary = {w.lower() for t in texts for w in _WORD.findall(t)}
    by_first: dict[str, list[str]] = {}
    for v in vocabulary:
        if len(v) >= MIN_LETTERS:
            by_first.setdefault(v[0], []).append(v)
    # One text: read a word at a time, the lexicon's phrases would be looked for thousands of times.
    stems = cache(lambda: reads(" ".join(sorted(vocabulary))))
    return _WORD.sub(
        lambda m: correction(m.group(), vocabulary, by_first, stems, reads) or m.group(), question
    )


def slip_of_asking(word: str) -> bool:
    """``word`` is a slip of a word of asking ("wich" for "which", "wat" for "what", "wen" for "when"): a stop
    word with one letter left out. Not a letter added ("wheat" is not "what") nor two swapped ("dose" is not
    "does")."""
    return word not in STOP and any(len(v) > len(word) >= 3 and _one_letter_apart(word, v) for v in STOP)
