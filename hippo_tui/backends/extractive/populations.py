"""The groups (age groups, pregnancy) a question asks about and a source's title is limited to."""

from __future__ import annotations

from functools import cache

from hippo_tui.backends.extractive.words import as_sources_say
from hippo_tui.verification import ages
from hippo_tui.verification.lexical import WORD
from hippo_tui.verification.lexicon import lexicon


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
    "pregnant"). Read as phrases, longest first: "not pregnant" is no pregnancy."""
    lex = lexicon()
    said = {lex.populations[m.group("p")] for m in lex.population_pattern.finditer(as_sources_say(text))}
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
