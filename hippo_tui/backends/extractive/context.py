"""Everything the model can see in one request: the question, the sources, what it searched already."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hippo_tui.backends import passage_text
from hippo_tui.backends.extractive.choosing import ASPECT_WEIGHT, INHERITED, rank_sources
from hippo_tui.backends.extractive.drug_classes import _class_names
from hippo_tui.backends.extractive.parts import Part, _aspect, parts_of
from hippo_tui.backends.extractive.sources import Source, _idf, _source, _with_forms
from hippo_tui.backends.extractive.words import _sex_words, content_words
from hippo_tui.backends.spelling import corrected, slip_of_asking
from hippo_tui.backends.word_forms import source_forms
from hippo_tui.prompts import parse_sources, parse_unmentioned
from hippo_tui.verification.lexical import JUDGE_SYNONYMS

LONG_SLIP = 5  # letters of a slip of a word of asking read so even where some passage spells it


@dataclass
class Context:
    """Everything the model can see in one request."""

    question: str
    sources: list[Source]
    searched: list[str] = field(default_factory=list)  # queries it already sent to search_kb
    earlier: list[str] = field(default_factory=list)  # the conversation's questions before this one
    idf: dict[str, float] = field(default_factory=dict)
    absent: frozenset[str] = frozenset()  # words the search says no passage of the whole KB contains
    # a part's text -> the title of what answered it
    answered_by: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, Any]]) -> Context:
        asked: list[str] = []
        sources: dict[str, Source] = {}
        searched: list[str] = []
        titles: list[str] = []
        absent: set[str] = set()
        for m in messages:
            role, content = m.get("role"), message_text(m.get("content"))
            if role == "user":
                asked.append(content)
            elif role in ("system", "tool"):
                absent.update(w for said in parse_unmentioned(content) for w in content_words(said))
                for sid, title, excerpt in parse_sources(content):
                    titles.append(title)
                    if sid not in sources and not passage_text.is_apparatus(title):
                        sources[sid] = _source(sid, title, excerpt, len(sources))
            if role == "assistant":
                for call in m.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    try:
                        query = json.loads(fn.get("arguments") or "{}").get("query", "")
                    except (json.JSONDecodeError, AttributeError):
                        query = ""
                    if query:
                        searched.append(query)
        idf = _idf(list(sources.values()))
        texts = [x.text for s in sources.values() for x in s.sentences] + titles
        # A slip of a source's word, or of a class the lexicon knows ("steriod": the source names prednisone).
        question = corrected(asked[-1], [*texts, *_class_names()], content_words) if asked else ""
        return cls(
            question, list(sources.values()), searched, asked[-4:-1], idf=idf, absent=frozenset(absent)
        )

    def parts(self) -> list[Part]:
        """The question's parts, read against the sources: each source first read with the question's own form
        of a word it writes in another ("dislocated" where it says "dislocation"), so that the two forms match
        wherever either is written; a slip of a word of asking ("wich", "wat") that no passage contains is
        that word, asked about, not a subject; nor is a sex that no source names."""
        asked = {w for p in parts_of(self.question, self.earlier) for w in p.want}
        vocabulary = frozenset().union(*(s.words for s in self.sources)) if self.sources else frozenset()
        forms = source_forms(asked, vocabulary)
        if forms:
            self.sources = [_with_forms(s, forms) for s in self.sources]
            self.idf = _idf(self.sources)
        parts = parts_of(self.question, self.earlier, self.untitled)
        # "A pregnant woman …" where no source names either sex: guidance for everyone, and her sex is no
        # subject a source must repeat.
        named = {JUDGE_SYNONYMS.get(w, w) for w in vocabulary}  # "men" names men
        sexes = _sex_words() if not _sex_words() & named else frozenset()
        for p in parts:
            slips = {w for w in p.want if self._slip_of_asking(w, vocabulary)} | (p.want & sexes)
            p.want -= slips
            p.own = (p.own - slips) or p.own
        return parts

    def _slip_of_asking(self, word: str, vocabulary: frozenset[str]) -> bool:
        """A slip of a word of asking ("wich") that no passage contains; or a longer one ("befor") that no source
        here uses, though some passage of the knowledge base spells it so by a slip of its own. A short one a
        passage uses may be a word ("cold" is one letter from "could")."""
        if not slip_of_asking(word):
            return False
        return word in self.absent or (len(word) >= LONG_SLIP and word not in vocabulary)

    def untitled(self, words: set[str]) -> bool:
        """Some source uses each of ``words``, and no source's title names any: words said about a subject,
        not a subject ("immobilise", "reduction"; not "gout", which no source here uses)."""
        used = all(any(w in s.words for s in self.sources) for w in words)
        return bool(words) and used and not any(w in s.topic for s in self.sources for w in words)

    def weight(self, w: str) -> float:
        # Words no source uses weigh the most: a part about them is not covered.
        return self.idf.get(w, math.log(1 + max(len({s.title for s in self.sources}), 1)) + 0.5)

    def _mass(self, ws: Iterable[str]) -> float:
        return sum(self.weight(w) for w in ws)

    def _source_mass(self, ws: Iterable[str], inherited: frozenset[str] = frozenset()) -> float:
        return sum(
            self.weight(w) * (ASPECT_WEIGHT if _aspect(w) else 1.0) * (INHERITED if w in inherited else 1.0)
            for w in ws
        )

    def rank_sources(
        self, part: Part, among: Sequence[Source] | None = None, *, pooled: bool = True
    ) -> list[tuple[float, Source]]:
        """Sources that touch the part's own words, by coverage of the part (``choosing.rank_sources``)."""
        return rank_sources(self, part, among, pooled=pooled)


def message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""
