"""A source (one passage) read into sentences: each sentence's words, label, and whether it refers back."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from hippo_tui.backends import passage_text
from hippo_tui.backends.extractive.drug_classes import _classes_named
from hippo_tui.backends.extractive.populations import _age_groups
from hippo_tui.backends.extractive.words import content_words, glossed_words, sentence_words
from hippo_tui.verification.lexical import stem
from hippo_tui.verification.markers import split_sentences

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


@dataclass(frozen=True)
class Sentence:
    text: str
    words: frozenset[str]
    refers_back: bool  # needs the sentence before it to make sense
    label: frozenset[str] = (
        frozenset()
    )  # its line's label ("Trauma: …"), or the label of the lines it follows
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
    # ``words`` as written, without what its terms say by definition (``glossed_words``): a named tool's
    # own words ("HEART score"), never the heart of a card's "myocardial infarction".
    named: frozenset[str] = frozenset()

    @cached_property
    def classes(self) -> frozenset[str]:
        """The drug classes it names, or names a member of: read only for a question naming a class."""
        return _classes_named(self.text)


def _refers_back(sentence: str, previous: str | None, topic: frozenset[str]) -> bool:
    if previous is None:
        return False
    # Or it is what a heading ("Colchicine") introduces.
    if _REFERS.match(sentence) or _HEADING_WORD.match(previous):
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
    return replace(
        source,
        topic=read(source.topic),
        sentences=sentences,
        words=read(source.words),
        named=read(source.named),
    )


def _source(sid: str, title: str, excerpt: str, rank: int) -> Source:
    topic = frozenset(content_words(title))
    # A card's own footnote marks ("… 8 hours [3]") point to its reference list, not to a source of ours,
    # and read like one of our citation numbers: the quote goes without them.
    # A flattened list or chart is read a row at a time; a reference entry or a heading on its own never.
    texts = [
        row
        for s in split_sentences(excerpt)
        if (t := _CITED.sub("", _FOOTNOTE.sub("", s)).strip())
        for row in passage_text.rows(t)
        if not passage_text.is_junk(row)
    ]
    # A card's own key to its abbreviations is not quoted, but read: "BDQ" in its lines is bedaquiline.
    key = passage_text.expansions(excerpt)
    read = [(sentence_words(x), glossed_words(x)) for x in (passage_text.expanded(t, key) for t in texts)]
    sentences = tuple(
        Sentence(t, frozenset(said | meant), _refers_back(t, texts[i - 1] if i else None, topic), label, sid)
        for i, (t, label, (said, meant)) in enumerate(zip(texts, _labels(texts), read, strict=True))
    )
    groups = frozenset(_age_groups(title))
    # A title says what its terms say, as a line does: a card on "Osteoarthritis" is on arthritis.
    words = topic.union(glossed_words(title), *(s.words for s in sentences))
    named = topic.union(*(said for said, _meant in read))
    return Source(sid, rank, topic, sentences, words, groups, f"{title}\n{excerpt}", title, named)


_LABEL = re.compile(r"^([^:;.]{2,60}):\s")  # "Trauma-associated hemorrhage: …"
# "First Line:", "Start N-acetylcysteine if:"; or one word on a line of its own, a heading ("Colchicine").
_HEADING_WORD = re.compile(r"^[A-Za-z][a-z-]{2,}$")
# A few words on a line of their own, without a number or a stop ("CAP Low severity"): a heading, or an item of
# a list ("Full blood count"); the form cannot tell which.
HEADING_PHRASE = re.compile(r"^[A-Z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*){1,3}$")
_LEAD_IN = re.compile(rf"^([^:;.]{{2,60}}):$|^({_HEADING_WORD.pattern[1:-1]})$")
_FOOTNOTE = re.compile(r"\s*\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")  # a card's own "[3]", "[2, 4]"
# A statement that ends on the study behind it ("… even in mild cases (Bjornson et al., NEJM, 2004)") is read and
# quoted without it: the study's name made the whole line read as a reference entry, never quoted.
_CITED = re.compile(r"\s*\([^()]*\bet al\b[^()]*\)\s*\.?\s*$", re.I)


def _labels(texts: Sequence[str]) -> list[frozenset[str]]:
    """Each line's label's content words ("Trauma-associated hemorrhage: …"); a line without one is under the
    label of the line before it ("If bleeding continues …" after "Postpartum hemorrhage: …")."""
    out, current = [], frozenset[str]()
    for t in texts:
        m = _LABEL.match(t)
        current = frozenset(content_words(m.group(1))) if m else current
        out.append(current)
        # A lead-in or a heading on a line of its own ("First line:") labels the lines it introduces.
        lead = _LEAD_IN.match(t)
        current = frozenset(content_words(lead.group(1) or lead.group(2))) if lead else current
    return out


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
