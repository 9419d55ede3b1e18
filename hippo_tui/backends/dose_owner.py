"""Whose dose a sentence gives: "a triptan such as sumatriptan 50 to 100 mg combined with an NSAID or
paracetamol" gives sumatriptan's dose, not paracetamol's, though it names both.

A dose belongs to the drug named nearest before it ("amoxicillin 500 mg", "… or clarithromycin 500 mg"); a dose
before any drug name, to the first named after it ("1 g of paracetamol"). A sentence with a dose and no drug
name ("The dose is 1 g every 6 hours") is about its source's drug: whose it is, the caller decides.

Whom a dose is for: the age group a sentence opens with ("Children aged 1 to 4 years take …") or gives it for
("… for children", "in adults"), or the ages it states; not one it names in passing ("avoid it at term because
of the risk of neonatal haemolysis" is a dose for the mother).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from hippo_tui.verification import ages
from hippo_tui.verification.lexical import WORD
from hippo_tui.verification.lexicon import lexicon
from hippo_tui.verification.quantities import DOSE_KINDS, find

__all__ = ["DURATION_KINDS", "dose_groups", "dose_owners"]

# The kinds of quantity a dose is written in (as ``lexical.sentence_words`` reads "dose").
DURATION_KINDS = frozenset({"time", "months"})  # as it reads "how long"


def dose_owners(
    text: str, drugs_in: Callable[[str], set[str]], kinds: frozenset[str] = DOSE_KINDS
) -> set[str] | None:
    """The drugs whose doses ``text`` gives, each as ``drugs_in`` reads a word of it (the drugs and drug classes
    one word names); an empty set for doses under no drug name; None for a sentence with no dose. With
    ``kinds`` ``DURATION_KINDS``, the same for its durations ("aciclovir 400 mg five times a day for 7 days")."""
    doses = _quantity_starts(text, kinds)
    if not doses:
        return None
    named = [(m.start(), drugs) for m in WORD.finditer(text.lower()) if (drugs := drugs_in(m.group(0)))]
    owners: set[str] = set()
    for at in doses:
        before = [drugs for start, drugs in named if start < at]
        after = [drugs for start, drugs in named if start > at]
        if before or after:
            owners |= before[-1] if before else after[0]
    return owners


def _quantity_starts(text: str, kinds: frozenset[str]) -> list[int]:
    """Where ``text`` gives a quantity of one of ``kinds`` (a dose, a duration)."""
    return [q.start for q in find(text) if q.dim.split("/")[0] in kinds]


OPENING_WORDS = 3  # a group named within a sentence's first words is whom the sentence is about


@cache
def _group_words() -> re.Pattern[str]:
    """The lexicon's age-group words, each with the few words before it."""
    words = sorted(
        (w for w, (axis, _g) in lexicon().populations.items() if axis == "age"), key=len, reverse=True
    )
    return re.compile(
        rf"(?P<lead>(?:\S+\s+){{0,3}})(?P<group>\b(?:{'|'.join(map(re.escape, words))})\b)", re.I
    )


def dose_groups(text: str) -> set[str]:
    """The age groups ("children", "adults") a sentence's doses are for (see the module's note)."""
    lex = lexicon()
    groups = set(ages.stated_groups(text))
    doses = _quantity_starts(text, DOSE_KINDS)
    for m in _group_words().finditer(text):
        opening = len(text[: m.start("group")].split()) <= OPENING_WORDS
        given = any(w in ("for", "in") for w in m.group("lead").lower().split()[-3:])
        if opening or (given and any(_same_clause(text, m.start("group"), at) for at in doses)):
            group = lex.populations[m.group("group").lower()][1]
            groups |= {group, lex.within.get(group, group)}
    return groups


# Where one clause of a sentence ends: "…, but avoid it near term because of the risk in the newborn".
_CLAUSE_END = re.compile(r"[;,]|\b(?:but|because|as|since|although|while|unless)\b", re.I)


def _same_clause(text: str, a: int, b: int) -> bool:
    lo, hi = sorted((a, b))
    return not _CLAUSE_END.search(text, lo, hi)
