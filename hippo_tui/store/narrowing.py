"""The words of a question that narrow what it asks without naming its subject: a search ranks its candidates
on them, but never finds its candidates by them (``budget.ranked_words``).

- the unit after a number ("a 3 yr old", "6 wk old"): an age or a time, not a subject. A short form is a rare
  word in a knowledge base that writes "years", so it outweighed the subject ("scabis in a 3 yr old" ranked
  passages saying "yr" above the scabies ones);
- a country's name ("the standard TB regimen in the UK"): a guideline of that country rarely names it in
  its text, so the few passages that do ("UK-born") outranked the one that answers;
- where the clinician works ("chest infection in GP", "in ED"), for the same reason: "GP" found passages on GP
  contracts before the pneumonia guideline's primary-care advice (all rounds, hit@3 103/83 -> 103/84 of
  116/106, development/held-back; round seven's held half unchanged);
- a clinician's note shorthand ("pt", "yo", "resp", "dx": the lexicon's typed words, which a source never
  prints): its meaning is searched for, and a source that does print it means something else ("1 pt", a point
  of a score; "yo", a Setswana word). All rounds, development/held-back: hit@1 78/61 -> 79/62, MRR
  .785/.692 -> .792/.697, hit@3 unchanged (105/85).

Measured on the real corpora, development half: hit@3 72 -> 73 of 78, MRR .848 -> .856 (the held-back half's
totals unchanged).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise

from hippo_tui.store.query import typed_words
from hippo_tui.store.wording import _UNIT, alternates, fold_word

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Countries and regions a clinician names for whose guidance they mean; "us" is a stop-word already.
_PLACES = frozenset(
    "uk usa sa england scotland wales ireland britain america africa australia canada india".split()
)

# Where the clinician works ("chest infection in GP", "in ED"): whose guidance, as a country is.
_SETTINGS = frozenset("gp gps ed er icu".split())
# An other wording in as many passages as the question's own word only ranks when they number this many or
# more: co-occurring ("C-reactive protein (CRP)"), the two counted one concept twice; in one or two passages
# each, a tie says nothing of which the knowledge base writes.
TIE = 3


def narrowing(query: str) -> set[str]:
    """The folded words of ``query`` that only narrow it (see the module's docstring)."""
    typed = [w.lower() for w in _WORD.findall(query)]
    units = {b for a, b in pairwise(typed) if a.isdigit() and _UNIT.fullmatch(b)}
    from hippo_tui.verification.lexicon import lexicon

    shorthand = {w for w in typed_words(query) if w in lexicon().typed}  # as typed_words splits "45yo"
    return {fold_word(w) for w in units | shorthand | ((_PLACES | _SETTINGS) & set(typed))}


def standing_in(query: str, dfs: Mapping[str, int]) -> set[str]:
    """The lexicon's other wordings of the question's words (``wording.alternates``) that only rank: one for a
    place or setting ("general practitioner" for "GP"), and one the knowledge base writes less often than the
    question's own word, which then finds the candidates itself. A rare other wording found the few passages
    that write it first ("abx", 41 passages of the real corpora, for "antibiotics", 1,006: sinusitis and otitis
    questions ranked the C. difficile card above their own). A typed shorthand's meaning ("pt": "patient")
    is what is searched for, so it is not one of these.
    """
    places = {fold_word(w) for w in _PLACES | _SETTINGS}
    # A lay word the lexicon folds to itself ("swelling": "swell") is the question's own word, not another's.
    asked = {fold_word(w) for w in typed_words(query)}
    out = set()
    for alternate, own in alternates(query).items():
        if alternate in asked:
            continue
        n, own_n = dfs.get(alternate, 0), dfs.get(own, 0)
        if own in places or n < own_n or n == own_n >= TIE:
            out.add(alternate)
    return out
