"""The offline model's reading of text: words, stems, synonyms and direction. No weights.

Shared by the extractive answerer, the lexical grounding judge and the veto, so that all read a sentence the
same way (numbers are read by ``quantities``, negation by the veto).
Hyphens split words ("first-line" is "first line", as a question spells it); a few question phrasings map to
what a source says instead ("how much" asks for a dose, "together" asks about a combination).
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from hippo_tui.verification.quantities import DOSE_KINDS, find

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
# What a claim may say for what its source says (stemmed): the judge's and the veto's reading only, so that
# the answerer's choice of sentences does not move.
_SAME = {
    "stop": "discontinu withdraw ceas halt",
    "start": "begin began initiat commenc introduc",
    "give": "administ prescrib offer",
    "increase": "increas rais raise rise ris elevat boost",
    "reduce": "reduc decrease decreas lower cut",
    "kidney": "renal",
    "heart": "cardiac",
    "liver": "hepatic",
    "seizure": "fit convulsion",
    "pregnancy": "pregnant",
    "child": "paediatric pediatric kid infant",
    "check": "measur monitor test recheck",
    "prefer": "preferr favour favor favoured favored",
    "steroid": "corticosteroid",
    "side": "adverse",
    "woman": "women",
    "man": "men",
    "oral": "mouth orally",
    "intravenous": "intravenously iv",
    "intramuscular": "intramuscularly im",
    "common": "commonly",
    "usual": "usually typical typically",
    "bleed": "haemorrhage hemorrhage bleeding",
    "level": "concentration",
    "repeat": "again",
    "choice": "option",
    "long": "longer",
    "sudden": "abrupt suddenly abruptly",
}
JUDGE_SYNONYMS = {w: key for key, spellings in _SAME.items() for w in spellings.split()}


_SUFFIX = re.compile(r"(?<=[a-z]{5})(?:ly|ion|ation)$")


# What a question may leave out but a claim may not: who it is for, and whether it is safe.
_JUDGE_STOP = STOP - {"adult", "adults", "safe"}


def judge_words(text: str) -> set[str]:
    """Content words as the grounding judge and the veto compare them: spelling variants made one
    ("severely" is "severe", "immunosuppression" is "immunosuppressed")."""
    out = set()
    for raw in WORD.findall(text.lower()):
        if raw in _JUDGE_STOP:  # before stemming: "does" is not a word "doe"
            continue
        for w in words(raw):
            if w not in _JUDGE_STOP and (len(w) > 1 or w.isdigit()):
                w = _SUFFIX.sub("", normal(w))
                out.add(_E_FORM.sub("", JUDGE_SYNONYMS.get(w, w)))
    return out


# "Continue" as "continued" and "continuing" stem ("continu"), "agree" as "agreed" ("agre"): a final e is dropped.
_E_FORM = re.compile(r"(?<=[a-z]{3})e$")


# Kinds of quantity (``quantities.find``) that make a sentence answer "what dose" or "how long".
_TIME_KINDS = frozenset({"time", "months"})
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
    # A stop word is dropped before stemming too: "does" is not a word "doe".
    kept = " ".join(w for w in WORD.findall(text.lower()) if w not in STOP)
    return {normal(w) for w in words(kept) if w not in STOP and (len(w) > 1 or w.isdigit())}


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
    """Normalised numbers with their kind (``500.0mass``, ``72.0time``) found in ``text``."""
    return {f"{'-'.join(map(str, q.low + q.high))}{q.dim}" for q in find(text)}


def sentence_words(text: str) -> set[str]:
    """Content words, plus what its quantities answer: a dose answers "dose", a duration "how long"."""
    # "Dose" is what a sentence with a dose in it answers ("the next dose is due" answers no dose question).
    out = (content_words(text) - {"dose"}) | comparators(text)
    kinds = {q.dim.split("/")[0] for q in find(text)}
    if kinds & DOSE_KINDS:
        out |= {"dose"}
    if kinds & _TIME_KINDS:
        out |= {"long", "duration"}
    return out


# Words that any dosing or timing sentence shares: they never make two sentences about the same thing.
GENERIC = frozenset(
    "dose long duration more-than less-than daily once twice time mg mcg microgram g ml kg mmol unit iu day "
    "week month year hour minute".split()
)


def generic(word: str) -> bool:
    return word in GENERIC or word[:1].isdigit()
