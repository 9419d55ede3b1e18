"""A question split in parts, each with what it asks and the subject a follow-on part inherits."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from hippo_tui.backends.asked import TOOL_KINDS
from hippo_tui.backends.extractive.words import (
    _age_words,
    _classes_of,
    _default_population_words,
    _not_subjects,
    content_words,
    part_words,
)
from hippo_tui.verification.lexical import STOP, WORD, generic, normal, stem

ANSWER_TYPES = frozenset({"dose", "long"})  # what sentence_words derives from quantities


def _as_read(words: str) -> frozenset[str]:
    """Each word as a question's words are read (``part_words``): its synonym group's word too, so that
    "monitoring", read as "observe", is still a facet, not a subject."""
    return frozenset(w for word in words.split() for w in {normal(stem(word)), *content_words(word)})


@cache
def treatment() -> frozenset[str]:
    """Asking what to treat with is asking for a regimen: among a source's sentences, the one with a dose."""
    return _as_read("treat antibiotic drug medicine medication therapy prescribe")


# Words a question uses that name no subject: not knowing them is not a reason to abstain.
GENERAL = frozenset({"without", "within", "get", "new"})
# A "?" before a word is a clinician's "query" ("chest pain ?ACS": suspected ACS), not the end of a question.
_PART_SPLIT = re.compile(
    r"\?(?![A-Za-z])|;|\n|\band also\b|(?:,?\s+and|,)\s+(?=(?:for\s+)?(?:what|how|which|when|who|why|is|are|"
    r"does|do|should|can|could|would|will|must|may)\b)",
    re.I,
)


@cache
def facets() -> frozenset[str]:
    """Aspects of a subject rather than subjects: a part made only of these asks about the subject before it.
    Read when first asked for, not on import: reading them loads the lexicon."""
    return _as_read(
        """dose dosage dosing long duration often frequency first line second choice treatment treat treated
        managed management option options alternative alternatives monitor monitoring target targets side
        effect effects interval maximum course route refer referral review stop stopping start starting daily
        frequently reduce reduced increase increased change work repeat repeated regimen schedule size"""
    )


# What kind of tool a named one is: a card may call the "Truelove and Witts criteria" an index.
TOOL_KIND_WORDS = frozenset(normal(stem(w)) for w in TOOL_KINDS)
TOOL_KIND = f"(?:{'|'.join(TOOL_KINDS)})"
# "…, and what about children?", "And in men?": always about the subject before; so is a part with a pronoun
# ("when should it be reduced?"), mostly.
_CONTINUES = re.compile(r"^(?:and|but|also|or|(?:what|how)\s+about)\b", re.I)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|this|that|these|those)\b", re.I)


def question_parts(question: str) -> list[str]:
    parts = [p.strip(" ,.") for p in _PART_SPLIT.split(question)]
    return [p for p in parts if content_words(p)] or ([question.strip()] if question.strip() else [])


@dataclass
class Part:
    """One question part: what it asks (``want``) and the words an answer must touch (``own``)."""

    text: str
    want: set[str]
    own: set[str]
    subject: str | None = None  # the earlier part a follow-on inherits its subject from
    # the subject's words (context for choosing a source, not required)
    inherited: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        return f"“{self.text}” (for “{self.subject}”)" if self.subject else f"“{self.text}”"

    def query(self) -> str:
        return _query(f"{self.subject} {self.text}" if self.subject else self.text)


def _follows_on(text: str, *, same_question: bool) -> bool:
    words = content_words(text)
    # "…, what drug can I give?" asks for a treatment of the subject before, as "… and for how long?" asks its
    # duration.
    if words <= facets() | treatment() or _CONTINUES.match(text):
        return True
    if not _PRONOUN.search(text):
        return False
    # Within one question "they" is whoever the question is about; a new question with a pronoun and
    # subjects of its own ("Is it safe to give naproxen with warfarin?") may be about something new.
    return same_question or len({w for w in words if w not in facets() and not generic(w)}) <= 2


def _subject_of(parts: Sequence[Part]) -> Part | None:
    """What a follow-on to these parts is about: the last part with a subject of its own, or the one inherited."""
    for p in reversed(parts):
        if p.subject is None:
            return p
    if parts and parts[-1].subject is not None:
        return Part(parts[-1].subject, set(parts[-1].inherited), set(parts[-1].inherited))
    return None


def parts_of(
    question: str, earlier: Sequence[str] = (), untitled: Callable[[set[str]], bool] | None = None
) -> list[Part]:
    """The question's parts. A follow-on part takes the subject of the part before it, or, when it is the
    first, of the question asked before this one (``earlier``: the conversation's questions, oldest first).
    Within one question, so does a later part whose subjects the sources use but none is about (``untitled``):
    "… elbow dislocation, how long to immobilise after reduction" asks about the elbow."""
    out: list[Part] = []
    main = _subject_of(parts_of(earlier[-1], earlier[:-1])) if earlier else None
    for i, text in enumerate(question_parts(question)):
        own = part_words(text)
        aside = i > 0 and untitled is not None and untitled({w for w in own if not _aspect(w)})
        # Within one question, a part that names only drugs ("… IVIG dose and how much aspirin") asks about
        # them for the condition before it: not for whatever else a source gives aspirin for.
        drugs = i > 0 and main is not None and _drugs_for(own, main.own)
        if main is not None and (_follows_on(text, same_question=i > 0) or aside or drugs):
            inherited = frozenset(main.want - own)
            # "And how often is it taken?" asks nothing of its own the sources could show: the subject it is.
            part = Part(text, own | inherited, own or set(inherited), subject=main.text, inherited=inherited)
            out.append(part)
            # What follows the drugs ("… how much prednisone, and for how long?") asks about them.
            main = Part(text, set(part.want), set(part.want)) if drugs else main
            continue
        main = Part(text, own, own)
        out.append(main)
    return out


def _drugs_for(own: set[str], before: set[str]) -> bool:
    """``own`` names drugs and nothing else a source must name, and ``before`` names something other than a drug
    (a condition, a presentation)."""
    subjects = {w for w in own if not _aspect(w) and w not in treatment()}
    others = {w for w in before if not _aspect(w) and w not in treatment() and not _classes_of(w)}
    return bool(subjects) and all(_classes_of(w) for w in subjects) and bool(others)


def _query(part: str) -> str:
    return " ".join(w for w in WORD.findall(part.lower()) if w not in STOP)[:120] or part[:120]


def _aspect(word: str) -> bool:
    # An age group qualifies a subject (checked against a source's title: ``_age_groups``), never is one; nor
    # is a qualifier ("severe") or a word of giving a treatment.
    return (
        word in facets()
        or generic(word)
        or word in _age_words()
        or word in _not_subjects()
        or word in _default_population_words()
    )


def _needs(part: Part) -> set[str]:
    """What a sentence must give to answer the part: a dose, a duration; a regimen (a dose) for a treatment."""
    return part.want & ANSWER_TYPES | ({"dose"} if part.own & treatment() else set())
