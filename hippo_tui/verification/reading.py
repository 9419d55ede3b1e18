"""A claim or an excerpt read into the elements the offline judge accounts for.

A text is lower-cased, its numbers set aside (``quantities`` reads them, the veto compares them), its words
put in one spelling, its abbreviations and lay terms replaced by what a source says (``lexicon``). Then:

- typed elements: drugs (with their classes), drug classes named as such, populations per axis (age, sex,
  pregnancy, feeding), the line of therapy, the strength of what is said (may < should < must);
- concepts: every other content word, stemmed and mapped to its synonym group. Function words and the light
  words of the lexicon (the verbs of giving a treatment) are not concepts; meaning-carrying words are never
  dropped, they are typed elements instead.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from hippo_tui.verification.ages import stated_groups
from hippo_tui.verification.definitions import IN_COMPANY_WORDS, compounded, gloss
from hippo_tui.verification.lexicon import (
    NAMED_NUMBER,
    SPELLED_WORD,
    lexicon,
    named_numbers,
    respell,
    spelling,
    stem,
)
from hippo_tui.verification.markers import split_sentences, strip_markers
from hippo_tui.verification.quantities import find, normalize

# Words that carry no content of their own: articles, pronouns, auxiliaries, prepositions, conjunctions.
# Negation and comparison are not here (the veto reads them), nor modality ("must", "may": typed elements).
FUNCTION_WORDS = frozenset(
    """a an the of in on at to for with by from as is are was were be been being it its this that these those
    which who whom whose what when where how why and or but if than then so such there their theirs they them
    he she his her hers we our ours you your yours i me my do does did done has have had having will would
    shall into onto upon about any each every all some both either also just only very per via while whether
    whose one's own same other others another s like including rather during then because since against
    alongside much many too once together instead anyone everyone someone anybody everybody somebody through
    throughout inside across along among around toward towards despite though although even still anything
    everything up""".split()
)
# Units are part of the quantities the veto compares, not words of their own.
_UNIT_WORDS = frozenset(
    """day days week weeks month months year years hour hours minute minutes mg g mcg microgram micrograms ml
    litre litres liter liters unit units kg dose doses time times daily gram grams milligram milligrams
    kilogram kilograms millilitre millilitres milliliter milliliters nanogram nanograms mmol""".split()
)
# Irregular forms Snowball leaves apart from their verb (English grammar, not a tuning list).
_IRREGULAR = {
    "given": "give", "gave": "give", "taken": "take", "took": "take", "gone": "go", "went": "go",
    "seen": "see", "saw": "see", "kept": "keep", "rose": "rise", "risen": "rise", "fell": "fall",
    "fallen": "fall", "made": "make", "done": "do", "begun": "begin", "began": "begin", "withheld": "withhold",
    "driven": "drive", "drove": "drive", "written": "write", "wrote": "write", "held": "hold", "led": "lead",
    "felt": "feel", "found": "find", "bled": "bleed", "ate": "eat", "eaten": "eat",
    "drank": "drink", "drunk": "drink", "chosen": "choose", "chose": "choose", "shown": "show",
    "feet": "foot", "teeth": "tooth", "men": "man", "women": "woman",
}  # fmt: skip
# A contraction's or possessive's ending ("who've", "they're", "child's"): the word is the word before it.
_CLITIC = re.compile(r"['’](?:ve|re|ll|d|m|s)$")
# A direction verb before a threshold ("rises above 5 times", "falls below 30", "drops to an eGFR below 30")
# says what the threshold says.
_TO_THRESHOLD = re.compile(
    r"\b(?:rise|rises|rising|rose|fall|falls|falling|fell|drop|drops|dropping|dropped|is|are|"
    r"(?:go|goes|going|gone|went) (?:up|down))\s+"
    r"(?=(?:to (?:an? |the )?[a-z]+\s+)?(?:above|below|over|under|beyond|past|more than|less than|greater than|"
    r"lower than)\b)"
)
# Read by the veto, not counted as concepts (polarity, comparison and order are its checks).
VETO_WORDS = frozenset(
    """not no never without avoid avoided avoiding cannot none nor neither more most less least fewer over
    under above below before after longer shorter greater larger smaller lesser""".split()
)
# Both as written and as respelled: the spelling rules turn "does" into "des", "goes" into "ges".
_SKIPPED = (lambda words: words | {spelling(w) for w in words})(FUNCTION_WORDS | VETO_WORDS)
_MIN_PREFIX = 5  # two stems of which one begins the other are one word when the shorter has this many letters


@dataclass(frozen=True)
class Reading:
    text: str  # the respelled, replaced text the elements were read from
    source: str  # the text as written (markers removed): what a reason quotes
    concepts: dict[str, str]  # stem -> the word as written
    drugs: dict[str, frozenset[str]]  # drug name -> its classes
    classes: frozenset[str]  # classes named as such ("a statin")
    populations: dict[str, frozenset[str]]  # axis -> groups
    lines: frozenset[str]
    modality: int | None  # the strongest: 1 may, 2 should, 3 must
    modality_words: tuple[str, ...] = field(default=())
    stems: frozenset[str] = field(default=frozenset())  # every word's, typed ones included
    glossed: tuple[frozenset[str], ...] = field(default=())  # each clinical word's gloss, as stems
    every: frozenset[str] = field(default=frozenset())  # classes named in the plural ("statins"): all of them

    @cached_property
    def aged(self) -> frozenset[str]:
        """The age groups its stated ages fall in ("the first six months of life"): read only when an excerpt
        names no age group, so not for every reading."""
        return frozenset(stated_groups(normalize(self.source)))

    @property
    def all_classes(self) -> frozenset[str]:
        """Classes named, and the classes of every drug named."""
        return self.classes.union(*self.drugs.values()) if self.drugs else self.classes


# "28 days old", "3 years of age": the age is the quantity, "old" and "of age" say nothing more.
_AGE_WORDS = re.compile(r"\b(days?|weeks?|months?|years?)\s+(?:old|of age)\b")


def _numberless(text: str) -> str:
    t = _TO_THRESHOLD.sub(" ", _AGE_WORDS.sub(r"\1", normalize(strip_markers(text))))
    for q in reversed(find(t)):
        t = t[: q.start] + " " + t[q.end :]
    return t


# "may"/"can" says what may be done only before "be …" or a verb of doing ("may be given", "can use",
# "could try"); before any other verb it says what could happen ("can cause", "may raise the INR"), as it does
# before "be less …", "be more …" or "be associated with" ("may be less effective").
_POSSIBILITY = frozenset({"may", "might", "can", "could"})
_DOING = re.compile(
    r"\s+(?:also\s+|then\s+|still\s+)?(?:be(?!\s+(?:less|more|associated|linked|caused|due|related|at)\b)|give|use|offer|consider|start|try|prescribe|take|add|repeat|"
    r"continue|stop|switch|increase|reduce|apply|refer|treat|replace|substitute|restart|omit|swap)\b"
)


# "Should be considered" is a suggestion to consider, as weak as "consider": the "should" adds nothing.
# "Patients who require oxygen", "likely to require admission" say what someone needs, not how strongly to act.
_WHO_REQUIRE = re.compile(
    r"\b(who|that|which|likely to|will|may|might|often|usually|sometimes)\s+requires?\b"
)
# "As far as possible", "as much as they can": how far to go, not how strongly it is advised.
_EXTENT = re.compile(
    r"\b(?:as (?:far|much|soon|often|long) as (?:is )?(?:possible|practicable|(?:they|you|he|she|we) can)"
    r"|(?:wherever|where|if|when) (?:possible|practicable))\b"
)
_SHOULD_CONSIDER = re.compile(r"\b(?:should|is recommended to|are recommended to)\s+(?:be\s+)?(?=consider)")


def _modal(text: str) -> tuple[list[str], str]:
    """The words saying how strongly something is recommended, and the text without them."""
    pattern = lexicon().modality_pattern
    weighed = _EXTENT.sub(" ", _SHOULD_CONSIDER.sub("", _WHO_REQUIRE.sub(r"\1 need", text)))
    found = [
        m.group("p")
        for m in pattern.finditer(weighed)
        if (m.group("p") not in _POSSIBILITY or _DOING.match(weighed, m.end()))
        and not (m.group("p") in _NEEDS and _NOT_BEFORE.search(weighed, 0, m.start()))
    ]
    return found, pattern.sub(" ", text)


# "You don't have to remember", "they do not need to": what is not needed says no strength ("should not" does);
# nor does what is not always done ("do not routinely offer": the "not" is the advice, "routinely" softens it).
_NEEDS = frozenset(
    {"have to", "has to", "need to", "needs to", "required", "necessary", "routinely", "always"}
)
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bno)\s+(?:be\s+)?(?:[a-z]+\s+)?$")  # "should not be used routinely"


def _take(pattern: re.Pattern[str], text: str) -> tuple[list[str], str]:
    """The phrases of ``pattern`` in ``text``, and the text with them blanked."""
    found = [m.group("p") for m in pattern.finditer(text)]
    return found, pattern.sub(" ", text)


# "angiotensin-converting enzyme (ACE) inhibitor": an abbreviation in brackets repeats the words before it.
_BRACKETED = re.compile(r"\s*\((?P<a>[a-z][a-z0-9]{1,7})\)")


# "CHA₂DS₂-VASc" is "CHA2DS2-VASc" however its digits are set.
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


# "The 4th or 5th intercostal space": an ordinal written in digits is the word a claim says ("fourth"), not a
# number to blank with the others.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_ORDINAL_DIGITS = re.compile(r"\b(10|[1-9])(?:st|nd|rd|th)\b")


def prepare(text: str) -> str:
    lex = lexicon()
    t = _ORDINAL_DIGITS.sub(lambda m: _ORDINALS[int(m.group(1)) - 1], text.translate(_SUBSCRIPTS))
    t = respell(_numberless(t))
    t = _BRACKETED.sub(lambda m: "" if m.group("a") in lex.replacements else m.group(), t)
    return lex.replaced(t)


def _stem(word: str) -> str:
    lex = lexicon()
    s = stem(_IRREGULAR.get(word, word))
    return lex.synonyms.get(s, s)


def read(text: str) -> Reading:
    """How the judge reads ``text``. A claim's words are read again for every check and every source it
    cites, so each text is read once; the copy keeps readings of equal texts distinct objects, which the
    checks compare by identity ("the sentence about the claim is the whole excerpt")."""
    return copy.copy(_read(text))


@lru_cache(maxsize=4096)
def _read(text: str) -> Reading:
    lex = lexicon()
    t = prepare(text)
    modal, rest = _modal(t)
    lines, rest = _take(lex.line_pattern, rest)
    pops, rest = _take(lex.population_pattern, rest)
    named, rest = _take(lex.class_pattern, rest)
    populations: dict[str, set[str]] = {}
    for p in pops:
        axis, group = lex.populations[p]
        populations.setdefault(axis, set()).add(group)
    concepts: dict[str, str] = {}
    drugs: dict[str, frozenset[str]] = {}
    for word in SPELLED_WORD.findall(rest):
        word = _CLITIC.sub("", word.strip("'"))
        if word in _SKIPPED or word in _UNIT_WORDS or len(word) < 2:
            continue
        word = _IRREGULAR.get(word, word)
        classes = lex.drug_classes(word)
        if classes:
            drugs[word] = classes
        s = _stem(word)
        if s not in lex.light:
            concepts.setdefault(s, word)
    spelled = SPELLED_WORD.findall(t)
    return Reading(
        text=t,
        source=strip_markers(text).strip(),
        concepts=concepts,
        drugs=drugs,
        classes=frozenset(lex.class_words[n] for n in named),
        every=frozenset(lex.class_words[n] for n in named if n.endswith("s")),
        populations={k: frozenset(v) for k, v in populations.items()},
        lines=frozenset(lex.lines[w] for w in lines),
        modality=max((lex.modality[w] for w in modal), default=None),
        modality_words=tuple(modal),
        stems=frozenset(s for w in spelled for s in _said(w)),
        glossed=tuple(g for w in spelled if (g := _gloss(w))),
    )


def _gloss(word: str) -> frozenset[str]:
    """The stems of the everyday words that define ``word`` (``gloss``)."""
    return frozenset(_stem(w) for w in gloss(word))


_IN_COMPANY = frozenset(_stem(w) for w in IN_COMPANY_WORDS.split())


def said_by_gloss(concept: str, claim: Reading, excerpt: Reading) -> bool:
    """The excerpt says ``concept`` in a clinical word's definition: a word of it alone, or a direction or
    degree when the claim says another word of the same definition with it ("high potassium" for
    hyperkalaemia; not "increase the dose" for it, nor "a low dose" for hypotension)."""
    said = claim.stems | frozenset(claim.concepts)
    for g in excerpt.glossed:
        if not has_concept(concept, g):
            continue
        if not has_concept(concept, _IN_COMPANY) or any(
            has_concept(w, said) for w in g - _IN_COMPANY if not same(w, concept)
        ):
            return True
    return False


def _said(word: str) -> set[str]:
    """The stems a word says: its own, and for a compound of a combining form ("ototoxic") the form's words
    and the rest's ("ear", "hearing", "toxic"). A gloss is read apart (``said_by_gloss``)."""
    said = {_stem(word)}
    for rest, words in compounded(word):
        said |= {_stem(rest)} | {_stem(w) for phrase in words for w in phrase.split()}
    return said


_WRITTEN = re.compile(r"[A-Za-z][A-Za-z0-9'&]*")
_HYPHENATED = re.compile(r"[A-Za-z][A-Za-z0-9'&]*(?:-[A-Za-z0-9]+)+")


def written_words(text: str) -> dict[str, str]:
    """Each stem a text's words read as -> the word as written, so that a reason names what the claim said
    ("flare", not the "exacerbation" it was read as)."""
    out: dict[str, str] = {}
    text = strip_markers(text)
    # Each word, then each hyphenated whole ("COVID-19" is read as one word, "covid19").
    for word in [*_WRITTEN.findall(text), *_HYPHENATED.findall(text)]:
        for read_as in SPELLED_WORD.findall(prepare(word)):
            out.setdefault(_stem(read_as.strip("'")), word)
    lower = text.lower()
    for m in NAMED_NUMBER.finditer(lower):  # "type 2" is read as one word, "type2"
        name = slice(m.start(), m.end() + 1)  # the name and its one digit
        out.setdefault(_stem(named_numbers(lower[name])), text[name])
    lex = lexicon()
    for m in lex.replace.finditer(respell(text.lower())):  # "high blood pressure": one term
        for read_as in SPELLED_WORD.findall(lex.replacements[m.group("p")]):
            out.setdefault(_stem(read_as), m.group())
    return out


def same(a: str, b: str) -> bool:
    """Two stems are one word: equal, or one begins the other ("reduc" and "reduct", "child" and "children")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _MIN_PREFIX and long_.startswith(short)


def has_concept(concept: str, among: dict[str, str] | frozenset[str] | set[str]) -> bool:
    return concept in among or any(same(concept, other) for other in among)


def sentences(excerpt: str) -> list[str]:
    return [s for s in (split_sentences(strip_markers(excerpt)) or [excerpt]) if s.strip()]


def as_quoted(sentence: str) -> str:
    """A sentence as compared to tell a quote: case, spacing and closing punctuation aside."""
    return " ".join(sentence.lower().split()).rstrip(" .;:")
