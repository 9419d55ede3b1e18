"""The offline model's mind: a deterministic extractive answerer and a lexical grounding judge. No weights.

The answerer reads the sources in its context (the same ``<source>`` blocks a real model gets), splits the
question into parts, answers each part with the sentences that best match it and cites each with its
source's id. A part no source covers makes it call ``search_kb`` (once per part), as a real model would;
after the search, a part still uncovered is said to be uncovered, never invented.

The judge passes a source when one of its claims shares enough content words with a sentence of the excerpt,
every number / dose / unit in the claim appears in the excerpt, and the claim and that sentence agree on
negation and on direction ("over 55" is not "under 55").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hippo_tui.citations import split_sentences, strip_markers
from hippo_tui.prompts import SEARCH_TOOL_NAME, parse_sources

_WORD = re.compile(r"[a-z0-9]+(?:[.'-][a-z0-9]+)*")
_STOP = frozenset(
    """a about above after again all also am an and any are as at be been before being below between both but by
    can could did do does doing done during each either few for from further had has have having he her here hers
    how i if in into is it its itself just may me might more most much must my no nor not of off on once only or
    other our out over own per same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours tell please give list explain describe know recommended recommend usual usually best use used
    using patient patients adult adults often much many give given take taken start started need needed
    happen happens""".split()
)
_NEGATION = frozenset(
    "not no never without avoid avoided don't doesn't shouldn't mustn't cannot can't isn't aren't none neither "
    "nor contraindicated".split()
)
# A number with an optional unit: doses, durations, percentages.
_QUANTITY = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(mg|mcg|µg|g|kg|ml|l|mmol|units?|iu|%|days?|hours?|h|weeks?|months?|years?|"
    r"times|x|mmhg|°c|c)?\b",
    re.I,
)
_PART_SPLIT = re.compile(
    r"\?|;|\n|\band also\b|(?:,?\s+and|,)\s+(?=(?:what|how|which|when|who|why|is|are|does|do|should|can|"
    r"could|would|will|must|may)\b)",
    re.I,
)

COVERED = 0.5  # share of a part's (idf-weighted) content words a sentence must contain to answer it


def _stem(word: str) -> str:
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 5 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower())]


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in _STOP and (len(w) > 1 or w.isdigit())}


_DOSE_UNITS = frozenset("mg mcg µg g ml l mmol unit iu".split())
_TIME_UNITS = frozenset("day hour h week month year".split())


_MORE = re.compile(r"\b(?:over|above|older|more than|at least|or more|or over|or higher)\b", re.I)
_LESS = re.compile(r"\b(?:under|below|younger|less than|fewer than|or less|or lower)\b", re.I)


def comparators(text: str) -> set[str]:
    """ "Over 55" and "under 55" share every content word: these tell them apart."""
    return ({"more-than"} if _MORE.search(text) else set()) | ({"less-than"} if _LESS.search(text) else set())


def part_words(text: str) -> set[str]:
    return content_words(text) | comparators(text)


def sentence_words(text: str) -> set[str]:
    """Content words, plus what its quantities answer: a dose answers "dose", a duration "how long"."""
    out = content_words(text) | comparators(text)
    units = {q.lstrip("0123456789.") for q in quantities(text)}
    if units & _DOSE_UNITS:
        out |= {"dose", "dosage", "dosing"}
    if units & _TIME_UNITS:
        out |= {"long", "duration"}
    return out


def quantities(text: str) -> set[str]:
    """Normalised numbers with units (``500mg``, ``3day``) found in ``text``."""
    out = set()
    for num, unit in _QUANTITY.findall(text):
        out.add(num.replace(",", ".") + _stem((unit or "").lower()))
    return out


def has_negation(text: str) -> bool:
    return any(w in _NEGATION for w in _WORD.findall(text.lower().replace("n't", " not")))


def question_parts(question: str) -> list[str]:
    parts = [p.strip(" ,.") for p in _PART_SPLIT.split(question)]
    return [p for p in parts if content_words(p)] or ([question.strip()] if question.strip() else [])


@dataclass(frozen=True)
class Candidate:
    source_id: str
    sentence: str
    words: frozenset[str]


@dataclass
class Context:
    """Everything the model can see in one request."""

    question: str
    candidates: list[Candidate]
    searched: list[str] = field(default_factory=list)  # queries it already sent to search_kb
    idf: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, Any]]) -> Context:
        question = ""
        candidates: list[Candidate] = []
        seen: set[tuple[str, str]] = set()
        searched: list[str] = []
        for m in messages:
            role, content = m.get("role"), _text(m.get("content"))
            if role == "user":
                question = content
            elif role in ("system", "tool"):
                for sid, title, excerpt in parse_sources(content):
                    # The title is context for every sentence of its source ("cystitis" names the topic).
                    topic = content_words(title)
                    for sentence in split_sentences(excerpt):
                        key = (sid, sentence.strip())
                        if key[1] and key not in seen:
                            seen.add(key)
                            candidates.append(
                                Candidate(sid, key[1], frozenset(sentence_words(sentence) | topic))
                            )
            if role == "assistant":
                for call in m.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    try:
                        query = json.loads(fn.get("arguments") or "{}").get("query", "")
                    except (json.JSONDecodeError, AttributeError):
                        query = ""
                    if query:
                        searched.append(query)
        n = max(len(candidates), 1)
        df: dict[str, int] = {}
        for c in candidates:
            for w in c.words:
                df[w] = df.get(w, 0) + 1
        idf = {w: math.log(1 + n / d) for w, d in df.items()}
        return cls(question=question, candidates=candidates, searched=searched, idf=idf)

    def _weight(self, w: str) -> float:
        # Words no source uses weigh the most: a part about them is not covered.
        return self.idf.get(w, math.log(1 + max(len(self.candidates), 1)) + 1.0)

    def best(self, part: str, limit: int = 2) -> list[tuple[float, Candidate]]:
        want = part_words(part)
        if not want:
            return []
        total = sum(self._weight(w) for w in want)
        scored = []
        for i, c in enumerate(self.candidates):
            hit = want & c.words
            if hit:
                scored.append((sum(self._weight(w) for w in hit) / total, -i, c))
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        top = [(s, c) for s, _, c in scored[:limit] if s >= COVERED]
        # A second sentence only when it is nearly as good as the first.
        return [top[0], *[x for x in top[1:] if x[0] >= 0.85 * top[0][0]]] if top else []

    def was_searched(self, part: str) -> bool:
        want = content_words(part)
        return any(want and len(want & content_words(q)) >= max(1, len(want) // 2) for q in self.searched)


@dataclass
class Reply:
    """One model turn: sentences with the id each cites (None: an uncited statement), then maybe a tool call."""

    sentences: list[tuple[str, str | None]]
    search: str | None = None


def answer(messages: Sequence[Mapping[str, Any]], *, tools: Iterable[str] = ()) -> Reply:
    ctx = Context.from_messages(messages)
    parts = question_parts(ctx.question)
    can_search = SEARCH_TOOL_NAME in set(tools)
    out: list[tuple[str, str | None]] = []
    used: set[str] = set()
    uncovered: list[str] = []
    for part in parts:
        best = ctx.best(part)
        if not best:
            uncovered.append(part)
            continue
        for _score, c in best:
            if c.sentence not in used:
                used.add(c.sentence)
                out.append((c.sentence, c.source_id))
    for part in uncovered:
        if can_search and not ctx.was_searched(part):
            return Reply(out, search=_query(part))
    for part in uncovered:
        out.append((f"The knowledge base I was given does not cover “{part.strip()}”.", None))
    if not out:
        out.append(("I could not find anything about this in the knowledge base.", None))
    return Reply(out)


def _query(part: str) -> str:
    return " ".join(w for w in _WORD.findall(part.lower()) if w not in _STOP)[:120] or part[:120]


def render(reply: Reply) -> str:
    """The reply's text with ``[id]`` markers, as a model would write it."""
    pieces = []
    for sentence, sid in reply.sentences:
        s = sentence.rstrip()
        pieces.append(f"{s} [{sid}]" if sid else s)
    return " ".join(pieces)


# -- the lexical judge ---------------------------------------------------------------------------


def supports(claim: str, excerpt: str) -> bool:
    claim_text = strip_markers(claim)
    want = content_words(claim_text)
    if not want:
        return False
    if not quantities(claim_text) <= quantities(excerpt):
        return False
    best_overlap, best_sentence = 0.0, ""
    for sentence in split_sentences(excerpt) or [excerpt]:
        overlap = len(want & content_words(sentence)) / len(want)
        if overlap > best_overlap:
            best_overlap, best_sentence = overlap, sentence
    if best_overlap < 0.6:
        return False
    if not comparators(claim_text) <= comparators(best_sentence):  # "under 55" is not "55 or over"
        return False
    return has_negation(claim_text) == has_negation(best_sentence)


def judge(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Verdicts for a grounding request, in the ``{"checks": [{"source_id", "grounded"}]}`` shape."""
    checks = []
    for item in items:
        claims = [c for c in item.get("claims") or [] if isinstance(c, str)]
        excerpt = str(item.get("excerpt") or "")
        checks.append(
            {"source_id": str(item.get("source_id")), "grounded": any(supports(c, excerpt) for c in claims)}
        )
    return {"checks": checks}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""
