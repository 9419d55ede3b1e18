"""How questions and sources are read into words: one spelling, the lexicon's synonyms as one word, an age as
its age group, a maximum of a drug as its dose."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from hippo_tui.verification import ages, lexical
from hippo_tui.verification.definitions import IN_COMPANY_WORDS, compounded, gloss
from hippo_tui.verification.lexical import normal, stem
from hippo_tui.verification.lexicon import lexicon, respell
from hippo_tui.verification.lexicon import stem as lexicon_stem


def as_sources_say(text: str) -> str:
    """``text`` in the words the lexicon reads for it: one spelling, abbreviations and lay terms as a source
    writes them ("pt on a blood thinner" as "patient on an anticoagulant"). Questions and sources are both
    read so, so that neither side's wording decides what matches."""
    text = _NON.sub(r"\1\2", _POSSESSIVE.sub("", text.lower()))
    text = _NEGATIVE.sub(" negative", _POSITIVE.sub(r"\1 positive", text))
    text = lexicon().replaced(respell(_UNIT.sub(_unit, text)))
    return _TYPE.sub(r"type\1", text)


# "Bell's palsy" and "bells palsey" are one name: the possessive is no part of it.
_POSSESSIVE = re.compile(r"(?<=[a-z])['’]s?\b")
# A result written as a note writes it: "RSV+", "HIV +ve" and "GBS -ve" say positive and negative (a name of
# letters only: "2+ proteinuria" and "Ca2+" are no test result).
_POSITIVE = re.compile(r"\b([a-z]{2,})\s?(?:\+ve\b|\+(?![\w+]))")
_NEGATIVE = re.compile(r"(?<=[a-z])\s?-ve\b")
# "Non-pregnant" is one word, not "pregnant" (a card on non-pregnant women does not answer for pregnancy), however
# it is written ("non pregnant"); and "pre-eclampsia" is "preeclampsia", as either is written.
_NON = re.compile(r"\b(non)[- ](?=[a-z])|\b(pre|post)-(?=[a-z])")
# A chart's abbreviated unit of time after a number is the unit a question names ("> 3 seizures in 1 hr" says
# what "how many seizures in an hour" asks).
_UNITS = {"h": "hours", "hr": "hours", "hrs": "hours", "min": "minutes", "mins": "minutes"}
_UNITS |= {"wk": "weeks", "wks": "weeks", "yr": "years", "yrs": "years"}
_UNIT = re.compile(rf"\b(\d+)\s*({'|'.join(_UNITS)})\b")


def _unit(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_UNITS[m.group(2)]}"


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
    return frozenset(
        w for phrase, (_axis, group) in pops if group.startswith("not ") for w in content_words(phrase)
    )


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
    r"|\(?[<>≥≤]=?\s*\d+\s*(?:years?|yrs?)\s+(?:old|of age)\b"
    # "Infants 6–11 months old", "Children 12 months to 5 yrs": a table's age groups, not how long.
    r"|\b\d+\s*(?:[–-]\s*\d+\s*)?(?:days?|weeks?|wks?|months?|years?|yrs?)\s+old\b"
    r"|\b(?:infants?|babies|children|adolescents|adults)\s+(?:aged\s+)?\d+\s*(?:days?|weeks?|months?|years?|yrs?)"
    r"(?:\s*(?:to|[–-])\s*\d+\s*(?:days?|weeks?|months?|years?|yrs?))?",
    re.I,
)


def glossed_words(text: str) -> set[str]:
    """What the clinical terms of ``text`` say by definition (the lexicon's glosses: "lymphadenopathy" says
    swollen lymph nodes), read as a question's words are: a sentence using the term answers a question in the
    everyday words ("how big does a lymph node have to be"). Never a direction or a degree, which a definition
    says only with the rest of it ("low" of hypotension: not every "low" a question asks about). And what a
    compound of a combining form says (``_compounded``)."""
    tokens = lexical.WORD.findall(text.lower())
    said = [" ".join(g) for w in tokens if (g := gloss(w))]
    said += [c for w in tokens if len(w) > MIN_COMPOUND and (c := _compounded(w))]
    return {w for g in said for w in _grouped(content_words(g))} - _in_company() if said else set()


MIN_COMPOUND = 8  # letters of a word read as a combining form and a word ("osteoarthritis")


def _compounded(word: str) -> str:
    """What a compound of a combining form says (``definitions.compounded``, as the judge reads it): the form's words and
    the word it is joined to ("osteoarthritis": bone, arthritis), so that a card on osteoarthritis answers a
    question about arthritis of the knee."""
    return " ".join(f"{rest} {' '.join(words)}" for rest, words in compounded(word))


@cache
def _in_company() -> frozenset[str]:
    # The judge's words of a definition that say something only with the rest of it, as this module reads them
    # ("raised" is "higher" here).
    return frozenset(_grouped(content_words(f"{IN_COMPANY_WORDS} higher lower")))


@cache
def _classes_of(word: str) -> frozenset[str]:
    return lexicon().drug_classes(word)
