"""The drugs and drug classes a text or a word names, as the lexicon knows them."""

from __future__ import annotations

from functools import cache

from hippo_tui.backends.extractive.words import _classes_of, as_sources_say, content_words
from hippo_tui.verification.lexical import WORD
from hippo_tui.verification.lexicon import lexicon


@cache
def _class_names() -> tuple[str, ...]:
    return tuple(lexicon().class_words)


def _names_drug(word: str) -> bool:
    """``word`` (a content word) names a drug or a drug class."""
    return bool(_classes_of(word) or _class_name(word))


@cache
def _drug_words(token: str) -> set[str]:
    """The drugs and drug classes one word of a sentence names."""
    return {w for w in content_words(token) if _names_drug(w)}


def _classes_named(text: str) -> frozenset[str]:
    """The drug classes ``text`` names ("ACE inhibitor"), or names a member of ("amlodipine"), and the broader
    classes those fall in (an ACE inhibitor is an antihypertensive)."""
    lex = lexicon()
    said = as_sources_say(text)
    names = {lex.class_words[m.group("p")] for m in lex.class_pattern.finditer(said)}
    names |= {c for w in set(WORD.findall(said)) for c in _classes_of(w)}
    return frozenset(names | {c.name for c in lex.classes if c.members & names})


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
