"""The offline grounding judge: does an excerpt say what a claim says? Deterministic, no weights.

Precision first. A claim is *supported* only when every content element of it is accounted for in the
excerpt (``elements``): its drugs and drug classes, populations, line of therapy, the strength of what it
says, its numbers with what they are attached to, its negation and direction (the ``veto``), and every other
content word in some spelling, form, synonym or class (``reading``, ``lexicon``). An element the excerpt
says otherwise makes it *contradicted*; one the excerpt does not give makes it *not established*. Each
verdict names the element that decided it, with a reason that quotes what was compared.

The same contradiction checks stand over any judge's "grounded" (``conflict``): a model's verdict does not
outrank a wrong drug, population, strength or number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hippo_tui.verification.binding import agents
from hippo_tui.verification.elements import Excerpt, Finding, Outcome, check_words, first_finding
from hippo_tui.verification.markers import ABBREVIATIONS
from hippo_tui.verification.per_weight import worked_out
from hippo_tui.verification.reading import as_quoted, read, sentences
from hippo_tui.verification.veto import SENTENCE_STOP, check_claim

# An excerpt's sentence that addresses whoever checks it is an injection, not evidence.
_TO_THE_JUDGE = re.compile(
    # "grounded" and "checker" as said to a checker, not as in "policies grounded in a national plan" or "an
    # interactions checker" in a real guideline.
    r"\b(?:ignore (?:all |any |the )?(?:previous|prior|above|earlier|rest|other)|"
    r"(?:is|are|as|be|this|it|them|answer|reply|respond|mark|verified and) grounded(?!\s+(?:in|on|by)\b)|grounded\s*[:=]|"
    r"(?:reply|respond|answer) with|(?:previous|prior|these|my|new) instructions|(?:to|for) the (?:checker|verifier)|"
    r"(?:checker|verifier)\s*[:,]|"
    r"mark (?:every|all|each|this|these|the) (?:claims?|sources?|citations?|excerpts?|answers?))\b|"
    r"^\W*(?:system|assistant)\s*[:,]",
    re.I,
)
# The veto's reasons that say a number is absent (not that the excerpt gives another one).
_ABSENT = re.compile(r"; the excerpt does not give ")


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str = ""
    element: str | None = None

    @property
    def supported(self) -> bool:
        return self.outcome == "supported"


@lru_cache(maxsize=256)
def _excerpt(excerpt: str) -> tuple[str, Excerpt, frozenset[str]]:
    """The excerpt read once: every claim citing it, and the check after a judge's verdict, use this reading.
    With its sentences as written (``as_quoted``), to tell a claim that quotes them."""
    kept = [s for s in sentences(excerpt) if not _TO_THE_JUDGE.search(s)]
    text = "\n".join(kept)  # a line of a list stays its own sentence for the veto, as for the answerer
    return text, Excerpt(read(text), tuple(read(s) for s in kept)), frozenset(map(as_quoted, kept))


def _quotes(claim: str, written: frozenset[str]) -> bool:
    """Whether every sentence of ``claim`` is one of the excerpt's, word for word. Its own sentence cannot
    contradict a quote: when a check finds it does, the check misread the sentence (a bracket, a list), and
    an offline answer, which quotes, would lose a true citation. What the quote leaves out (a condition put
    in a sentence before it) is still not established."""
    said = sentences(claim)
    return bool(said) and all(_quoted(s, written) for s in said)


def _quoted(sentence: str, written: frozenset[str]) -> bool:
    """Whether ``sentence`` is the excerpt's, or several of its sentences joined by semicolons (which a
    sentence of the excerpt may have of its own)."""
    if as_quoted(sentence) in written:
        return True
    pieces = sentence.split("; ")
    return any(
        as_quoted("; ".join(pieces[:i])) in written and _quoted("; ".join(pieces[i:]), written)
        for i in range(1, len(pieces))
    )


def _finding(f: Finding) -> Verdict:
    return Verdict(f.outcome, f.reason, f.element)


def _vetoed(claim: str, text: str) -> Verdict | None:
    reason = check_claim(claim, text) if text else None
    if reason is None:
        return None
    if _ABSENT.search(reason):
        return Verdict("not_established", reason, "number")
    return Verdict("contradicted", reason, "veto")


# A claim that says two things ("A is first line; B is an alternative", "… 4 g in 24 hours. For children, …",
# "A for men, whereas B for women") is judged a part at a time: each part's drugs, people and line of treatment
# are its own.
_PARTS = re.compile(SENTENCE_STOP + r"(?=[A-Z0-9“\"(])")  # "etc. cannot be learned" goes on
_HALVES = re.compile(r";\s+|,\s+(?:whereas|while(?!\s+\w+ing\b))\s+")  # not "while taking": during
# Elements read over the whole claim, which two statements joined may mix up; a number or a negation is read
# where it is said, so its contradiction stands.
_CLAIM_WIDE = frozenset({"population", "line of therapy", "modality", "condition", "word", "drug"})
_CONTRASTED = frozenset({"population", "line of therapy", "modality", "condition"})


def judge_claim(claim: str, excerpt: str) -> Verdict:
    """The offline judge's verdict on one claim."""
    parts = _parts(claim, _PARTS, ". ")
    if len(parts) > 1:
        return _worst([_judge_part(p, excerpt) for p in parts])
    whole = _judge_part(claim, excerpt)
    # Two statements joined by a semicolon or set against each other, which the excerpt makes in two
    # sentences: each as said there. Set against each other, only for who or what each is about: the
    # connective itself is a word no excerpt has, and a medicine's words said of another stay a finding.
    halves = _parts(claim, _HALVES, "; ", named=True)
    wide = _CLAIM_WIDE if ";" in claim else _CONTRASTED
    if whole.supported or whole.element not in wide or len(halves) < 2:
        return whole
    each = _worst([_judge_part(p, excerpt) for p in halves])
    return each if each.supported else whole


def _parts(claim: str, boundary: re.Pattern[str], joiner: str, *, named: bool = False) -> list[str]:
    """The claim's parts between ``boundary``s, one that speaks of the one before ("It is first line.") kept
    with it, joined as the claim joins them; or, when ``named``, with "it" named as the one medicine of the
    part before ("A is given …; it is not recommended …": each half its own statement about A)."""
    parts: list[str] = []
    for p in boundary.split(claim):
        if parts and named and (subject := _it_is(p, parts[-1])):
            parts.append(subject)
        elif parts and (_ANAPHOR.match(p) or len(p.split()) < 3 or _abbreviation_ends(parts[-1])):
            parts[-1] = f"{parts[-1]}{joiner}{p}"
        else:
            parts.append(p)
    return parts


def _abbreviation_ends(part: str) -> bool:
    """The part stopped at an abbreviation's full stop ("Max. 300 mg in 24 hours"), not a sentence's."""
    words = part.split()
    return bool(words) and words[-1].lower() in ABBREVIATIONS


_IT = re.compile(r"(?i)it\b(?!')")


def _it_is(part: str, before: str) -> str | None:
    """``part`` with its leading "it" replaced by the one medicine ``before`` names, if it names one."""
    medicines = agents(read(before))
    if not _IT.match(part) or len(medicines) != 1:
        return None
    return f"{next(iter(medicines)).capitalize()}{part[2:]}"


_ANAPHOR = re.compile(
    r"(?i)(?:it|its|they|their|them|this|these|that|those|he|she|his|her|both|either|the same)\b"
)


def _judge_part(claim: str, excerpt: str) -> Verdict:
    text, ex, written = _excerpt(excerpt)
    claim = worked_out(claim, text)  # "a 20 kg child … 200 mL" as the excerpt's "10 mL/kg"
    mine = read(claim)
    if not text:
        return Verdict("not_established", "the excerpt has no text to check against", "excerpt")
    quoted = _quotes(claim, written)
    found = first_finding(mine, ex, quoted=quoted)
    if found is not None and found.outcome == "contradicted":
        return _finding(found)
    vetoed = None if quoted else _vetoed(claim, text)
    if vetoed is not None and (vetoed.outcome == "contradicted" or found is None):
        return vetoed
    if found is not None:
        return _finding(found)
    words = check_words(mine, ex)
    return _finding(words) if words is not None else Verdict("supported")


def conflict(claim: str, excerpt: str) -> Verdict | None:
    """What overturns any judge's "grounded": a contradiction, or a number the excerpt does not give."""
    text, ex, written = _excerpt(excerpt)
    if _quotes(claim, written):
        return None
    claim = worked_out(claim, text)
    found = first_finding(read(claim), ex)
    if found is not None and found.outcome == "contradicted":
        return _finding(found)
    return _vetoed(claim, text)


def judge_source(claims: Sequence[str], excerpt: str) -> Verdict:
    """A source is supported when every claim citing it is; contradicted when any is; else not established."""
    verdicts = [judge_claim(c, excerpt) for c in claims]
    return _worst(verdicts) if verdicts else Verdict("not_established", "no claim cites it", "claim")


def _worst(verdicts: Sequence[Verdict]) -> Verdict:
    for outcome in ("contradicted", "not_established"):
        bad = [v for v in verdicts if v.outcome == outcome]
        if bad:
            more = f" (and {len(bad) - 1} more claims)" if len(bad) > 1 else ""
            return Verdict(outcome, bad[0].reason + more, bad[0].element)
    return Verdict("supported")


def supports(claim: str, excerpt: str) -> bool:
    return judge_claim(claim, excerpt).supported


def judge(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Verdicts for a grounding request, in the ``{"checks": [{"source_id", "grounded"}]}`` shape."""
    checks = []
    for item in items:
        claims = [c for c in item.get("claims") or [] if isinstance(c, str)]
        verdict = judge_source(claims, str(item.get("excerpt") or ""))
        checks.append({"source_id": str(item.get("source_id")), "grounded": verdict.supported})
    return {"checks": checks}
