"""Ages as a clinician writes them ("a 6 week old", "62 yo", "aged 4"), read as the age group they name.

A question's "6 week old" is about an infant, not about weeks: searched or compared word by word, the number
and the unit find passages on durations ("Phase 2 lasts 2-8 weeks") instead of the ones on infants.
"""

from __future__ import annotations

import re

AGE = re.compile(r"\b(\d{1,3})[\s-]*(?:(?:years?|yrs?|y)[\s-]*old\b|yo\b|y/o\b)|\baged?\s+(\d{1,3})\b", re.I)
BABY_AGE = re.compile(r"\b\d+[\s-]*(?:weeks?|months?|days?|wks?|mths?)[\s-]*old\b", re.I)
ADULT_AGE = 18  # from this age a question is about an adult


def _years(m: re.Match[str]) -> int:
    return int(m.group(1) or m.group(2))


def stated_groups(text: str) -> set[str]:
    """The lexicon's age groups ("children", "adults") the ages stated in ``text`` fall in."""
    groups = {"adults" if _years(m) >= ADULT_AGE else "children" for m in AGE.finditer(text)}
    return groups | ({"children"} if BABY_AGE.search(text) else set())


def as_groups(text: str) -> str:
    """``text`` with each stated age written as its group's word: "a 6 week old" -> "a infant"."""
    text = BABY_AGE.sub("infant", text)
    return AGE.sub(lambda m: "adult" if _years(m) >= ADULT_AGE else "child", text)
