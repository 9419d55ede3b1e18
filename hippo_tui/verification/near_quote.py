"""A claim that repeats an excerpt's sentence almost word for word, with its sense turned: a "not" put in or
left out, or one word for its opposite ("over" for "under", "before" for "after", "must" for "may").

The other checks match a claim to the excerpt by its words, and a piece of three or four words shares too few
for its negation to be matched with confidence; a near quote is matched by the words around the change, in
order. Only when the claim and the part of the sentence it repeats are the same words in the same order
apart from a few: a reordered paraphrase ("B causes less bleeding than A" for "A causes more than B") is left
to the checks that read comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from hippo_tui.safe_text import clip
from hippo_tui.verification.lexicon import lexicon, respell
from hippo_tui.verification.quantities import normalize

_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*|%")
NEGATIONS = frozenset(
    "not no never cannot without avoid avoided avoiding steer contraindicated neither nor none unless".split()
)
_AT_ONCE = re.compile(r"\bwithout delay\b")  # "at once", not a negation
# Words whose opposite says the other thing of the same matter; the claim's word first.
_PAIRS = (
    ("over", "under"), ("above", "below"), ("more", "less"), ("more", "fewer"), ("higher", "lower"),
    ("increase", "decrease"), ("increases", "decreases"), ("increase", "reduce"), ("increases", "reduces"),
    ("increased", "reduced"), ("increased", "decreased"), ("before", "after"), ("longer", "shorter"),
    ("older", "younger"), ("faster", "slower"), ("earlier", "later"), ("least", "most"), ("minimum", "maximum"),
    ("rises", "falls"), ("rise", "fall"), ("start", "stop"), ("starting", "stopping"), ("greater", "smaller"),
    ("upper", "lower"), ("positive", "negative"),
)  # fmt: skip
_OPPOSITE = {a: b for x, y in _PAIRS for a, b in ((x, y), (y, x))}
# A claim firmer than its sentence: "must" where the excerpt says "may".
_FIRMER = {"must": {"may", "can", "could", "might", "consider"}, "always": {"may", "can", "usually", "often"}}
_STOP = frozenset("a an the of to in on at for and or is are be by with it its as".split())
_SIMILAR = 0.75  # of the claim's words, and of the part of the sentence it repeats, in matching runs
_MIN_WORDS = 4
Words = tuple[str, ...]
_QUOTED = 120  # characters of the excerpt's sentence a reason quotes (sanitised: it is untrusted text)


@dataclass(frozen=True)
class Turned:
    element: str  # "negation", "direction", "modality" or "population"
    reason: str


@lru_cache(maxsize=1024)
def tokens(text: str) -> tuple[str, ...]:
    """The words compared, in the lexicon's words, so that an abbreviation or a lay term is the term it stands
    for ("no fever" is "afebrile", not a negation). Cached: every claim citing an excerpt reads its sentences."""
    said = lexicon().replaced(respell(normalize(text).replace("n't", " not")))
    return tuple(_TOKEN.findall(_AT_ONCE.sub("promptly", said)))


def turned(claim: str, sentences: list[str]) -> Turned | None:
    """How ``claim`` turns the sense of the excerpt sentence it nearly quotes, if it does."""
    mine = tokens(claim)
    if len(mine) < _MIN_WORDS:
        return None
    # The sentence it repeats most closely: another that shares most of its words ("not all …" after "all …")
    # is not the one it quotes.
    repeats = []
    for sentence in sentences:
        theirs = tokens(sentence)
        region = _repeated(mine, theirs)
        if region is not None:
            repeats.append((region, sentence, theirs))
    if not repeats:
        return None
    ((a_lo, a_hi), (b_lo, b_hi), _), sentence, theirs = max(repeats, key=lambda x: x[0][2])
    found = _difference(mine[_led(mine, a_lo) : a_hi], theirs[_led(theirs, b_lo) : b_hi]) or _swapped_at_edge(
        mine, theirs, (a_lo, a_hi), (b_lo, b_hi)
    )
    return (
        Turned(found[0], f"{found[1]}: “{clip(sentence, _QUOTED, flat=True)}”") if found is not None else None
    )


def _repeated(mine: Words, theirs: Words) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    """The spans of ``mine`` and ``theirs``, first matching word to last, in which ``mine`` repeats ``theirs``
    in order, if nearly all of both is in matching runs and every word they share is in those runs (nothing
    moved), with the number of words matched. What the claim adds before or after the repeated part is not
    compared ("…; do not rechallenge")."""
    blocks = [b for b in SequenceMatcher(None, mine, theirs, autojunk=False).get_matching_blocks() if b.size]
    if not blocks:
        return None
    lo, hi = blocks[0].b, blocks[-1].b + blocks[-1].size
    a_lo, a_hi = blocks[0].a, blocks[-1].a + blocks[-1].size
    matched = sum(b.size for b in blocks)
    if matched < _SIMILAR * len(mine) or matched < _SIMILAR * (hi - lo):
        return None
    aligned = {mine[b.a + k] for b in blocks for k in range(b.size)}
    shared = (set(mine) & set(theirs[lo:hi])) - _STOP
    return ((a_lo, a_hi), (lo, hi), matched) if shared <= aligned else None


# What a repeated instruction may be led by and reversed: "do not", "never", "avoid" before "give it …" ("No."
# before a number is no negation).
_NEGATING_LEADS = frozenset({"not", "never", "cannot", "avoid", "steer"})
_LEADS = _NEGATING_LEADS | {"do", "does", "did", "should", "must", "is", "are", "please"}


def _led(words: Words, start: int) -> int:
    """Where the repeated part begins counting the negation that leads it: "do not" before "give it …"."""
    at = start
    while at > 0 and words[at - 1] in _LEADS:
        at -= 1
    return at if _NEGATING_LEADS.intersection(words[at:start]) else start


def _swapped_at_edge(
    mine: Words, theirs: Words, a: tuple[int, int], b: tuple[int, int]
) -> tuple[str, str] | None:
    """A word just before or after the repeated part put in place of its opposite, a weaker modal or another
    group ("Before this period, …" for "After this period, …"; "Adults weighing 25 kg …" for "Children …"):
    the matching runs begin after it."""
    edges = [(mine[a[0] - 1], theirs[b[0] - 1])] if a[0] and b[0] else []
    if a[1] < len(mine) and b[1] < len(theirs):
        edges.append((mine[a[1]], theirs[b[1]]))
    return next(filter(None, (_put_for(word, other) for word, other in edges)), None)


def _difference(mine: Words, theirs: Words) -> tuple[str, str] | None:
    if sum(t in NEGATIONS for t in mine) % 2 != sum(t in NEGATIONS for t in theirs) % 2:
        said = "adds a negation to" if sum(t in NEGATIONS for t in mine) % 2 else "drops the negation of"
        return "negation", f"the claim {said} the excerpt's sentence"
    own, other = set(mine), set(theirs)
    for word in mine:
        opposite = _OPPOSITE.get(word)
        if opposite and opposite in other and word not in other and opposite not in own:
            return "direction", f"the claim says “{word}” where the excerpt says “{opposite}”"
    for word, weaker in _FIRMER.items():
        if word in own and word not in other and own.isdisjoint(weaker) and other & weaker:
            return "modality", f"the claim says “{word}” where the excerpt says “{sorted(other & weaker)[0]}”"
    return _replaced(mine, theirs)


def _replaced(mine: Words, theirs: Words) -> tuple[str, str] | None:
    """A word put in the very place of its opposite, or of a weaker one, where the sentence also has the word
    elsewhere ("younger children (8 years or older)" for "older children (…)"; "may be verbal …, but must be in
    writing" made "must be verbal")."""
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, mine, theirs, autojunk=False).get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for word, other in zip(mine[i1:i2], theirs[j1:j2], strict=True):
            found = _put_for(word, other)
            if found is not None:
                return found
    return None


def _put_for(word: str, other: str) -> tuple[str, str] | None:
    """How the claim's ``word``, in the place of the excerpt's ``other``, turns the sense: its opposite, a
    firmer modal, another group of people."""
    if _OPPOSITE.get(word) == other:
        element = "direction"
    elif other in _FIRMER.get(word, ()):
        element = "modality"
    elif _other_group(word, other):
        element = "population"
    else:
        return None
    return element, f"the claim says “{word}” where the excerpt says “{other}”"


def _other_group(word: str, other: str) -> bool:
    """Two words naming different groups of people on one axis ("adults" for "children")."""
    groups, within = lexicon().populations, lexicon().within
    mine, theirs = groups.get(word), groups.get(other)
    if mine is None or theirs is None or mine[0] != theirs[0] or mine[1] == theirs[1]:
        return False
    return within.get(mine[1]) != theirs[1] and within.get(theirs[1]) != mine[1]  # "older people" are adults
