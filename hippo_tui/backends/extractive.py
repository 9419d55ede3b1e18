"""The offline model's mind: a deterministic extractive answerer. No weights (its judge: ``verification.offline_judge``).

The answerer reads the sources in its context (the same ``<source>`` blocks a real model gets, in the order
retrieval ranked them), splits the question into parts and answers each part from the source that covers it
best: that source's best sentence plus the sentences of the same source that share its topic, in source order,
each cited with the source's id; a second source joins only for a subject the first does not mention ("dose of
paracetamol and ibuprofen"). Subjects (drugs, conditions) choose the source; facets ("dose", "how long") and
numbers choose among its sentences, and a dose question wants a sentence with a dose in it: the dose of the
drug asked about (not of another drug the sentence names), for the group asked about (not children's for an
adult); a source whose doses are all another drug's or group's does not answer it, nor does a card on another
group (non-pregnant women, for pregnancy). A sentence that refers back ("A score of 0 …", "The dose is …")
never goes out without the sentence it refers to. A follow-on part ("… and what dose?", or a next question
"And in men?") inherits the subject of the part or question before it. A part no source covers makes it call
``search_kb`` (once per part), as a real model would; after the search, a part still uncovered is said to be
uncovered, never invented. A part is not covered when no source mentions one of its subjects at all, however
well the rest matches: a question on semaglutide for weight loss is not answered from a source on dyspepsia
that mentions weight loss.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any

from hippo_tui.backends import passage_text
from hippo_tui.backends.asked import TOOL_KINDS, other_type, quotation_chars, tool_names
from hippo_tui.backends.dose_owner import DOSE_KINDS, DURATION_KINDS, dose_groups, dose_owners
from hippo_tui.backends.spelling import corrected, slip_of_asking
from hippo_tui.backends.word_forms import source_forms
from hippo_tui.prompts import SEARCH_TOOL_NAME, parse_sources, parse_unmentioned
from hippo_tui.verification import ages, lexical
from hippo_tui.verification.lexical import (
    JUDGE_SYNONYMS,
    STOP,
    WORD,
    comparators,
    contradicts,
    generic,
    normal,
    stem,
)
from hippo_tui.verification.lexicon import lexicon, respell
from hippo_tui.verification.lexicon import stem as lexicon_stem
from hippo_tui.verification.markers import split_sentences

__all__ = ["Reply", "answer", "content_words", "question_parts", "render"]


def as_sources_say(text: str) -> str:
    """``text`` in the words the lexicon reads for it: one spelling, abbreviations and lay terms as a source
    writes them ("pt on a blood thinner" as "patient on an anticoagulant"). Questions and sources are both
    read so, so that neither side's wording decides what matches."""
    text = lexicon().replaced(respell(_NON.sub(r"\1\2", _POSSESSIVE.sub("", text.lower()))))
    return _TYPE.sub(r"type\1", text)


# "Bell's palsy" and "bells palsey" are one name: the possessive is no part of it.
_POSSESSIVE = re.compile(r"(?<=[a-z])['’]s?\b")

# "Non-pregnant" is one word, not "pregnant" (a card on non-pregnant women does not answer for pregnancy), however
# it is written ("non pregnant"); and "pre-eclampsia" is "preeclampsia", as either is written.
_NON = re.compile(r"\b(non)[- ](?=[a-z])|\b(pre|post)-(?=[a-z])")


# "Type 1" and "type 2" diabetes are two conditions, not a condition and a number.
_TYPE = re.compile(r"\btype\s+([12])\b")


@cache
def _everyday() -> frozenset[str]:
    return frozenset(normal(w) for word in lexicon().everyday for w in lexical.words(word))


def _lexicon_words(phrases: Iterable[str]) -> frozenset[str]:
    return frozenset(_one_word(normal(stem(w))) for phrase in phrases for w in lexical.words(phrase))


@cache
def _age_words() -> frozenset[str]:
    return _axis_words("age")


@cache
def _default_population_words() -> frozenset[str]:
    """The lexicon's populations that are everyone but a group ("non-pregnant"): what guidance is for unless
    it says otherwise, so no subject a source must name."""
    pops = lexicon().populations.items()
    return frozenset(w for phrase, (_axis, group) in pops if group.startswith("not ") for w in content_words(phrase))


@cache
def _sex_words() -> frozenset[str]:
    return _axis_words("sex")


def _axis_words(axis: str) -> frozenset[str]:
    return _lexicon_words(w for w, (a, _group) in lexicon().populations.items() if a == axis)


@cache
def _not_subjects() -> frozenset[str]:
    """Words a question may use that no source need contain for the question to be covered: what giving a
    treatment is called (the lexicon's light words) and qualifiers ("severe", "usual")."""
    lex = lexicon()
    return _lexicon_words(lex.qualifiers) | {_one_word(w) for w in lex.light}


@cache
def _class_names() -> tuple[str, ...]:
    return tuple(lexicon().class_words)


@cache
def _one_word(word: str) -> str:
    """A word of a synonym group as the group's first word ("baby" as "infant"), in the answerer's stemming."""
    head = lexicon().group_heads.get(lexicon_stem(word))
    return normal(stem(head)) if head and " " not in head else word


def _grouped(words: set[str]) -> set[str]:
    return {_one_word(w) for w in words}


def content_words(text: str) -> set[str]:
    return _grouped(lexical.content_words(as_sources_say(text)))


def part_words(text: str) -> set[str]:
    """What a question part asks about, without the everyday words of asking ("can I keep giving …"); an age
    ("a 6 week old", "62 years old") is its age group, not a number and a unit a source must repeat."""
    words = _grouped(lexical.part_words(as_sources_say(ages.as_groups(text))) - _everyday())
    # "An 85 yo" is an adult, and one of the older people a source may single out ("elderly (>80 years old)").
    if any(int(m.group(1) or m.group(2)) >= OLDER_AGE for m in ages.AGE.finditer(text)):
        words |= content_words("older")
    if _HOW_SOON.search(text):
        return words | {"long"}
    # "The most paracetamol an adult may take", "max naproxen a day": a drug's dose, asked without the word.
    if not words & {"long", "duration"} and _asks_amount(text):
        return words | {"dose"}
    return words


def _asks_amount(text: str) -> bool:
    """``text`` asks how much of a drug it names: a maximum or a unit of mass beside a drug, or "the most"
    of one."""
    drugs = [m.group(1) for m in _MOST.finditer(text)]
    if any(_classes_of(w) for d in drugs for w in content_words(d)):
        return True
    return bool(_AMOUNT.search(text)) and any(_classes_of(w) for w in content_words(text))


_MOST = re.compile(r"\bthe most ([a-z-]+)", re.I)
_AMOUNT = re.compile(
    r"\bmax(?:imum|imal)?\b|\b(?:mg|mcg|micrograms?|milligrams?)\b"
    r"|\bhow many (?:tablets|pills|capsules|doses)\b",
    re.I,
)
OLDER_AGE = 65  # from this age a question is also about older people


# Asking for a time as "how long" does: the answer is a sentence with a time in it.
_HOW_SOON = re.compile(
    r"\bhow (?:quick(?:ly)?|soon|fast|many (?:minutes|hours|days|weeks))\b|\bwhen does\b.*\b(?:start|occur|kick)",
    re.I,
)


def sentence_words(text: str) -> set[str]:
    words = _grouped(lexical.sentence_words(as_sources_say(text)))
    # "Patients age > 50 years" gives an age, not how long: it answers no "how long" question.
    if "long" in words and _AGED.search(text) and "long" not in lexical.sentence_words(_AGED.sub(" ", text)):
        words -= {"long", "duration"} - content_words(text)
    return words


_AGED = re.compile(
    r"\b(?:age[ds]?|elderly|older|younger|over|under)\s*\(?\s*(?:[<>≥≤]=?|of|over|under|above|below)?\s*"
    r"\d+\s*(?:years?|yrs?|y)(?:\s+(?:old|of age))?\b"
    r"|\(?[<>≥≤]=?\s*\d+\s*(?:years?|yrs?)\s+(?:old|of age)\b",
    re.I,
)


MIN_SUPPORT_WORDS = 2  # a supporting sentence with fewer content words is a heading, not a statement
COVERED = 0.5  # share of a part's (idf-weighted) words a source must contain to answer it
MAX_SENTENCES = 4  # per question part, from its main source
INHERITED = 0.5  # a follow-on's inherited subject helps choose its source but need not all be in it
ASPECT_WEIGHT = 0.35  # facets and numbers choose among a subject's sentences; subjects choose the source
UNANSWERED = 0.6  # a source with no dose for a dose question (no duration for "how long") counts for less
ANSWER_TYPES = frozenset({"dose", "long"})  # what sentence_words derives from quantities
FACET_QUERY = {"dose": "dose", "long": "duration"}  # each answer type as a source heads it
# Asking what to treat with is asking for a regimen: among a source's sentences, the one with a dose.
TREATMENT = frozenset(
    normal(stem(w)) for w in "treat antibiotic drug medicine medication therapy prescribe".split()
)
# Words a question uses that name no subject: not knowing them is not a reason to abstain.
GENERAL = frozenset({"without", "within", "get", "new"})
RANK_PENALTY = 0.04  # per retrieval rank: between two near-equal sources, the one retrieval ranked higher
# Between sources that cover a part about equally, the one whose title names its subjects ("Type 1 diabetes ›
# Monitoring" for an HbA1c target in type 1 diabetes, over a lipid card that mentions type 1 and HbA1c).
TITLE_WEIGHT = 0.1
LONG_SLIP = 5  # letters of a slip of a word of asking read so even where some passage spells it
SECOND_SOURCE_SHARE = 0.2  # a second source joins when it covers this much of what the first left out

_PART_SPLIT = re.compile(
    r"\?|;|\n|\band also\b|(?:,?\s+and|,)\s+(?=(?:for\s+)?(?:what|how|which|when|who|why|is|are|does|do|should|can|"
    r"could|would|will|must|may)\b)",
    re.I,
)
# Aspects of a subject rather than subjects: a part made only of these asks about the subject before it.
FACETS = frozenset(
    normal(stem(w))
    for w in """dose dosage dosing long duration often frequency first line second choice treatment treat treated
    managed management option options alternative alternatives monitor monitoring target targets side effect
    effects interval maximum course route refer referral review stop stopping start starting daily frequently
    reduce reduced increase increased change work repeat repeated regimen""".split()
)
# What kind of tool a named one is: a card may call the "Truelove and Witts criteria" an index.
TOOL_KIND_WORDS = frozenset(normal(stem(w)) for w in TOOL_KINDS)
TOOL_KIND = f"(?:{'|'.join(TOOL_KINDS)})"
# "…, and what about children?", "And in men?": always about the subject before; so is a part with a pronoun
# ("when should it be reduced?"), mostly.
_CONTINUES = re.compile(r"^(?:and|but|also|or|(?:what|how)\s+about)\b", re.I)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|this|that|these|those)\b", re.I)
# A sentence opening like this continues the one before it.
_REFERS = re.compile(
    r"^(?:this|these|that|those|it|its|they|their|such|both|either|alternatively|otherwise|then|however|"
    r"if so|in that case|in this case)\b",
    re.I,
)
_HEAD = re.compile(r"^(the|a|an)\s+([a-z0-9]+)", re.I)
# "Avoid the combination …", "Give this dose …": a definite thing named in a sentence's first words.
_NAMED = re.compile(r"^(?:[a-z]+\s+){0,2}(?:the|this|these|such|that)\s+([a-z]+)", re.I)
_DEFINITE = frozenset(
    stem(w) for w in "dose combination drug vaccine score course same other treatment".split()
)


def question_parts(question: str) -> list[str]:
    parts = [p.strip(" ,.") for p in _PART_SPLIT.split(question)]
    return [p for p in parts if content_words(p)] or ([question.strip()] if question.strip() else [])


@dataclass(frozen=True)
class Sentence:
    text: str
    words: frozenset[str]
    refers_back: bool  # needs the sentence before it to make sense
    label: frozenset[str] = frozenset()  # its line's label ("Trauma: …"), or the label of the lines it follows
    sid: str = ""  # the passage it is quoted from


@dataclass(frozen=True)
class Source:
    id: str
    rank: int  # order of first appearance: retrieval rank, then search results in the order they came
    topic: frozenset[str]  # the title's content words
    sentences: tuple[Sentence, ...]
    words: frozenset[str]  # the title's and every sentence's
    ages: frozenset[str] = frozenset()  # the age groups its title names ("adults")
    text: str = ""  # its title and excerpt
    title: str = ""

    @cached_property
    def classes(self) -> frozenset[str]:
        """The drug classes it names, or names a member of: read only for a question naming a class."""
        return _classes_named(self.text)


def _refers_back(sentence: str, previous: str | None, topic: frozenset[str]) -> bool:
    if previous is None:
        return False
    if _REFERS.match(sentence):
        return True
    named = _NAMED.match(sentence)
    if named and stem(named.group(1).lower()) in _DEFINITE:  # "The dose is …", "Avoid the combination …"
        return True
    m = _HEAD.match(sentence)
    if not m:
        return False
    head = stem(m.group(2).lower())
    # "A score of 0 …" after the sentence that introduced the score ("A tetanus-prone wound" names the topic).
    return head not in topic and head in content_words(previous)


def _with_forms(source: Source, forms: Mapping[str, frozenset[str]]) -> Source:
    """``source`` with each asked word added wherever it writes one of that word's ``forms``."""

    def read(words: frozenset[str]) -> frozenset[str]:
        return words | {w for w, fs in forms.items() if fs & words}

    sentences = tuple(replace(x, words=read(x.words)) for x in source.sentences)
    return replace(source, topic=read(source.topic), sentences=sentences, words=read(source.words))


def _source(sid: str, title: str, excerpt: str, rank: int) -> Source:
    topic = frozenset(content_words(title))
    # A card's own footnote marks ("… 8 hours [3]") point to its reference list, not to a source of ours,
    # and read like one of our citation numbers: the quote goes without them.
    # A flattened list or chart is read a row at a time; a reference entry or a heading on its own never.
    texts = [
        row
        for s in split_sentences(excerpt)
        if (t := _FOOTNOTE.sub("", s).strip())
        for row in passage_text.rows(t)
        if not passage_text.is_junk(row)
    ]
    # A card's own key to its abbreviations is not quoted, but read: "BDQ" in its lines is bedaquiline.
    key = passage_text.expansions(excerpt)
    sentences = tuple(
        Sentence(
            t,
            frozenset(sentence_words(passage_text.expanded(t, key))),
            _refers_back(t, texts[i - 1] if i else None, topic),
            label,
            sid,
        )
        for i, (t, label) in enumerate(zip(texts, _labels(texts), strict=True))
    )
    groups = frozenset(_age_groups(title))
    words = topic.union(*(s.words for s in sentences))
    return Source(sid, rank, topic, sentences, words, groups, f"{title}\n{excerpt}", title)


@dataclass
class Part:
    """One question part: what it asks (``want``) and the words an answer must touch (``own``)."""

    text: str
    want: set[str]
    own: set[str]
    subject: str | None = None  # the earlier part a follow-on inherits its subject from
    inherited: frozenset[str] = (
        frozenset()
    )  # the subject's words (context for choosing a source, not required)

    @property
    def label(self) -> str:
        return f"“{self.text}” (for “{self.subject}”)" if self.subject else f"“{self.text}”"

    def query(self) -> str:
        return _query(f"{self.subject} {self.text}" if self.subject else self.text)


def _follows_on(text: str, *, same_question: bool) -> bool:
    words = content_words(text)
    if words <= FACETS or _CONTINUES.match(text):
        return True
    if not _PRONOUN.search(text):
        return False
    # Within one question "they" is whoever the question is about; a new question with a pronoun and
    # subjects of its own ("Is it safe to give naproxen with warfarin?") may be about something new.
    return same_question or len({w for w in words if w not in FACETS and not generic(w)}) <= 2


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
        if main is not None and (_follows_on(text, same_question=i > 0) or aside):
            inherited = frozenset(main.want - own)
            # "And how often is it taken?" asks nothing of its own the sources could show: the subject it is.
            out.append(
                Part(text, own | inherited, own or set(inherited), subject=main.text, inherited=inherited)
            )
            continue
        main = Part(text, own, own)
        out.append(main)
    return out


@dataclass
class Context:
    """Everything the model can see in one request."""

    question: str
    sources: list[Source]
    searched: list[str] = field(default_factory=list)  # queries it already sent to search_kb
    earlier: list[str] = field(default_factory=list)  # the conversation's questions before this one
    idf: dict[str, float] = field(default_factory=dict)
    absent: frozenset[str] = frozenset()  # words the search says no passage of the whole KB contains
    answered_by: dict[str, str] = field(default_factory=dict)  # a part's text -> the title of what answered it

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, Any]]) -> Context:
        asked: list[str] = []
        sources: dict[str, Source] = {}
        searched: list[str] = []
        titles: list[str] = []
        absent: set[str] = set()
        for m in messages:
            role, content = m.get("role"), _text(m.get("content"))
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
        question = corrected(asked[-1], [*texts, *_class_names()]) if asked else ""
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
        """Sources that touch the part's own words, by coverage of the part (retrieval rank breaks near-ties).
        A section split in several passages is read whole (``pooled``): its passages cover what any of them
        says, as the section does."""
        sections = _sections(self.sources) if pooled else {}
        first_rank = {s.title: s.rank for s in reversed(self.sources)} if pooled else {}
        total = self._source_mass(part.want, part.inherited) or 1.0
        subjects = {w for w in part.want if not _aspect(w)}
        needs = part.want & ANSWER_TYPES
        asked_for = _asked_ages(part.text)
        asked_classes = _class_words(part.want)
        named = _named_tools(part.text)
        names = [n for name in tool_names(part.text) for n in name]
        scored = []
        for s in among if among is not None else self.sources:
            hit = part.want & sections.get(s.title, s.words)
            if asked_classes:
                hit |= _classes_met(asked_classes - s.words, s.classes)
            if _calls_tool(s, names):
                hit |= part.want & TOOL_KIND_WORDS  # "Truelove and Witts criteria" it calls an index
            if not hit & part.own or (subjects and not hit & subjects):
                continue
            if contradicts(comparators(part.text), _directions(s)):
                continue
            if asked_for and s.ages and not asked_for & s.ages:
                continue  # a card on adults does not answer for a 4 year old
            if _other_population(part.text, s.title):
                continue  # nor one on non-pregnant women for a pregnant woman
            if any(not tool & s.words for tool in named):
                continue  # "HEART score" is not answered by a card on a pain score that never says "heart"
            if other_type(part.own, s.topic):
                continue  # a card on type 2 diabetes does not answer for type 1, whatever it mentions
            coverage = self._source_mass(hit, part.inherited) / total
            if needs and not any(_answers(part, x, needs) for x in s.sentences):
                coverage *= UNANSWERED
            titled = self._mass(subjects & s.topic) / (self._mass(subjects) or 1.0)
            # A section's passages rank as its best-ranked one, those whose own lines name a subject of the
            # part first: a passage saying nothing of it but its section's title answers nothing.
            rank = first_rank.get(s.title, s.rank)
            says = any(subjects & x.words for x in s.sentences) if subjects else True
            scored.append((coverage + TITLE_WEIGHT * titled - RANK_PENALTY * rank, says, -s.rank, coverage, s))
        scored.sort(key=lambda x: x[:3], reverse=True)
        return [(coverage, s) for *_, coverage, s in scored]

    def sentences_for(self, part: Part, source: Source, limit: int, chars: int = 10_000) -> list[Sentence]:
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

        def score(i: int) -> tuple[bool, float, float, int]:
            # A dose question is answered by a sentence with a dose in it, before any other.
            s = source.sentences[i]
            return (
                _answers(part, s, needs),
                self._mass(part.own & s.words),
                self._mass(part.want & s.words),
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
        for i in self._supporting(part, source, [i for i in usable if i not in chosen], best, needs):
            if len(chosen) >= limit:
                break
            before = set(chosen)
            take(i)
            # Its antecedents do not fit, or it would make the answer a page: leave it out.
            if len(chosen) > limit or sum(len(source.sentences[j].text) for j in chosen) > chars:
                chosen = before
        return [source.sentences[i] for i in sorted(chosen)]

    def _supporting(
        self, part: Part, source: Source, candidates: list[int], best: int, needs: set[str]
    ) -> list[int]:
        """The sentences that may join the best one, the most relevant first."""
        anchor = source.sentences[best].words
        # A question about the source's whole topic ("How do I treat a UTI in pregnancy?") takes all of it;
        # a narrower one ("What dose of amlodipine?") only the sentences that share its words.
        whole = {w for w in part.own if not generic(w) and w not in FACETS} <= source.topic
        # A line that singles out the age group asked about ("elderly" for an 85 year old) before the others,
        # where neither the title nor the best line is about that group already.
        singled = part.want & _age_words() - source.topic - anchor
        support = []
        for i in candidates:
            s = source.sentences[i]
            shares = {w for w in (part.want | anchor) & s.words if not generic(w)}
            follows = s.refers_back and i - 1 == best
            # "Trimethoprim … is an alternative" belongs with the treatment it is the alternative to.
            alternative = "alternative" in s.words and "dose" in anchor
            # The best sentence names the subject but not the dose asked for: the sentence with the dose.
            answers = _answers(part, s, needs) and not _answers(part, source.sentences[best], needs)
            if _off_topic(part, source.sentences[best], s, follows):
                continue
            if _others_quantity(part, s):
                continue  # "valaciclovir 1000 mg" does not join the answer to a steroid's dose
            if whole or shares or follows or alternative or answers:
                support.append((not singled & s.words, -self._mass(part.want & s.words), abs(i - best), i))
        return [i for *_, i in sorted(support)]

    def unknown_subjects(self, part: Part) -> set[str]:
        """What the part asks about (drugs, conditions: not facets, numbers or generic words) that no source
        in the context mentions at all, and that the search says no passage of the knowledge base contains
        ("edoxaban"). A part with one is not covered, however much else matches. A word other passages do use
        is no proof the subject is missing (it may be the asker's word for it, or a source's typo): it counts
        against the part's coverage instead, at the weight of a word no source uses."""
        # A sex no source names is no subject (``parts``); where one names women only, a question about a man
        # is not covered by it.
        known = {JUDGE_SYNONYMS.get(w, w) for s in self.sources for w in s.words}  # "man" is in "men"
        names = [n for name in tool_names(part.text) for n in name]
        return {
            w
            for w in part.own
            if not _aspect(w)
            and w not in TREATMENT
            and w not in GENERAL
            and not (w in TOOL_KIND_WORDS and any(_calls_tool(s, names) for s in self.sources))
            and JUDGE_SYNONYMS.get(w, w) not in known
            and not _member_named(w, known)
            and w in self.absent
        }

    def searched_alone(self, part: Part) -> set[str]:
        """The words of the part that a search asked for on their own: a query of fewer than half the part's
        own words and nothing else (``_subject_query``)."""
        out: set[str] = set()
        for q in self.searched:
            words = content_words(q)
            if words and words <= part.own and 2 * len(words) < len(part.own):
                out |= words
        return out

    def was_searched(self, part: Part) -> bool:
        want = content_words(part.query())
        return any(want and len(want & content_words(q)) >= max(1, len(want) // 2) for q in self.searched)


def _section(sources: Sequence[Source], main: Source) -> Source:
    """``main`` with the lines of the other passages of its section (its title) after its own: a section split in
    passages is read whole ("Start N-acetylcysteine if:" in one passage, the row that answers in the next);
    each line is cited to its own passage."""
    others = [x for s in sources if s.title == main.title and s.id != main.id for x in s.sentences]
    return replace(main, sentences=main.sentences + tuple(others)) if others else main


def _sections(sources: Sequence[Source]) -> dict[str, frozenset[str]]:
    """Each title's words: all its passages' together."""
    out: dict[str, frozenset[str]] = {}
    for s in sources:
        out[s.title] = out.get(s.title, frozenset()) | s.words
    return out


def _idf(sources: Sequence[Source]) -> dict[str, float]:
    """Document frequency over the sources' titles: a word every title's passages use tells them apart least.
    Passages under one title (a card's section, split in short passages) count once: three passages of the
    tramadol card do not make "tramadol" a common word that no longer tells the card from the others."""
    under: dict[str, set[str]] = {}
    for s in sources:
        under.setdefault(s.title, set()).update(s.words)
    n = max(len(under), 1)
    df: dict[str, int] = {}
    for words in under.values():
        for w in words:
            df[w] = df.get(w, 0) + 1
    return {w: math.log(1 + n / d) for w, d in df.items()}


def _age_groups(text: str) -> set[str]:
    """The age groups (the lexicon's "children", "adults", "older people") ``text`` names, in words or as an age."""
    lex = lexicon()
    words = WORD.findall(as_sources_say(text))
    groups = {g for w in words for axis, g in [lex.populations.get(w, ("", ""))] if axis == "age"}
    groups |= {lex.within.get(g, g) for g in groups}  # older people are adults
    return groups | ages.stated_groups(text)


def _asked_ages(text: str) -> set[str]:
    """The age groups a question is about: those it names, and adults for a pregnancy (a card on children's
    doses does not answer for a pregnant woman)."""
    pregnant = ("pregnancy", "pregnant") in _named_groups(text)
    return _age_groups(text) | ({"adults"} if pregnant else set())


@cache
def _named_groups(text: str) -> frozenset[tuple[str, str]]:
    """The populations other than age groups ``text`` names, each as (axis, group): ("pregnancy",
    "pregnant")."""
    pops = lexicon().populations
    said = {pops[w] for w in WORD.findall(as_sources_say(text)) if w in pops}
    return frozenset((axis, group) for axis, group in said if axis != "age")


def _other_population(asked: str, title: str) -> bool:
    """``title`` is limited to another group on an axis the question names: "non-pregnant women" for a
    question on pregnancy."""
    mine, theirs = _named_groups(asked), _named_groups(title)
    for axis in {a for a, _g in mine}:
        said = {g for a, g in theirs if a == axis}
        if said and not said & {g for a, g in mine if a == axis}:
            return True
    return False


_LABEL = re.compile(r"^([^:;.]{2,60}):\s")  # "Trauma-associated hemorrhage: …"
_FOOTNOTE = re.compile(r"\s*\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")  # a card's own "[3]", "[2, 4]"


def _labels(texts: Sequence[str]) -> list[frozenset[str]]:
    """Each line's label's content words ("Trauma-associated hemorrhage: …"); a line without one is under the
    label of the line before it ("If bleeding continues …" after "Postpartum hemorrhage: …")."""
    out, current = [], frozenset[str]()
    for t in texts:
        m = _LABEL.match(t)
        current = frozenset(content_words(m.group(1))) if m else current
        out.append(current)
    return out


def _off_topic(part: Part, best: Sentence, s: Sentence, follows: bool) -> bool:
    """A sentence that must not support the best one: a heading line ("Trauma"), which says nothing of its
    own, or one labelled for another indication when the best one's label is the one the question names
    ("Postpartum hemorrhage: …" after "Trauma-associated hemorrhage: …" for a question on trauma)."""
    if len(s.words) < MIN_SUPPORT_WORDS and not follows:
        return True
    mine = {w for w in best.label & part.want if not _aspect(w)}  # "Trauma", not "Dose"
    return bool(mine and s.label) and not {w for w in s.label & part.want if not _aspect(w)}


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


def _drugs_of(part: Part) -> set[str]:
    """The drugs the part itself names (not those inherited from the part before it)."""
    return {w for w in part.own - part.inherited if lexicon().drug_classes(w)}


def _names_drug(word: str) -> bool:
    """``word`` (a content word) names a drug or a drug class."""
    return bool(_classes_of(word) or _class_name(word))


@cache
def _drug_words(token: str) -> set[str]:
    """The drugs and drug classes one word of a sentence names."""
    return {w for w in content_words(token) if _names_drug(w)}


@cache
def _owners(text: str, kinds: frozenset[str] = DOSE_KINDS) -> set[str] | None:
    return dose_owners(text, _drug_words, kinds)


def _answers(part: Part, s: Sentence, needs: set[str]) -> bool:
    """``s`` gives what the part needs (``_needs``): a dose or a duration of a drug the part asks about (not of
    another drug in the same sentence), a dose not for an age group other than the one it names."""
    met = needs & s.words
    if "dose" in met and not _dose_for(part, s):
        met -= {"dose"}
    if "long" in met and _others_dose(part, s, DURATION_KINDS):
        met -= {"long"}  # "aciclovir 400 mg … x 1 week" says how long to give aciclovir, not the steroid
    return bool(met)


def _dose_for(part: Part, s: Sentence) -> bool:
    if _others_dose(part, s):
        return False  # "sumatriptan 50 to 100 mg combined with an NSAID or paracetamol" for paracetamol
    asked, said = _asked_ages(part.text), _dose_groups(s.text)
    return not (asked and said and not asked & said)  # "paracetamol for children is dosed …" for an adult


def _others_dose(part: Part, s: Sentence, kinds: frozenset[str] = DOSE_KINDS) -> bool:
    """Every dose (or duration: ``kinds``) ``s`` gives is of a drug the part does not ask about, where it asks
    about drugs."""
    asked = _asked_drugs(part)
    owners = _owners(s.text, kinds) if asked else None
    return bool(owners) and not any(_is_asked(w, asked) for w in owners or ())


def _others_quantity(part: Part, s: Sentence) -> bool:
    """``s`` gives a dose or a duration the part asks for, only of drugs it does not ask about."""
    asked = part.want & ANSWER_TYPES
    return bool(asked & s.words) and bool(_asked_drugs(part)) and not _answers(part, s, asked)


def _asked_drugs(part: Part) -> set[str]:
    """The drugs and drug classes ("steroid") the part itself names; a follow-on ("and for how long?") that
    names none asks about those of the subject it continues."""
    own = _drugs_of(part) | _class_words(part.own - part.inherited)
    return own or {w for w in part.inherited if _names_drug(w)}


def _is_asked(drug: str, asked: set[str]) -> bool:
    """``drug`` (a drug or a class a sentence names) is one asked about, or a member of a class asked about:
    prednisone for "steroid"."""
    named = {_class_name(a) for a in asked} - {None}
    return drug in asked or bool(named & (_classes_of(drug) | {_class_name(drug)}))


@cache
def _dose_groups(text: str) -> set[str]:
    return dose_groups(text)


def _other_doses(part: Part, source: Source, needs: set[str]) -> bool:
    """``source`` gives doses, and none is the asked drug's for the asked group: a card on another drug's
    regimen that names the asked one in passing (a triptan's dose "combined with … paracetamol")."""
    doses = [x for x in source.sentences if "dose" in x.words]
    return bool(doses) and not any(_answers(part, x, needs) for x in doses)


def _asks_drug_dose(part: Part) -> bool:
    """The part asks the dose of a drug it names: only a source that gives that drug's dose answers it."""
    return "dose" in part.own and bool(_asked_drugs(part))


def _classes_named(text: str) -> frozenset[str]:
    """The drug classes ``text`` names ("ACE inhibitor"), or names a member of ("amlodipine"), and the broader
    classes those fall in (an ACE inhibitor is an antihypertensive)."""
    lex = lexicon()
    said = as_sources_say(text)
    names = {lex.class_words[m.group("p")] for m in lex.class_pattern.finditer(said)}
    names |= {c for w in set(WORD.findall(said)) for c in _classes_of(w)}
    return frozenset(names | {c.name for c in lex.classes if c.members & names})


@cache
def _classes_of(word: str) -> frozenset[str]:
    return lexicon().drug_classes(word)


def _class_name(word: str) -> str | None:
    lex = lexicon()
    return lex.class_words.get(word) or lex.class_words.get(word + "s")


def _class_words(words: set[str]) -> set[str]:
    """The words among ``words`` that name a drug class ("antihypertensive")."""
    return {w for w in words if _class_name(w)}


def _classes_met(words: set[str], classes: frozenset[str]) -> set[str]:
    """The class words among ``words`` that a source naming ``classes`` answers."""
    return {w for w in words if _class_name(w) in classes}


def _member_named(word: str, known: set[str]) -> bool:
    """A class the question names ("an anticoagulant", read from "a blood thinner") that a source names a
    member of ("warfarin")."""
    named = _class_name(word)
    return named is not None and any(named in _classes_of(k) for k in known)


def _aspect(word: str) -> bool:
    # An age group qualifies a subject (checked against a source's title: ``_age_groups``), never is one; nor
    # is a qualifier ("severe") or a word of giving a treatment.
    return (
        word in FACETS
        or generic(word)
        or word in _age_words()
        or word in _not_subjects()
        or word in _default_population_words()
    )


def _directions(source: Source) -> set[str]:
    # A source that only ever says "under" cannot answer "over" (and the reverse); mixed sources can.
    return (
        set().union(*(s.words & {"more-than", "less-than"} for s in source.sentences))
        if source.sentences
        else set()
    )


@dataclass
class Reply:
    """One model turn: sentences with the id each cites (None: an uncited statement), then maybe a tool call."""

    sentences: list[tuple[str, str | None]]
    search: str | None = None


def _answering(part: Part, ranked: list[tuple[float, Source]], before: str | None = None) -> Source:
    """A follow-on part ("…, how long to immobilise?") from the section that answered the part it follows,
    where that section covers it too. Otherwise, of the sources that cover the part as well as the first, the
    first with one sentence that says all the part asks ("vasospasm" and when), over one that says each in
    another sentence. Only a tie: the rank and the title decide among sources that cover it differently."""
    same = [s for _c, s in ranked if s.title == before]
    if same:
        return same[0]
    first = ranked[0][0]
    for coverage, s in ranked:
        if coverage < first:
            break
        if any(part.own <= x.words for x in s.sentences):
            return s
    return ranked[0][1]


def _needs(part: Part) -> set[str]:
    """What a sentence must give to answer the part: a dose, a duration; a regimen (a dose) for a treatment."""
    return part.want & ANSWER_TYPES | ({"dose"} if part.own & TREATMENT else set())


def _facet_query(ctx: Context, part: Part) -> str | None:
    """A search for what the part asks of its subject, for when the sources on the subject do not give it
    ("pertussis dose treatment" when the card's passages given are on its phases): the part's most telling
    subject (``_telling``) and the facet as a source heads it."""
    needs = _needs(part)
    subjects = {w for w in part.want if not _aspect(w) and w not in TREATMENT}
    # Only where a source names the whole subject, and only the facet is missing.
    if not needs or not subjects or not any(subjects <= s.words for s in ctx.sources):
        return None
    named = _telling(ctx, part, subjects)
    facets = [FACET_QUERY[n] for n in sorted(needs)] + (["treatment"] if part.own & TREATMENT else [])
    return " ".join(dict.fromkeys(named + facets))[:120] if named else None


def _subject_query(ctx: Context, part: Part) -> str | None:
    """A search for the part's most telling subject alone, for a part no source covers whose own words were
    already searched (the whole question), where no source given names that subject: "glucosamine" finds the
    card that a search on "do glucosamine tablets help knee arthritis" ranks below the first few."""
    if _query(part.text) != _query(ctx.question):
        return None
    subjects = {w for w in part.own if not _aspect(w) and w not in TREATMENT}
    named = _telling(ctx, part, subjects) if subjects else []
    # Only for a subject no source here names: one they do name is not what the search missed.
    if not named or any(content_words(w) & s.words for w in named for s in ctx.sources):
        return None
    return " ".join(dict.fromkeys(named))[:120]


def _telling(ctx: Context, part: Part, subjects: set[str]) -> list[str]:
    """The part's subjects that tell its sources apart best (the rarest among them), as the question names
    them: not "pneumonia" beside "legionnaires", as a search for both finds the passages that name both."""
    top = max(ctx.weight(w) for w in subjects)
    best = {w for w in subjects if ctx.weight(w) >= top}
    text = as_sources_say(f"{part.subject} {part.text}" if part.subject else part.text)
    return [w for w in WORD.findall(text) if w not in STOP and content_words(w) & best]


def _answer_part(
    ctx: Context, part: Part, used: set[tuple[str, str]]
) -> tuple[list[tuple[str, str]] | None, bool]:
    """The cited sentences answering ``part`` (possibly none new), or None when no source covers it; and
    whether the source that answers lacks what the part asks for (a dose, a duration)."""
    if ctx.unknown_subjects(part):
        return None, False  # nothing on a key term ("semaglutide"): answering from its neighbours would mislead
    # A part naming drugs is answered from a source naming one of them: not from a card on their neighbours
    # ("prasugrel loading dose" is not answered by the clopidogrel and aspirin loading doses).
    drugs = _drugs_of(part)
    # A part whose most telling subject was searched on its own (``_subject_query``) is answered from a source
    # naming it: not from one the search's other finds merely reweighed into covering it.
    alone = ctx.searched_alone(part)
    ranked = [(c, s) for c, s in ctx.rank_sources(part) if (not drugs or drugs & s.words) and alone <= s.words]
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
    chars = quotation_chars(ctx.question)
    section = _section(ctx.sources, main)
    picked = [(s.text, s.sid) for s in ctx.sentences_for(part, section, MAX_SENTENCES, chars)]
    # What the main source leaves out of the part's own words, a second source may cover.
    missing = {w for w in part.own - main.words if not generic(w) and w not in FACETS}
    if missing and ctx._mass(missing) >= SECOND_SOURCE_SHARE * ctx._mass(part.want):
        rest = Part(part.text, part.want, missing, part.subject, part.inherited)
        for coverage, other in ctx.rank_sources(rest, [s for _, s in ranked[1:]], pooled=False):
            if coverage >= COVERED:
                picked += [(s.text, other.id) for s in ctx.sentences_for(rest, other, 2)]
                break
    # A chart repeats a row in several of its branches ("Administer antihistamine …"): it is said once.
    said: set[str] = set()
    out = []
    for text, sid in picked:
        if text not in said and (text, sid) not in used:
            said.add(text)
            out.append((text, sid))
    return out, lacking


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
        if can_search and not ctx.was_searched(part):
            return Reply(out, search=part.query())
    for part in uncovered:
        out.append((f"The knowledge base I was given does not cover {part.label}.", None))
    if not out:
        out.append(("I could not find anything about this in the knowledge base.", None))
    return Reply(out)


def _query(part: str) -> str:
    return " ".join(w for w in WORD.findall(part.lower()) if w not in STOP)[:120] or part[:120]


def render(reply: Reply) -> str:
    """The reply's text with ``[id]`` markers, as a model would write it."""
    pieces = []
    for i, (sentence, sid) in enumerate(reply.sentences):
        s = sentence.rstrip()
        following = reply.sentences[i + 1][1] if i + 1 < len(reply.sentences) else None
        if s.endswith(":") and sid and following == sid:
            pieces.append(s)  # a lead-in ("Treat as an outpatient if:") is one statement with its first item
            continue
        # A line of a list or table ends without a full stop (or with a bracket, or a colon); written out in
        # a row it needs one, or it runs into the next and its claim (and so its check) takes in the next
        # one's words.
        if s and s[-1] not in ".!?":
            s = s.rstrip(":;,") + "."
        pieces.append(f"{s} [{sid}]" if sid else s)
    return " ".join(pieces)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""
