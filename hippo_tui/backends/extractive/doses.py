"""Whose dose a sentence gives: the drug asked about or another, for the group asked about or another."""

from __future__ import annotations

import re
from functools import cache

from hippo_tui.backends.dose_owner import DURATION_KINDS, dose_groups, dose_owners
from hippo_tui.backends.extractive.drug_classes import _class_name, _class_words, _drug_words, _names_drug
from hippo_tui.backends.extractive.parts import ANSWER_TYPES, Part
from hippo_tui.backends.extractive.populations import _asked_ages
from hippo_tui.backends.extractive.sources import Sentence, Source
from hippo_tui.backends.extractive.words import _classes_of
from hippo_tui.verification import quantities
from hippo_tui.verification.lexicon import lexicon


def _drugs_of(part: Part) -> set[str]:
    """The drugs the part itself names (not those inherited from the part before it)."""
    return {w for w in part.own - part.inherited if lexicon().drug_classes(w)}


@cache
def _owners(text: str, kinds: frozenset[str] = quantities.DOSE_KINDS) -> set[str] | None:
    return dose_owners(text, _drug_words, kinds)


def _answers(part: Part, s: Sentence, needs: set[str]) -> bool:
    """``s`` gives what the part needs (``_needs``): a dose or a duration of a drug the part asks about (not of
    another drug in the same sentence), a dose not for an age group other than the one it names."""
    met = needs & s.words
    if "dose" in needs - met and _asks_amount_of_thing(part) and _measures(s.text):
        met |= {"dose"}
    if "dose" in met and not _dose_for(part, s):
        met -= {"dose"}
    if "long" in met and _others_dose(part, s, DURATION_KINDS):
        met -= {"long"}  # "aciclovir 400 mg … x 1 week" says how long to give aciclovir, not the steroid
    return bool(met)


def _asks_amount_of_thing(part: Part) -> bool:
    """The part asks "how much" of something that is no drug ("how much displacement", "how much supervised
    exercise"): any measure answers it (2 mm, 2 hours a week), not only a dose, which none of its sources give."""
    return bool(_HOW_MUCH.search(part.text)) and not _DOSE_SAID.search(part.text) and not _asked_drugs(part)


_HOW_MUCH = re.compile(r"\bhow much\b", re.I)
_DOSE_SAID = re.compile(r"\bdos(?:e|es|age|ing)\b", re.I)


@cache
def _measures(text: str) -> bool:
    """``text`` gives a measured quantity: a number with a unit (a bare number measures nothing)."""
    return any(q.dim for q in quantities.find(text))


def _dose_for(part: Part, s: Sentence) -> bool:
    if _others_dose(part, s):
        return False  # "sumatriptan 50 to 100 mg combined with an NSAID or paracetamol" for paracetamol
    asked, said = _asked_ages(part.text), _dose_groups(s.text)
    return not (asked and said and not asked & said)  # "paracetamol for children is dosed …" for an adult


def _others_dose(part: Part, s: Sentence, kinds: frozenset[str] = quantities.DOSE_KINDS) -> bool:
    """Every dose (or duration: ``kinds``) ``s`` gives is of a drug the part does not ask about, where it asks
    about drugs."""
    asked = _asked_drugs(part)
    owners = _owners(s.text, kinds) if asked else None
    return bool(owners) and not any(_is_asked(w, asked) for w in owners or ())


def _others_quantity(part: Part, s: Sentence) -> bool:
    """``s`` gives a dose or a duration the part asks for, only of drugs it does not ask about."""
    asked = part.want & ANSWER_TYPES
    return bool(asked & s.words) and bool(_asked_drugs(part)) and not _answers(part, s, asked)


def _asked_drugs(part: Part) -> set[str]:
    """The drugs and drug classes ("steroid") the part itself names; a follow-on ("and for how long?") that
    names none asks about those of the subject it continues."""
    own = _drugs_of(part) | _class_words(part.own - part.inherited)
    return own or {w for w in part.inherited if _names_drug(w)}


def _is_asked(drug: str, asked: set[str]) -> bool:
    """``drug`` (a drug or a class a sentence names) is one asked about, or a member of a class asked about:
    prednisone for "steroid"."""
    named = {_class_name(a) for a in asked} - {None}
    return drug in asked or bool(named & (_classes_of(drug) | {_class_name(drug)}))


@cache
def _dose_groups(text: str) -> set[str]:
    return dose_groups(text)


def _other_doses(part: Part, source: Source, needs: set[str]) -> bool:
    """``source`` gives doses, and none is the asked drug's for the asked group: a card on another drug's
    regimen that names the asked one in passing (a triptan's dose "combined with … paracetamol")."""
    doses = [x for x in source.sentences if "dose" in x.words]
    return bool(doses) and not any(_answers(part, x, needs) for x in doses)


def _asks_drug_dose(part: Part) -> bool:
    """The part asks the dose of a drug it names: only a source that gives that drug's dose answers it."""
    return "dose" in part.own and bool(_asked_drugs(part))
