"""Picking a source's sentences for a part: the best one, what it refers back to, then those on its topic."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from hippo_tui.backends.extractive.doses import _answers, _others_quantity
from hippo_tui.backends.extractive.drug_classes import _classes_named
from hippo_tui.backends.extractive.parts import ANSWER_TYPES, Part, _aspect, _needs, facets, treatment
from hippo_tui.backends.extractive.sources import HEADING_PHRASE, Sentence, Source
from hippo_tui.backends.extractive.words import _age_words, _classes_of, content_words
from hippo_tui.verification.lexical import comparators, contradicts, generic

if TYPE_CHECKING:
    from hippo_tui.backends.extractive.context import Context


MIN_SUPPORT_WORDS = 2  # a supporting sentence with fewer content words is a heading, not a statement


def sentences_for(
    ctx: Context, part: Part, source: Source, limit: int, chars: int = 10_000
) -> list[Sentence]:
    """The best sentence for the part, its antecedents, then the same source's sentences on its topic."""
    asked = comparators(part.text)
    usable = [
        i
        for i, s in enumerate(source.sentences)
        if not contradicts(asked, s.words & {"more-than", "less-than"})
    ]
    if not usable:
        return []

    needs = _needs(part)
    treats = bool(part.own & treatment())

    def score(i: int) -> tuple[bool, float, float, int]:
        # A dose question is answered by a sentence with a dose in it, before any other.
        # A line under a lead-in ("First line:") says it too; a line naming a drug answers which drug to give.
        s = source.sentences[i]
        said = s.words | s.label | (_kinds(s.text) if treats else frozenset())
        return (
            _answers(part, s, needs),
            ctx._mass(part.own & said),
            ctx._mass(part.want & said),
            -i,
        )

    best = max(usable, key=score)
    chosen: set[int] = set()

    def take(i: int) -> None:
        chosen.add(i)
        while source.sentences[i].refers_back and i > 0 and i - 1 not in chosen:
            i -= 1
            chosen.add(i)

    take(best)
    first = set(chosen)  # the best line and what it refers back to
    for i in _supporting(ctx, part, source, [i for i in usable if i not in chosen], best, needs):
        if len(chosen) >= limit:
            break
        before = set(chosen)
        take(i)
        # Its antecedents do not fit, or it would make the answer a page: leave it out.
        if len(chosen) > limit or sum(len(source.sentences[j].text) for j in chosen) > chars:
            chosen = before
    # A line that gives the duration asked for opens the answer ("… prednisolone for at least 5 days" before
    # "A severe attack includes …"); otherwise the source's order.
    lead = sorted(first) if needs == {"long"} and _answers(part, source.sentences[best], needs) else []
    # A line that gives the treatment asked for leads even before the statement it refers back to ("A score of
    # 0 …; amoxicillin … is first-line" before "Use the CRB-65 score …"), which follows to say what it means; a
    # lead-in ("… antibiotic options:") or a heading stays before the line it introduces.
    said_before = [source.sentences[i].text.rstrip() for i in first if i != best]
    if said_before and treats and not part.want & ANSWER_TYPES and all(t.endswith(".") for t in said_before):
        lead = [best] if _answers(part, source.sentences[best], needs) else lead
    return [source.sentences[i] for i in lead + sorted(chosen - set(lead))]


def _supporting(
    ctx: Context, part: Part, source: Source, candidates: list[int], best: int, needs: set[str]
) -> list[int]:
    """The sentences that may join the best one, the most relevant first: those on the part's subject, or on
    the best one's where the best one says something of the part (a best line that shares no word with the
    part is only the first of a passage chosen by its title, and its words make no topic)."""
    anchor = source.sentences[best].words if source.sentences[best].words & part.own else frozenset()
    # A line on the class of a drug asked about answers for it ("Severe: SSRI + CBT" for sertraline).
    classes = {c for w in part.want | anchor for c in _classes_of(w)}
    # A best line of a few words that gives nothing the part needs ("CAP Low severity" for the antibiotic to
    # give) is a heading of what follows it: the line below it says what it heads.
    first = source.sentences[best]
    heads = bool(needs) and bool(HEADING_PHRASE.match(first.text)) and not _answers(part, first, needs)
    # A question about the source's whole topic ("How do I treat a UTI in pregnancy?") takes all of it;
    # a narrower one ("What dose of amlodipine?") only the sentences that share its words.
    whole = {w for w in part.own if not generic(w) and w not in facets()} <= source.topic
    # A line that singles out the age group asked about ("elderly" for an 85 year old) before the others,
    # where neither the title nor the best line is about that group already.
    singled = part.want & _age_words() - source.topic - anchor
    support = []
    for i in candidates:
        s = source.sentences[i]
        shares = {w for w in (part.want | anchor) & s.words if not generic(w)}
        of_class = bool(classes) and bool(classes & _classes_named(s.text))
        follows = (s.refers_back or heads) and i - 1 == best
        # "Trimethoprim … is an alternative" belongs with the treatment it is the alternative to.
        alternative = "alternative" in s.words and "dose" in anchor
        # The best sentence names the subject but not the dose asked for: the sentence with the dose.
        answers = _answers(part, s, needs) and not _answers(part, source.sentences[best], needs)
        if _off_topic(part, source.sentences[best], s, follows):
            continue
        if _others_quantity(part, s):
            continue  # "valaciclovir 1000 mg" does not join the answer to a steroid's dose
        if whole or shares or of_class or follows or alternative or answers:
            support.append((not singled & s.words, -ctx._mass(part.want & s.words), abs(i - best), i))
    return [i for *_, i in sorted(support)]


def _off_topic(part: Part, best: Sentence, s: Sentence, follows: bool) -> bool:
    """A sentence that must not support the best one: a heading line ("Trauma"), which says nothing of its
    own, or one labelled for another indication when the best one's label is the one the question names
    ("Postpartum hemorrhage: …" after "Trauma-associated hemorrhage: …" for a question on trauma)."""
    if len(s.words) < MIN_SUPPORT_WORDS and not follows:
        return True
    mine = {w for w in best.label & part.want if not _aspect(w)}  # "Trauma", not "Dose"
    return bool(mine and s.label) and not {w for w in s.label & part.want if not _aspect(w)}


@cache
def _kinds(text: str) -> frozenset[str]:
    """What a line names a drug as: "drug" and the drug's classes ("Amoxicillin …" gives an antibiotic), for a
    question that asks which drug, antibiotic or medicine to give."""
    classes = _classes_named(text)
    return frozenset({"drug"}.union(*(content_words(c) for c in classes))) if classes else frozenset()
