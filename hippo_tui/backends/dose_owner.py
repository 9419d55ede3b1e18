"""Whose dose a sentence gives: "a triptan such as sumatriptan 50 to 100 mg combined with an NSAID or
paracetamol" gives sumatriptan's dose, not paracetamol's, though it names both.

A dose belongs to the drug named nearest before it ("amoxicillin 500 mg", "… or clarithromycin 500 mg"); a dose
before any drug name, to the first named after it ("1 g of paracetamol"). A sentence with a dose and no drug
name ("The dose is 1 g every 6 hours") is about its source's drug: whose it is, the caller decides.
"""

from __future__ import annotations

from collections.abc import Callable

from hippo_tui.verification.lexical import WORD
from hippo_tui.verification.quantities import find

__all__ = ["dose_owners"]

# The kinds of quantity a dose is written in (as ``lexical.sentence_words`` reads "dose").
DOSE_KINDS = frozenset({"mass", "volume", "amount", "units"})


def dose_owners(text: str, drugs_in: Callable[[str], set[str]]) -> set[str] | None:
    """The drugs whose doses ``text`` gives, each as ``drugs_in`` reads a word of it (the drugs and drug classes
    one word names); an empty set for doses under no drug name; None for a sentence with no dose."""
    doses = [q.start for q in find(text) if q.dim.split("/")[0] in DOSE_KINDS]
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
