"""The offline model's reading of text: words, stems, quantities, negation and direction. No weights.

Shared by the extractive answerer and the lexical grounding judge, so that both read a sentence the same way.
Hyphens split words ("first-line" is "first line", as a question spells it); a few question phrasings map to
what a source says instead ("how much" asks for a dose, "together" asks about a combination).
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

# Hyphens split ("community-acquired" matches "community acquired"); decimals and apostrophes do not.
WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
STOP = frozenset(
    """a about above after again all also am an and any are as at be been before being below between both but by
    can could did do does doing done during each either few for from further had has have having he her here hers
    how i if in into is it its itself just may me might more most much must my no nor not of off on once only or
    other our out over own per same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours tell please give list explain describe know recommended recommend usual usually best use used
    using patient patients adult adults often much many give given take taken need needed
    happen happens old safe ok okay fine someone somebody person people""".split()
)
# Abbreviations (and a few terms) a clinician types for what a source spells out.
ABBREVIATIONS = {
    "uti": "urinary tract infection",
    "utis": "urinary tract infection",
    "af": "atrial fibrillation",
    "bp": "blood pressure",
    "cap": "community acquired pneumonia",
    "htn": "hypertension",
    "t2dm": "type 2 diabetes",
    "hf": "heart failure",
    "hfref": "heart failure reduced ejection fraction",
    "ppi": "proton pump inhibitor",
    "ppis": "proton pump inhibitor",
    "acei": "ace inhibitor",
    "ckd": "chronic kidney disease",
    "ida": "iron deficiency anaemia",
    "nrt": "nicotine replacement therapy",
    "abx": "antibiotic",
    "dvt": "deep vein thrombosis",
    "cystitis": "cystitis urinary tract infection",  # a lower urinary tract infection, as sources also say
    "pe": "pulmonary embolism",
}
# Question words that mean what a source says in other words (after stemming).
SYNONYMS = {
    "together": "combination",
    "combin": "combination",
    "combine": "combination",
    "interact": "combination",
    "interaction": "combination",
    "dosage": "dose",
    "dosing": "dose",
    "dos": "dose",
    "treatment": "treat",
    "management": "manage",
    "manag": "manage",
    "vaccination": "vaccine",
    "vaccinat": "vaccine",
    "prevention": "prevent",
    "preventive": "prevent",
    "children": "child",
}
NEGATION = frozenset(
    "not no never without avoid avoided don't doesn't shouldn't mustn't cannot can't isn't aren't none neither "
    "nor contraindicated".split()
)
# A number with an optional unit: doses, durations, percentages.
_QUANTITY = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(mg|mcg|µg|g|kg|ml|l|mmol|units?|iu|%|days?|hours?|h|weeks?|months?|years?|"
    r"times|x|mmhg|°c|c)?\b",
    re.I,
)
_DOSE_UNITS = frozenset("mg mcg µg g ml l mmol unit iu".split())
_TIME_UNITS = frozenset("day hour h week month year".split())
_MORE = re.compile(r"\b(?:over|above|older|more than|at least|or more|or over|or higher)\b", re.I)
_LESS = re.compile(r"\b(?:under|below|younger|less than|fewer than|or less|or lower)\b", re.I)
# "How much …?" asks for a dose; "how long …?" for a duration: what a source's quantities answer.
_ASKS = ((re.compile(r"\bhow much\b|\bhow many (?:mg|mcg|micrograms|ml|tablets)\b", re.I), "dose"),)


def _undouble(word: str) -> str:
    # "stopped" → "stopp" → "stop", as "stop" stems.
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz" and word[-1].isalpha():
        return word[:-1]
    return word


def stem(word: str) -> str:
    if len(word) > 5 and word.endswith("ing"):
        return _undouble(word[:-3])
    if len(word) > 5 and word.endswith("ed"):
        return _undouble(word[:-2])
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    out = []
    for w in WORD.findall(text.lower()):
        out += [stem(x) for x in ABBREVIATIONS[w].split()] if w in ABBREVIATIONS else [stem(w)]
    return out


def normal(word: str) -> str:
    """A stemmed word in the form both questions and sources are compared in."""
    return SYNONYMS.get(word, word)


def content_words(text: str) -> set[str]:
    return {normal(w) for w in words(text) if w not in STOP and (len(w) > 1 or w.isdigit())}


def comparators(text: str) -> set[str]:
    """ "Over 55" and "under 55" share every content word: these tell them apart."""
    return ({"more-than"} if _MORE.search(text) else set()) | ({"less-than"} if _LESS.search(text) else set())


def contradicts(a: AbstractSet[str], b: AbstractSet[str]) -> bool:
    """One side asks "over", the other says only "under" (or the reverse)."""
    return bool(a) and bool(b) and not (a & b)


def part_words(text: str) -> set[str]:
    """What a question part asks about: its content words, direction words and what it asks for."""
    out = content_words(text) | comparators(text)
    out |= {word for pattern, word in _ASKS if pattern.search(text)}
    return out


def quantities(text: str) -> set[str]:
    """Normalised numbers with units (``500mg``, ``3day``) found in ``text``."""
    out = set()
    for num, unit in _QUANTITY.findall(text):
        out.add(num.replace(",", ".") + stem((unit or "").lower()))
    return out


def sentence_words(text: str) -> set[str]:
    """Content words, plus what its quantities answer: a dose answers "dose", a duration "how long"."""
    # "Dose" is what a sentence with a dose in it answers ("the next dose is due" answers no dose question).
    out = (content_words(text) - {"dose"}) | comparators(text)
    units = {q.lstrip("0123456789.") for q in quantities(text)}
    if units & _DOSE_UNITS:
        out |= {"dose"}
    if units & _TIME_UNITS:
        out |= {"long", "duration"}
    return out


# Words that any dosing or timing sentence shares: they never make two sentences about the same thing.
GENERIC = frozenset(
    "dose long duration more-than less-than daily once twice time mg mcg microgram g ml kg mmol unit iu day "
    "week month year hour minute".split()
)


def generic(word: str) -> bool:
    return word in GENERIC or word[:1].isdigit()


def has_negation(text: str) -> bool:
    return any(w in NEGATION for w in WORD.findall(text.lower().replace("n't", " not")))
