"""Everyday English the offline judge reads a paraphrase with: a word's synonyms and derivations in its most
frequent senses, from WordNet 3.0 (``data/thesaurus.tsv.gz``, built by ``tools/build_thesaurus.py``).

The clinical lexicon says what a clinician means by a term; this says that "cessation" is "stopping" and
"sudden" is "abrupt". It only ever accounts for a claim's ordinary words: drugs, populations, numbers,
negation, strength and line of therapy are typed elements with checks of their own, so a synonym here
cannot make "adults" read as "children" or "must" as "may". Hypernyms are left out ("limb" is not "arm").
"""

from __future__ import annotations

import gzip
from functools import cache
from importlib import resources

from hippo_tui.verification.lexicon import stem


@cache
def _text() -> str:
    """The table's lines (sorted by stem), behind a line break so that every line starts after one. Searched,
    not parsed: a dict of its 50,000 lines took 150 ms to build."""
    data = resources.files("hippo_tui.data").joinpath("thesaurus.tsv.gz").read_bytes()
    return "\n" + gzip.decompress(data).decode("utf-8")


@cache
def _first_row() -> int:
    """Where the sorted rows start, after the licence's comment lines."""
    text, at = _text(), 1
    while text.startswith("#", at):
        at = text.index("\n", at) + 1
    return at


def _first_at_or_after(text: str, lead: str) -> int:
    """The start of the first row not sorting before ``lead``, by bisecting the text itself: the rows are
    sorted, so a look-up reads about 20 rows instead of scanning 4 MB (a scan took 2.5 ms a word)."""
    lo, hi = _first_row(), len(text)
    while lo < hi:
        start = text.rfind("\n", 0, (lo + hi) // 2) + 1
        if text[start : start + len(lead)] < lead:
            end = text.find("\n", start)
            lo = end + 1 if end >= 0 else len(text)
        else:
            hi = start
    return lo


def _lines(key: str) -> list[list[str]]:
    text, lead, out = _text(), f"{key}\t", []
    at = _first_at_or_after(text, lead)
    while text.startswith(lead, at):
        end = text.find("\n", at)
        out.append(text[at : end if end >= 0 else None].split("\t"))
        at = end + 1 if end >= 0 else len(text)
    return out


@cache
def related(word: str) -> tuple[str, ...]:
    """The words WordNet gives as saying what ``word`` says, for every lemma of its stem (empty if none)."""
    return tuple(w for line in _lines(stem(word)) for w in line[2].split())


@cache
def related_phrase(first: str, second: str) -> tuple[str, ...]:
    """The same for a two-word verb or phrase ("bring down", "stay off")."""
    return tuple(w for line in _lines(f"{stem(first)} {stem(second)}") for w in line[2].split())


@cache
def _light() -> frozenset[str]:
    data = resources.files("hippo_tui.data").joinpath("light_words.txt.gz").read_bytes()
    return frozenset(
        w for w in gzip.decompress(data).decode("utf-8").splitlines() if w and not w.startswith("#")
    )


def is_light(word: str) -> bool:
    """Whether ``word`` only says how things stand, are said or thought ("explain", "evidence", "involve"):
    all its frequent senses are WordNet's relations, states, speech, thought and social acts, none a verdict."""
    return word.lower() in _light()
