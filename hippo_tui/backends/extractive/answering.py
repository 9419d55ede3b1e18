"""Answering a question: each part from the source that covers it, a search when none does, else saying so."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hippo_tui.backends.asked import quotation_chars
from hippo_tui.backends.extractive.abstaining import unknown_subjects
from hippo_tui.backends.extractive.choosing import _answering
from hippo_tui.backends.extractive.context import Context
from hippo_tui.backends.extractive.doses import _answers, _asks_drug_dose, _drugs_of, _other_doses
from hippo_tui.backends.extractive.drug_classes import _class_name, _classes_named
from hippo_tui.backends.extractive.parts import Part, _aspect, _needs, facets, treatment
from hippo_tui.backends.extractive.picking import sentences_for
from hippo_tui.backends.extractive.rendering import Reply
from hippo_tui.backends.extractive.searching import _facet_query, _subject_query, searched_alone, was_searched
from hippo_tui.backends.extractive.sources import Source, _section, _sections
from hippo_tui.prompts import SEARCH_TOOL_NAME
from hippo_tui.verification.lexical import generic

COVERED = 0.5  # share of a part's (idf-weighted) words a source must contain to answer it
MAX_SENTENCES = 4  # per question part, from its main source
# A source that gives nothing a part asks for and leaves this much of its subjects unsaid touches it in passing.
UNSAID_SHARE = 0.5
SECOND_SOURCE_SHARE = 0.2  # a second source joins when it covers this much of what the first left out


def _answer_part(
    ctx: Context, part: Part, used: set[tuple[str, str]]
) -> tuple[list[tuple[str, str]] | None, bool]:
    """The cited sentences answering ``part`` (possibly none new), or None when no source covers it; and
    whether the source that answers lacks what the part asks for (a dose, a duration)."""
    if unknown_subjects(ctx, part):
        return (
            None,
            False,
        )  # nothing on a key term ("semaglutide"): answering from its neighbours would mislead
    # A part naming drugs is answered from a source naming one of them: not from a card on their neighbours
    # ("prasugrel loading dose" is not answered by the clopidogrel and aspirin loading doses).
    drugs = _drugs_of(part)
    # A part whose most telling subject was searched on its own (``_subject_query``) is answered from a source
    # naming it: not from one the search's other finds merely reweighed into covering it.
    alone, loose = searched_alone(ctx, part)
    others = {w for w in part.own - alone if not _aspect(w) and w not in treatment()}
    ranked = [
        (c, s)
        for c, s in ctx.rank_sources(part)
        if (not drugs or drugs & s.words) and _says_alone(s.words, alone, loose, others)
    ]
    # The rank penalty breaks near-ties among sources that cover the part; it never lets a better-ranked
    # source that does not cover it hide one further down that does.
    ranked = [(c, s) for c, s in ranked if c >= COVERED]
    needs = _needs(part)
    if _asks_drug_dose(part):
        ranked = [(c, s) for c, s in ranked if not _other_doses(part, _section(ctx.sources, s), needs)]
    if not ranked:
        return None, False
    main = _answering(part, ranked, ctx.answered_by.get(part.subject or ""))
    ctx.answered_by[part.text] = main.title
    lacking = bool(needs) and not any(_answers(part, x, needs) for x in main.sentences)
    if lacking and _in_passing(ctx, part, main):
        return None, False
    chars = quotation_chars(ctx.question)
    section = _section(ctx.sources, main)
    picked = [(s.text, s.sid) for s in sentences_for(ctx, part, section, MAX_SENTENCES, chars)]
    # What the main source leaves out of the part's own words, a second source may cover.
    missing = {w for w in part.own - main.words if not generic(w) and w not in facets()}
    # A class the main source names a member of is not missing ("steroids" of "give oral prednisolone").
    named = _classes_named(" ".join(s.text for s in main.sentences)) if missing else frozenset()
    missing = {w for w in missing if _class_name(w) not in named}
    if missing and ctx._mass(missing) >= SECOND_SOURCE_SHARE * ctx._mass(part.want):
        rest = Part(part.text, part.want, missing, part.subject, part.inherited)
        for coverage, other in ctx.rank_sources(rest, [s for _, s in ranked[1:]], pooled=False):
            if coverage >= COVERED:
                picked += [(s.text, other.id) for s in sentences_for(ctx, rest, other, 2)]
                break
    # A chart repeats a row in several of its branches ("Administer antihistamine …"): it is said once.
    said: set[str] = set()
    out = []
    for text, sid in picked:
        if text not in said and (text, sid) not in used:
            said.add(text)
            out.append((text, sid))
    return out, lacking


def _in_passing(ctx: Context, part: Part, source: Source) -> bool:
    """``source`` gives nothing the part asks for (a dose, a drug), its title names none of the part's subjects,
    and its section never says most of them (by weight): it touches the part only on its circumstances (a trip
    in a report on tuberculosis care, for a motion sickness tablet for a ferry trip)."""
    subjects = {w for w in part.want if not _aspect(w) and w not in treatment()}
    if not subjects or subjects & source.topic:
        return False
    said = _sections(ctx.sources).get(source.title, source.words)
    return ctx._mass(subjects - said) >= UNSAID_SHARE * ctx._mass(subjects)


def _says_alone(said: frozenset[str], alone: set[str], loose: set[str], rest: set[str]) -> bool:
    """A source says the words searched alone (``searched_alone``); or, lacking only the asker's own words among
    them, says all the rest of the part's subjects."""
    return alone <= said or (alone - loose <= said and rest <= said)


def answer(messages: Sequence[Mapping[str, Any]], *, tools: Iterable[str] = ()) -> Reply:
    ctx = Context.from_messages(messages)
    can_search = SEARCH_TOOL_NAME in set(tools)
    out: list[tuple[str, str | None]] = []
    used: set[tuple[str, str]] = set()
    uncovered: list[Part] = []
    lacking: list[Part] = []
    for part in ctx.parts():
        picked, short = _answer_part(ctx, part, used)
        if picked is None:
            uncovered.append(part)
            continue
        if short:
            lacking.append(part)
        used.update(picked)
        out += picked
    if can_search and not ctx.searched:
        # First what the sources on a subject leave out (its dose, how long), searched as a source heads it.
        for part in [*uncovered, *lacking]:
            query = _facet_query(ctx, part) or (_subject_query(ctx, part) if part in uncovered else None)
            if query and query not in ctx.searched:
                return Reply(out, search=query)
    for part in uncovered:
        if can_search and not was_searched(ctx, part):
            return Reply(out, search=part.query())
    for part in uncovered:
        out.append((f"The knowledge base I was given does not cover {part.label}.", None))
    if not out:
        out.append(("I could not find anything about this in the knowledge base.", None))
    return Reply(out)
