"""Choosing the source that answers a question part: coverage of its words, weighed by what tells sources
apart, never one on another group, drug, type or tool."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import takewhile
from typing import TYPE_CHECKING

from hippo_tui.backends.asked import other_type, tool_names
from hippo_tui.backends.extractive.doses import _answers, _asked_drugs
from hippo_tui.backends.extractive.drug_classes import _class_words, _classes_met
from hippo_tui.backends.extractive.parts import ANSWER_TYPES, TOOL_KIND, TOOL_KIND_WORDS, Part, _aspect
from hippo_tui.backends.extractive.populations import _asked_ages, _other_population
from hippo_tui.backends.extractive.sources import Source, _sections
from hippo_tui.backends.extractive.words import content_words
from hippo_tui.verification.lexical import comparators, contradicts

if TYPE_CHECKING:
    from hippo_tui.backends.extractive.context import Context


INHERITED = 0.5  # a follow-on's inherited subject helps choose its source but need not all be in it
ASPECT_WEIGHT = 0.35  # facets and numbers choose among a subject's sentences; subjects choose the source
UNANSWERED = 0.6  # a source with no dose for a dose question (no duration for "how long") counts for less
RANK_PENALTY = 0.04  # per retrieval rank: between two near-equal sources, the one retrieval ranked higher
# Between sources that cover a part about equally, the one whose title names its subjects ("Type 1 diabetes ›
# Monitoring" for an HbA1c target in type 1 diabetes, over a lipid card that mentions type 1 and HbA1c).
TITLE_WEIGHT = 0.1


def rank_sources(
    ctx: Context, part: Part, among: Sequence[Source] | None = None, *, pooled: bool = True
) -> list[tuple[float, Source]]:
    """Sources that touch the part's own words, by coverage of the part (retrieval rank breaks near-ties).
    A section split in several passages is read whole (``pooled``): its passages cover what any of them
    says, as the section does."""
    sections = _sections(ctx.sources) if pooled else {}
    first_rank = {s.title: s.rank for s in reversed(ctx.sources)} if pooled else {}
    total = ctx._source_mass(part.want, part.inherited) or 1.0
    subjects = {w for w in part.want if not _aspect(w)}
    needs = part.want & ANSWER_TYPES
    asked_classes = _class_words(part.want)
    names = [n for name in tool_names(part.text) for n in name]
    hits = []
    for s in among if among is not None else ctx.sources:
        hit = part.want & sections.get(s.title, s.words)
        if asked_classes:
            hit |= _classes_met(asked_classes - s.words, s.classes)
        if _calls_tool(s, names):
            hit |= part.want & TOOL_KIND_WORDS  # "Truelove and Witts criteria" it calls an index
        if _admitted(part, s, hit, subjects):
            answered = not needs or any(_answers(part, x, needs) for x in s.sentences)
            hits.append((s, hit, answered))
    # A source with no dose for a dose question (no duration for "how long") counts for less. A dose is a
    # drug's: for a part that names none, not for less than those that give one where all of them are on
    # other subjects than its title names ("pneumonia" in a child, 5 days, for Legionnaires' disease); the
    # card on the subject answers, and is searched for what it lacks.
    answering = [] if _asked_drugs(part) else [hit & subjects for _s, hit, answered in hits if answered]
    scored = []
    for s, hit, answered in hits:
        coverage = ctx._source_mass(hit, part.inherited) / total
        about = s.topic & subjects
        if not answered and (not about or not answering or any(about & said for said in answering)):
            coverage *= UNANSWERED
        titled = ctx._mass(subjects & s.topic) / (ctx._mass(subjects) or 1.0)
        # A section's passages rank as its best-ranked one, those whose own lines name a subject of the
        # part first: a passage saying nothing of it but its section's title answers nothing.
        rank = first_rank.get(s.title, s.rank)
        says = any(subjects & x.words for x in s.sentences) if subjects else True
        scored.append((coverage + TITLE_WEIGHT * titled - RANK_PENALTY * rank, says, -s.rank, coverage, s))
    scored.sort(key=lambda x: x[:3], reverse=True)
    return [(coverage, s) for *_, coverage, s in scored]


def _admitted(part: Part, s: Source, hit: set[str], subjects: set[str]) -> bool:
    """``s`` may answer the part: it touches its own words and a subject, and is not on another direction,
    age group, population, tool or type."""
    if not hit & part.own or (subjects and not hit & subjects):
        return False
    if contradicts(comparators(part.text), _directions(s)):
        return False
    asked_for = _asked_ages(part.text)
    if asked_for and s.ages and not asked_for & s.ages:
        return False  # a card on adults does not answer for a 4 year old
    if _other_population(part.text, s.title):
        return False  # nor one on non-pregnant women for a pregnant woman
    if any(not tool & s.named for tool in _named_tools(part.text)):
        return False  # "HEART score" is not answered by a card on a pain score that never says "heart"
    # A card on type 2 diabetes does not answer for type 1, whatever it mentions.
    return not other_type(part.own, s.topic)


def _answering(part: Part, ranked: list[tuple[float, Source]], before: str | None = None) -> Source:
    """A follow-on part ("…, how long to immobilise?") from the section that answered the part it follows,
    where that section covers it too. Otherwise, of the sources that cover the part as well as the first (those
    titled for the age group asked about, where any is), the first with one sentence that says all the part
    asks ("vasospasm" and when), over one that says each in another sentence; failing that, one line with its
    heading ("> 3 seizures in 1 hr" under "Status epilepticus"). Only a tie: the rank and the title decide
    among sources that cover it differently."""
    same = [s for _c, s in ranked if s.title == before]
    if same:
        return same[0]
    tied = [s for _c, s in takewhile(lambda x: x[0] >= ranked[0][0], ranked)]
    # Of those, a card whose title is for the age group asked about ("… pneumonia in adults") before one that
    # names the subject in passing ("signs of pneumonia" in a card on COPD).
    asked = _asked_ages(part.text)
    tied = [s for s in tied if asked & s.ages] or tied
    for headed in (False, True):
        for s in tied:
            if any(part.own <= x.words | (s.topic if headed else frozenset()) for x in s.sentences):
                return s
    return ranked[0][1]


def _directions(source: Source) -> set[str]:
    # A source that only ever says "under" cannot answer "over" (and the reverse); mixed sources can.
    return (
        set().union(*(s.words & {"more-than", "less-than"} for s in source.sentences))
        if source.sentences
        else set()
    )


def _named_tools(text: str) -> list[set[str]]:
    """Each named tool's words: a source names the tool when it uses one of them (a slip in either of two
    names, "Truelove and Wits", leaves the other)."""
    return [words for name in tool_names(text) if (words := {w for n in name for w in content_words(n)})]


def _calls_tool(source: Source, names: list[str]) -> bool:
    """A sentence of ``source`` names one of the tools ``names`` as a score, index, criteria … of its own, the
    name a few words before the kind ("Truelove and Witts' severity index" for the criteria asked about); a
    card that only names the condition ("COPD") does not answer for its "criteria"."""
    return any(
        re.search(rf"\b{re.escape(name)}\w*['’]?s?\W+(?:[\w'’-]+\W+){{0,3}}{TOOL_KIND}\b", x.text, re.I)
        for name in names
        for x in source.sentences
    )
