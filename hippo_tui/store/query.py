"""A clinician's question as words to search: minus stop-words, and how a list of them is quoted and OR-ed."""

from __future__ import annotations

import re

# Words that carry no topic in a clinical question. Kept short on purpose: anything with clinical
# meaning ("first", "line", "children", "dose") stays in, bm25 weighs it.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves
    tell explain please give recommended recommend recommendation usual usually best much many
    """.split()
)

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 24  # bounds the cost of pathological inputs
# What an apostrophe joins to a word ("can't", "kid's", "they're"): no word of its own. Split off, "t" and
# "s" were searched for, and "can t" as a name like "plan c" (a Bell's palsy question found "Can't visualise").
_NOT = re.compile(r"\b(can|won|\w+?)n?['’]t\b", re.I)  # "can't" -> "can", "don't" -> "do"
_WONT = {"won": "will"}
_CLITIC = re.compile(r"(?<=\w)['’](?:s|re|ll|ve|d|m)\b", re.I)
# A "non" and the word it negates, hyphened or not ("non-steroidal", "non ST elevation"), not a number.
_NEGATED = re.compile(r"\bnon[\s-]+(?=[^\W\d_])", re.I)
# A number and its unit typed as one word ("45yo", "3yo", "80kg", "6wk"): two words, so the unit is read as
# one ("yo" is "year old"); an ordinal ("2nd") is left as it is.
_GLUED = re.compile(r"\b(\d+(?:\.\d+)?)(?!st\b|nd\b|rd\b|th\b)([a-z]+)\b", re.I)


def typed_text(query: str) -> str:
    """A query lower-cased, its contractions' endings off and its glued units split."""
    query = _CLITIC.sub("", _NOT.sub(lambda m: _WONT.get(m[1].lower(), m[1]), query))
    return _GLUED.sub(r"\1 \2", query).lower()


def typed_words(query: str) -> list[str]:
    """The words of ``typed_text(query)``."""
    return _WORD.findall(typed_text(query))


def joined_negations(text: str) -> str:
    """``text`` with each "non" joined to the word it negates ("non-steroidal", "non steroidal":
    "nonsteroidal"): split, a passage on NSAIDs read as one on steroids."""
    return _NEGATED.sub("non", text)


def terms(query: str) -> list[str]:
    """The searchable words of a query, lower-cased, in order, without duplicates or stop-words; a "non" joined
    to the word it negates (``joined_negations``).

    When every word is a stop-word the words are kept, so "what is it" still finds something.
    """
    words = [w for w in typed_words(joined_negations(query)) if w.strip("_")]
    kept = [w for w in words if w not in STOP_WORDS] or words
    return list(dict.fromkeys(kept))[:MAX_TERMS]


def quoted_or(words: list[str]) -> str:
    """Words (from ``terms``) as an FTS5 OR of quoted strings."""
    return " OR ".join(f'"{w}"' for w in words)
