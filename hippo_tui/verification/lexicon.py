"""The clinical lexicon (``hippo_tui/data/lexicon.toml``), compiled for reading text once per install.

Everything here is knowledge a clinician would agree with (abbreviations, lay terms, UK/US spellings, drug
classes, populations, lines of therapy, the strength of a recommendation), not thresholds: the judge
generalises by knowing more words, never by asking for fewer of them. Where each table comes from is said
in the data file.
"""

from __future__ import annotations

import importlib
import re
import sys
import tomllib
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources, util
from typing import Any

_ALONE = "_hippo_tui_snowball_english"  # the private name the English stemmer's folder is loaded under


def _english_stemmer() -> Any:
    """Snowball's English stemmer: PyStemmer's C build where installed (the same stems, a thirty-sixth of the
    time; the thesaurus's stored stems, built with the pure-Python one, are checked against it by a test),
    else as ``snowballstemmer.stemmer("english")`` gives it.

    That package imports the stemmers of all its thirty-odd languages first (a twentieth of an offline ask
    before its first text), so the English one is loaded alone: the same modules from the package's folder,
    under a private package name (the package itself is left as it is). Through the package as before when
    PyStemmer is found but cannot be loaded, or the package is laid out otherwise.
    """
    try:
        import Stemmer  # type: ignore[import-not-found,unused-ignore]

        return Stemmer.Stemmer("english")
    except ImportError:
        pass
    try:
        spec = util.find_spec("snowballstemmer")
        if util.find_spec("Stemmer") is None and spec is not None and spec.submodule_search_locations:
            package = types.ModuleType(_ALONE)
            package.__path__ = list(spec.submodule_search_locations)
            sys.modules.setdefault(_ALONE, package)
            return importlib.import_module(f"{_ALONE}.english_stemmer").EnglishStemmer()
    except (ImportError, AttributeError):
        sys.modules.pop(_ALONE, None)
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


_STEMMER = _english_stemmer()
# The file the stemmer's code comes from: what the lexicon's stems (and its cache) depend on besides this one.
STEMMER_FILE = getattr(sys.modules.get(type(_STEMMER).__module__), "__file__", None)

# UK spellings to one form (US): both sides of a comparison are read through the same rules, so a rule
# that also touches an unrelated word ("shoe") changes nothing.
_SPELLING = (
    (re.compile(r"ae"), "e"),  # anaemia, haem, paediatric, ischaemic
    # oedema, oesophagus, diarrhoea, coeliac; not a word that ends so ("does", "goes", "shoe", "toes")
    (re.compile(r"(?:(?<=[^aeiou])|^)oe(?!s?$)"), "e"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations)$"), r"iz\1"),  # -ise, -isation
    (re.compile(r"(?<=[a-z]{2})yse(s|d)?$"), r"yze\1"),  # analyse
    (
        re.compile(r"(?<=[a-z]{2}[^aeiou])our(s|ed|ing|able|ite|ites)?$"),
        r"or\1",
    ),  # tumour, colour (not "four", "hour")
    (re.compile(r"(?<=[a-z]{2}[^aeiou])tre(s)?$"), r"ter\1"),  # litre, centre, fibre
    (re.compile(r"ogue$"), "og"),  # analogue
    (re.compile(r"sulph"), "sulf"),  # sulphate, sulphonylurea
    (re.compile(r"trophin"), "tropin"),  # gonadotrophin
)
SPELLED_WORD = re.compile(r"[a-z][a-z0-9']*")


@lru_cache(maxsize=1 << 15)  # a dozen patterns a word, and an answer reads the same words again and again
def spelling(word: str) -> str:
    for pattern, replacement in _SPELLING:
        word = pattern.sub(replacement, word)
    return word


# Derived forms Snowball leaves apart from their verb ("absorption" -> "absorpt", "absorbed" -> "absorb"):
# English derivation, not a tuning list.
_DERIVED = (
    (re.compile(r"(?<=[a-z]{3}[aeiou]r)pt$"), "b"),  # absorpt(ion) -> absorb
    (re.compile(r"(?<=[a-z]{3})ript$"), "rib"),  # prescript(ion), descript(ion) -> prescrib, describ
    (re.compile(r"(?<=[a-z]{3})umpt$"), "um"),  # consumpt(ion), resumpt(ion) -> consum, resum
    (re.compile(r"(?<=[a-z]{4})osi$"), "ot"),  # psychosis -> psychotic, thrombosis -> thrombotic
    (re.compile(r"(?<=[a-z]{3})psia$"), "pt"),  # eclampsia -> eclamptic, dyspepsia -> dyspeptic
    (re.compile(r"(?<=[a-z]{2})psi$"), "ptic"),  # sepsis -> septic
)


@cache
def stem(word: str) -> str:
    """A word's stem (Snowball's English stemmer), after the spelling rules, derived forms to their verb."""
    s = str(_STEMMER.stemWord(spelling(word)))
    for pattern, replacement in _DERIVED:
        s = pattern.sub(replacement, s)
    return s


# "type 2", "stage 3": a name, not a number, written as one word here and by quantities.normalize alike.
_NAMES_A_NUMBER = r"\b(type|stage|grade|step|class|phase|category)"
NAMED_NUMBER = re.compile(_NAMES_A_NUMBER + r" (?=\d\b)")


def named_numbers(text: str) -> str:
    return NAMED_NUMBER.sub(r"\1", text)


_NAMED_JOINED = re.compile(_NAMES_A_NUMBER + r"(?=\d\b)")


def as_written(text: str) -> str:
    """``named_numbers`` undone, for quoting a reading back to the reader ("type2" as "type 2")."""
    return _NAMED_JOINED.sub(r"\1 ", text)


def respell(text: str) -> str:
    """``text`` (lower case) with every word in its US spelling, hyphens between letters as spaces."""
    text = re.sub(r"\bre-(?=[aeiou])", "re", text)  # "re-evaluate" is one word, "reevaluate"
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)
    return SPELLED_WORD.sub(lambda m: spelling(m.group()), text)


def _phrase_pattern(phrases: list[str]) -> re.Pattern[str]:
    """Any of ``phrases`` as whole words, a plural "s" allowed ("sore throats"): group "p" is the phrase."""
    # Longest first; equal lengths in text order, so that every process builds the same pattern (a set's
    # order follows the per-process string hash, and a pattern kept by one process is compared with another's).
    alternatives = sorted({re.escape(p) for p in phrases if p}, key=lambda p: (-len(p), p))
    if not alternatives:
        return re.compile(r"(?!)")
    return re.compile(r"\b(?P<p>" + "|".join(alternatives) + r")(?:e?s)?\b")


# A two-word verb whose object may stand between its words ("bring it down", "rule sepsis out", "take the
# stitches out"); "up" is left out: "give the child up to 4 doses" is no "give up".
_SEPARATED = re.compile(
    r"\b(?P<v>bring|brings|bringing|brought|cut|cuts|cutting|rule|rules|ruling|ruled|take|takes|taking|"
    r"taken|took|knock|knocks|knocked|push|pushes|pushing|pushed)\s+(?P<o>(?:[a-z0-9'’]+\s+){1,3}?)"
    r"(?P<p>down|out|back|up)\b"
)

# Letters a word needs before its ending can name a medicine ("april" is not an ACE inhibitor).
MIN_STEMMED = 6


_MEMO_SIZE = 20_000


@dataclass(frozen=True)
class DrugClass:
    name: str
    words: tuple[str, ...]  # how a text names the class itself
    suffixes: tuple[str, ...]  # INN stems: a drug whose name ends so is a member
    prefixes: tuple[str, ...]
    members: frozenset[str]

    def has(self, word: str) -> bool:
        if word in self.members:
            return True
        long_enough = len(word) >= MIN_STEMMED
        return long_enough and (word.endswith(self.suffixes) or word.startswith(self.prefixes))


@dataclass(frozen=True)
class Lexicon:
    replacements: dict[str, str]  # abbreviation or lay phrase -> what a source says
    typed: frozenset[str]  # the replacements a source never prints ("pt"): not searched for in sources
    replace: re.Pattern[str]
    synonyms: dict[str, str]  # stem -> its group's stem
    light: frozenset[str]  # stems a claim may add freely
    classes: tuple[DrugClass, ...]
    class_words: dict[str, str]  # phrase naming a class -> class name
    class_pattern: re.Pattern[str]
    populations: dict[str, tuple[str, str]]  # phrase -> (axis, group)
    population_pattern: re.Pattern[str]
    within: dict[str, str]  # group -> the group it falls within
    lines: dict[str, str]  # phrase -> line
    line_pattern: re.Pattern[str]
    modality: dict[str, int]  # phrase -> strength, 1 (may) to 3 (must)
    modality_pattern: re.Pattern[str]
    combining: dict[str, tuple[str, ...]]  # combining form ("oto") -> the words it says ("ear", "hearing")
    glosses: dict[str, tuple[str, ...]]  # stem of a clinical word -> the everyday words that define it
    agent_stems: tuple[str, ...]  # how a medicine's name ends ("mectin"): names no class lists
    agent_names: frozenset[str]  # medicines by name, those no stem gives among them ("bupropion")
    everyday: frozenset[str]  # words of a question that name nothing it is about ("keep", "straight away")
    qualifiers: frozenset[str]  # words that grade what a question is about ("severe", "usual"), not name it
    group_heads: dict[
        str, str
    ]  # stem of a synonym -> its group's first word, as written ("baby" -> "infant")
    # Answers already worked out: a check asks the same of one claim's words many times over, and the
    # replacement pattern has some thousand phrases. Bounded, for a process that runs for days.
    _memo: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False, compare=False)

    def _remembered(self, kind: str, key: str, work: Callable[[str], Any]) -> Any:
        if (kind, key) not in self._memo:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[kind, key] = work(key)
        return self._memo[kind, key]

    def replaced(self, text: str) -> str:
        """``text`` (respelled) with every abbreviation and lay term as a source writes it."""
        return str(self._remembered("replaced", text, self._replace_all))

    def _replace_all(self, text: str) -> str:
        text = _SEPARATED.sub(self._joined, text)
        return self.replace.sub(lambda m: self.replacements[m.group("p")], text)

    def _joined(self, m: re.Match[str]) -> str:
        """ "bring their temperature down" as "bring down their temperature", when the lexicon has the verb."""
        phrase = f"{m.group('v')} {m.group('p')}"
        return f"{phrase} {m.group('o').strip()}" if phrase in self.replacements else m.group(0)

    def drug_classes(self, word: str) -> frozenset[str]:
        return frozenset(self._remembered("classes", word, self._classes_of))

    def _classes_of(self, word: str) -> frozenset[str]:
        return frozenset(c.name for c in self.classes if c.has(word))

    def names_agent(self, word: str) -> bool:
        """``word`` is a listed medicine or ends in an INN stem, whether or not a class lists it."""
        return word in self.agent_names or (len(word) >= MIN_STEMMED and word.endswith(self.agent_stems))

    def names_medicine(self, word: str) -> bool:
        """``word`` is a medicine's name: a class member, a listed medicine, or an INN stem's ending."""
        return self.names_agent(word) or bool(self.drug_classes(word))

    def with_wider(self, names: frozenset[str]) -> frozenset[str]:
        """``names`` and every class that lists one of them as a member ("direct oral anticoagulant" is an
        anticoagulant, an ACE inhibitor an antihypertensive), to any depth."""
        wider = set(names)
        for _ in range(len(self.classes)):
            more = {c.name for c in self.classes if c.members & wider} - wider
            if not more:
                break
            wider |= more
        return frozenset(wider)


def _phrases(table: dict[str, Any]) -> dict[str, str]:
    return {
        respell(named_numbers(k.lower())): respell(named_numbers(str(v).lower())) for k, v in table.items()
    }


def _settled(replacements: dict[str, str]) -> dict[str, str]:
    """Each replacement's own words replaced too ("ckd" -> "chronic kidney disease" -> "chronic renal
    disease"), so that an abbreviation and its expansion written out read alike."""
    pattern = _phrase_pattern(list(replacements))
    settled = dict(replacements)
    for _ in range(3):  # entries chain at most this deep; a cycle ("a" -> "b" -> "a") just stops here
        settled = {k: pattern.sub(lambda m: replacements[m.group("p")], v) for k, v in settled.items()}
    return settled


def _named(names: list[str]) -> frozenset[str]:
    """Medicines by name, a "co-" combination ("co-amoxiclav") by its own part too: a text read word by word
    ("co amoxiclav") names it by that part."""
    named = {respell(n) for n in names}
    return frozenset(named | {n[3:] for n in named if n.startswith(("co-", "co "))})


def _classes(table: dict[str, Any]) -> tuple[DrugClass, ...]:
    return tuple(
        DrugClass(
            name=respell(name),
            words=tuple(respell(w) for w in entry.get("words", [])),
            suffixes=tuple(entry.get("suffixes", [])),
            prefixes=tuple(entry.get("prefixes", [])),
            members=_named(entry.get("members", [])),
        )
        for name, entry in table.items()
    )


def _populations(axes: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    return {
        respell(word): (axis["axis"], group)
        for axis in axes
        for group, words in axis["groups"].items()
        for word in words
    }


def _glosses(
    table: dict[str, str], synonyms: dict[str, str], light: frozenset[str]
) -> dict[str, tuple[str, ...]]:
    """Each term's defining words but the light ones: a claim needs no source for those, and through the
    thesaurus they would say more ("function" is also "procedure")."""
    return {
        stem(respell(k)): tuple(
            w for w in _implied(respell(k), respell(v)).split() if synonyms.get(stem(w), stem(w)) not in light
        )
        for k, v in table.items()
    }


def _implied(term: str, gloss: str) -> str:
    """A gloss with what its term's form says too: "-aemia" is of the blood ("hyponatraemia": sodium in the
    blood), and a level "low" or "high" is one lowered or raised ("thiazides lower sodium")."""
    extra = " blood" if term.endswith("emia") else ""
    words = gloss.split()
    extra += " lower reduce" if "low" in words else ""
    extra += " higher increase" if "high" in words else ""
    return gloss + extra


@cache
def lexicon() -> Lexicon:
    """The lexicon, as built by ``built`` and kept between processes (``lexicon_cache``)."""
    from hippo_tui.verification.lexicon_cache import load_or_build  # it imports this module

    return load_or_build(built)


def built() -> Lexicon:
    """The lexicon read and compiled from ``data/lexicon.toml``."""
    raw = tomllib.loads(resources.files("hippo_tui").joinpath("data/lexicon.toml").read_text("utf-8"))
    replacements = _settled(_phrases(raw["abbreviations"]) | _phrases(raw["typed"]) | _phrases(raw["terms"]))
    synonyms = {stem(w): stem(group[0]) for group in raw["synonyms"]["groups"] for w in group}
    classes = _classes(raw["classes"])
    class_words = {w: c.name for c in classes for w in c.words}
    populations = _populations(raw["populations"]["axes"])
    lines = {respell(w): line for line, words in raw["lines"].items() for w in words}
    levels = {"strong": 3, "recommended": 2, "weak": 1}
    modality = {respell(w): levels[k] for k, words in raw["modality"].items() for w in words}
    light = frozenset(synonyms.get(stem(w), stem(w)) for w in raw["light"]["words"])
    return Lexicon(
        replacements=replacements,
        typed=frozenset(_phrases(raw["typed"])),
        replace=_phrase_pattern(list(replacements)),
        synonyms=synonyms,
        light=light,
        classes=classes,
        class_words=class_words,
        class_pattern=_phrase_pattern(list(class_words)),
        populations=populations,
        population_pattern=_phrase_pattern(list(populations)),
        within={respell(k): respell(v) for k, v in raw["populations"]["within"].items()},
        lines=lines,
        line_pattern=_phrase_pattern(list(lines)),
        modality=modality,
        modality_pattern=_phrase_pattern(list(modality)),
        combining={respell(k): tuple(respell(w) for w in v) for k, v in raw["combining"]["forms"].items()},
        glosses=_glosses(raw["glosses"], synonyms, light),
        agent_stems=tuple(raw["agents"]["stems"]),
        agent_names=_named(raw["agents"]["names"]),
        everyday=frozenset(respell(w) for w in raw["everyday"]["words"]),
        qualifiers=frozenset(respell(w) for w in raw["qualifiers"]["words"]),
        group_heads={stem(w): respell(group[0]) for group in raw["synonyms"]["groups"] for w in group},
    )
