"""One form for a passage's words and a question's words, so that wording alone never decides a match.

Both sides go through ``fold``: lower case, accents off, UK spellings to US (``ischaemic`` -> ``ischemic``),
Snowball's English stem (``seizures`` -> ``seizur``), then a few derived endings cut so that a noun and its
adjective meet (``thrombolysis``/``thrombolytic``, ``Africa``/``African``, ``anaemia``/``anaemic``), and the
clinical lexicon's synonyms become their group's first word. The index holds folded text; a question is
folded the same way and widened with the lexicon's abbreviations and lay terms (``search_terms``). Plain
Python, no SQL: any backend's full-text search indexes ``fold(text)`` and matches ``search_terms(question)``
as phrases OR-ed together.

``snippet`` marks a passage's own text (not its folded form) where the question's words occur.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from hippo_tui import compiled_patterns
from hippo_tui.store.query import (
    MAX_TERMS,
    STOP_WORDS,
    joined_negations,
    quoted_or,
    terms,
    typed_text,
    typed_words,
)

if TYPE_CHECKING:
    from hippo_tui.verification.lexicon import DrugClass

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# After the stem: the ending that tells a noun from its adjective or a place from its people, when at least
# four letters are left ("panic", "media" stay whole).
_DERIVED = re.compile(r"(?<=\w{4})(?:ian|ic|ia|an|a|i)$")
_LYSIS = re.compile(r"(?<=\w{3})y[st]$")  # -lysis / -lytic, -paralysis / -paralytic
# A noun's stem and its adjective's or plural's, to one form, where the stemmer leaves them apart.
_FORMS = (
    (re.compile(r"(?<=phyl)act$"), "ax"),  # anaphylaxis / anaphylactic, prophylaxis / prophylactic
    (re.compile(r"(?<=\w{4}o)st$"), "t"),  # diagnosis / diagnostic, prognosis / prognostic
    (re.compile(r"(?<=\w{4})os$"), "ot"),  # diagnoses, thromboses (plurals) / diagnosis, thrombosis
    (re.compile(r"(?<=\w{4})as$"), "at"),  # metastasis, metastases / metastatic; psoriasis / psoriatic
    (re.compile(r"(?<=\w{3}m)at$"), ""),  # trauma / traumatic, asthma / asthmatic, oedema / oedematous
    (re.compile(r"(?<=\w{4}h)es$"), "et"),  # anaesthesia / anaesthetic, paraesthesia / paraesthetic
)
# Plurals the stemmer leaves apart from their singular, and a verb's forms it stems three ways ("breastfed",
# "breastfeeds", "breastfeeding": "breastf", "breastfe", "breastfeed").
_IRREGULAR = {"children": "child", "women": "woman", "men": "man", "teeth": "tooth", "feet": "foot",
              "mice": "mouse", "lice": "louse", "geese": "goose", "people": "person", "fed": "feed",
              "bled": "bleed", "dosage": "dose", "dosages": "dose", "nauseated": "nausea", "nauseous": "nausea",
              "breastfed": "breastfeeding", "breastfeed": "breastfeeding", "breastfeeds": "breastfeeding"}  # fmt: skip
# What names which one after a word: a number ("type 1"), or a letter ("plan c", "hepatitis b"; not "a" nor
# "i", which are words of their own).
_NAMES_WHICH = re.compile(r"\d+|[b-hj-z]")
MAX_EXPANSIONS = 12  # lexicon terms added to one question, after its own words


def _plain(word: str) -> str:
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=200_000)
def fold_word(word: str) -> str:
    """One word in its folded form (``word`` lower case)."""
    from hippo_tui.verification.lexicon import lexicon, spelling, stem

    word = _IRREGULAR.get(word, _plain(word))
    if len(word) <= 3:  # an abbreviation ("ORS", "TB", "NAC") is not a word to stem: "ors" is not "or"
        return spelling(word)
    stemmed = stem(word)
    # Words of one meaning are one word in the index: added to a question instead, each synonym would
    # weigh as much as the question's own word, and "treatment" would find "drug" passages first.
    folded = _DERIVED.sub("", lexicon().synonyms.get(stemmed, stemmed))
    folded = _LYSIS.sub("y", folded)
    for pattern, replacement in _FORMS:
        folded = pattern.sub(replacement, folded)
    return f"{folded} {fold_word(kind)}" if (kind := _kind_of(word)) else folded


@cache
def _combining() -> re.Pattern[str]:
    """A combining form of the lexicon's ("osteo", "gastro", "rhino") before an inflammation's name of six letters
    or more ("arthritis", "enteritis", "sinusitis")."""
    from hippo_tui.verification.lexicon import lexicon

    forms = "|".join(sorted(lexicon().combining, key=lambda f: (-len(f), f)))
    return re.compile(rf"({forms})(\w{{2,}}it(?:is|ic|ides))")


def _kind_of(word: str) -> str | None:
    """The inflammation a compound names a kind of: "osteoarthritis" is a kind of arthritis, "rhinosinusitis" of
    sinusitis, "gastroenteritis" of enteritis. Indexed after the compound, so that a question's "arthritis"
    finds osteoarthritis as it finds rheumatoid arthritis, and "osteoarthritis" still finds only itself."""
    m = _combining().fullmatch(word)
    return m[2] if m and len(m[2]) >= 6 else None


def fold(text: str | None) -> str | None:
    """``text`` as the index holds it: folded words separated by spaces, a "non" one word with what it negates
    (``query.joined_negations``); None stays None."""
    if text is None:
        return None
    return " ".join(fold_word(w) for w in _WORD.findall(joined_negations(text.lower())))


# Bump to re-index every database on its next opening (a change of folding these files do not show).
FOLD_RULES = 1
# What folding is made of: this module, the query's negations (joined_negations), the spelling and stemming
# rules, the lexicon's synonym groups.
_FOLD_FILES = ("store/wording.py", "store/query.py", "verification/lexicon.py", "data/lexicon.toml")


@cache
def fold_signature() -> str:
    """A fingerprint of how text folds, read from the files that define it (a millisecond, no parsing).

    A search index is only right while the text in it and the questions fold alike, and SQLite's index
    deletes a row by folding it again: a database whose signature differs is re-indexed on opening. Any edit
    to these files changes it, a comment's included: a needless re-index once beats a silently wrong one.
    """
    import hashlib
    from importlib import resources

    digest = hashlib.sha256(str(FOLD_RULES).encode())
    package = resources.files("hippo_tui")
    for name in _FOLD_FILES:
        try:
            digest.update(package.joinpath(name).read_bytes())
        except OSError:  # an install without the source (bytecode only): the rules' version alone
            digest.update(name.encode())
    return digest.hexdigest()[:16]


def _all_classes(classes: tuple[DrugClass, ...]) -> DrugClass:
    """``classes`` as one class, whose ``has`` says whether any of them has a word: asked one class at a time
    for each of the lexicon's words, that was most of a process's first search."""
    from hippo_tui.verification.lexicon import DrugClass

    return DrugClass(
        name="",
        words=(),
        suffixes=tuple(s for c in classes for s in c.suffixes),
        prefixes=tuple(p for c in classes for p in c.prefixes),
        members=frozenset().union(*(c.members for c in classes)),
    )


@cache
def _abbreviations() -> tuple[dict[str, tuple[str, ...]], re.Pattern[str]]:
    """Full form -> the abbreviations the lexicon gives for it ("acetylcysteine" -> "nac"), and a pattern
    finding any full form in a question: a source may write the short form where the question spells it
    out. Matched on the respelled text, not folded, so a search need not fold the whole lexicon first."""
    from hippo_tui.verification.lexicon import lexicon

    out: dict[str, set[str]] = {}
    lex = lexicon()
    in_a_class = _all_classes(lex.classes).has
    for short, full in lex.replacements.items():
        # An abbreviation, or a drug's other name ("albuterol" for "salbutamol"): a word, not a lay phrase.
        word = " " not in short and short != full and short not in lex.typed
        if word and (len(short) <= 5 or in_a_class(short)):
            out.setdefault(full, set()).add(short)
    alternatives = "|".join(sorted(map(re.escape, out), key=lambda a: (-len(a), a)))
    text = rf"\b(?P<p>{alternatives})s?\b" if out else "(?!)"
    # Compiled once per install: compiling it was a tenth of a search's work in a fresh process.
    (pattern,) = compiled_patterns.kept("abbreviations", [(text, 0)])
    return {full: tuple(sorted(shorts)) for full, shorts in out.items()}, pattern


@cache
def _siblings() -> dict[str, tuple[str, ...]]:
    """What the lexicon gives as one thing's wordings ("c diff", "c. difficile", "clostridium difficile" for
    "clostridioides difficile"), by that thing: the ones a source may print, not the typed shorthand."""
    from hippo_tui.verification.lexicon import lexicon

    lex = lexicon()
    out: dict[str, list[str]] = {}
    for short, full in lex.replacements.items():
        if short not in lex.typed:
            out.setdefault(full, []).append(short)
    return {full: tuple(shorts) for full, shorts in out.items()}


def other_wordings(query: str) -> dict[str, list[str]]:
    """The lexicon's wording of each thing the question names (folded) -> the thing's other wordings a source
    may print (folded): searched for when a knowledge base never writes the lexicon's own ("clostridioides
    difficile"), only its others ("C. difficile", "Clostridium difficile")."""
    from hippo_tui.verification.lexicon import lexicon, respell

    lex = lexicon()
    siblings = _siblings()
    out: dict[str, list[str]] = {}
    for m in lex.replace.finditer(respell(typed_text(query))):
        full = lex.replacements[m.group("p")]
        out.setdefault(fold(full) or "", [f for s in siblings.get(full, ()) if (f := fold(s))])
    return out


def alternates(query: str) -> dict[str, str]:
    """What the lexicon says the question's abbreviations and lay words are in a source's words, each folded ->
    the question's own wording it stands for, folded."""
    from hippo_tui.verification.lexicon import lexicon, respell

    lex = lexicon()
    typed = respell(typed_text(query))  # "45yo": "yo" is "year old"
    found: dict[str, str] = {}
    for m in lex.replace.finditer(typed):
        found.setdefault(fold(lex.replacements[m.group("p")]) or "", fold(m.group("p")) or "")
    shorts, full_forms = _abbreviations()
    for m in full_forms.finditer(typed):
        for short in shorts[m.group("p")]:
            found.setdefault(fold_word(short), fold(m.group("p")) or "")
    return {t: own for t, own in found.items() if t}


def _expansions(query: str, own: set[str]) -> list[str]:
    """``alternates``' terms the question does not hold already, at most MAX_EXPANSIONS."""
    return [t for t in alternates(query) if t not in own][:MAX_EXPANSIONS]


def search_terms(query: str) -> list[str]:
    """The question's folded words, in order, then the lexicon's other wordings of them (each a phrase of
    folded words). A search matches any of them; the caller quotes each, so no input is query syntax."""
    from hippo_tui.verification.lexicon import lexicon

    # The everyday words of asking ("count", "shud") name nothing a passage is about: not searched for.
    words = [w for w in terms(query) if w not in lexicon().everyday] or terms(query)
    own = list(dict.fromkeys(fold_word(w) for w in words))[:MAX_TERMS]
    return own + _expansions(query, set(own)) + list(dict.fromkeys(numbered(query).values()))


def numbered(query: str, *, names_only: bool = False) -> dict[str, str]:
    """Each word with the number that names which one ("type 1", "stage 4"), as typed -> folded: searched as
    one phrase, since a passage on type 2 diabetes that writes "1" elsewhere is not about type 1. With
    ``names_only``, not a word and a count ("a dog 3 days ago"): as a phrase it still ranks "aspirin 300 mg"
    well, but it is not a name a passage must say; nor a value ("CRP 15", "eGFR 25", "BP 190": a name's number
    is one digit), nor a number after a word that names nothing ("for 45yo", "level is 14")."""
    typed = typed_words(query)
    return {
        f"{a} {b}": f"{fold_word(a)} {fold_word(b)}"
        for a, b, after in zip(typed, typed[1:], [*typed[2:], ""], strict=False)
        if a.isalpha()
        and len(a) > 1
        and _NAMES_WHICH.fullmatch(b)
        and not (names_only and (_UNIT.fullmatch(after) or len(b) > 1 or a in STOP_WORDS))
    }


# A number followed by one of these counts something: it names nothing.
_UNIT = re.compile(
    r"(?:second|sec|minute|min|hour|hr|day|week|wk|month|mo|year|yr|time|dose|tablet|tab|puff|drop|unit|"
    r"mg|g|kg|mcg|microgram|ml|l|mmol|iu|cm|mm|percent)s?|x|am|pm|yo"
)


def fts_match(query: str) -> str | None:
    """An FTS5 MATCH expression over the folded index that can never be a syntax error, or None when there
    is nothing to find. Each term is a quoted string of \\w+ words, so FTS operators, column filters,
    prefixes and unbalanced quotes in the input are just punctuation."""
    words = search_terms(query)
    return quoted_or(words) if words else None


def _best_window(text: str, words: list[re.Match[str]], terms_at: list[str | None], width: int) -> int:
    """Where the ``width``-word window with the most distinct query words starts; a window that starts a
    sentence wins a tie (it reads as a quote, not as a fragment)."""
    counts: Counter[str] = Counter(t for t in terms_at[:width] if t)
    best, best_score = 0, -1
    for start in range(len(words)):  # the last windows are shorter: a closing sentence is a quote too
        if start:
            if gone := terms_at[start - 1]:
                counts[gone] -= 1
                if not counts[gone]:
                    del counts[gone]
            if start + width - 1 < len(words) and (came := terms_at[start + width - 1]):
                counts[came] += 1
        opens = start == 0 or any(c in ".!?\n" for c in text[words[start - 1].end() : words[start].start()])
        score = 2 * len(counts) + opens
        if score > best_score:
            best, best_score = start, score
    return best


def snippet(text: str, query_terms: list[str], width: int = 24) -> str:
    """The ``width``-word window of ``text`` holding most of the query's words, those words in « and »,
    with … where the window cuts the text."""
    wanted = {w for t in query_terms for w in t.split()}
    words = list(_WORD.finditer(text))
    if not words:
        return text
    folded = [fold_word(m.group().lower()) for m in words]
    # A compound is folded as itself and its kind ("osteoarthritis": "osteoarthr arthrit"): marked for either.
    terms_at = [f if any(p in wanted for p in f.split()) else None for f in folded]
    best = _best_window(text, words, terms_at, width)
    window = range(best, min(best + width, len(words)))
    out, at = [], words[window[0]].start()
    for i in window:
        m = words[i]
        out.append(text[at : m.start()])
        out.append(f"«{m.group()}»" if terms_at[i] else m.group())
        at = m.end()
    end = words[window[-1]].end() if window[-1] < len(words) - 1 else len(text)
    out.append(text[at:end])
    return ("…" if best > 0 else "") + "".join(out) + ("…" if end < len(text) else "")
