"""Ages as a clinician writes them ("a 6 week old", "62 yo", "aged 4"), read as the age group they name.

A question's "6 week old" is about an infant, not about weeks: searched or compared word by word, the number
and the unit find passages on durations ("Phase 2 lasts 2-8 weeks") instead of the ones on infants.
"""

from __future__ import annotations

import re

from hippo_tui.verification.quantities import WORD_NUMBERS

AGE = re.compile(r"\b(\d{1,3})[\s-]*(?:(?:years?|yrs?|y)[\s-]*old\b|yo\b|y/o\b)|\baged?\s+(\d{1,3})\b", re.I)
BABY_AGE = re.compile(r"\b\d+[\s-]*(?:weeks?|months?|days?|wks?|mths?)[\s-]*old\b", re.I)
# "at 3 years 4 months of age", "the first 6 months of life": an age said with "of age" or "of life".
_NUMBER_WORDS = "|".join(w for w, v in WORD_NUMBERS.items() if v >= 1 and v == int(v))
AGE_OF = re.compile(
    rf"\b(\d{{1,3}}|{_NUMBER_WORDS})\s*(years?|months?|weeks?|days?)(?:\s+(?:and\s+)?\d{{1,2}}\s*months?)?"
    r"\s+of\s+(?:age|life)\b",
    re.I,
)
ADULT_AGE = 18  # from this age a question is about an adult


def _years(m: re.Match[str]) -> int:
    return int(m.group(1) or m.group(2))


def stated_groups(text: str) -> set[str]:
    """The lexicon's age groups ("children", "adults") the ages stated in ``text`` fall in."""
    groups = {"adults" if _years(m) >= ADULT_AGE else "children" for m in AGE.finditer(text)}
    groups |= {_group_of(m) for m in AGE_OF.finditer(text)}
    return groups | ({"children"} if BABY_AGE.search(text) else set())


def _group_of(m: re.Match[str]) -> str:
    years = m.group(2).lower().startswith("year")
    n = m.group(1).lower()
    return "adults" if years and (int(n) if n.isdigit() else WORD_NUMBERS[n]) >= ADULT_AGE else "children"


def as_groups(text: str) -> str:
    """``text`` with each stated age written as its group's word: "a 6 week old" -> "a infant"."""
    text = BABY_AGE.sub("infant", text)
    return AGE.sub(lambda m: "adult" if _years(m) >= ADULT_AGE else "child", text)


# "Adults of any age", "regardless of age": advice for every age, a claim's "40-year-old" or teenager among them.
ANY_AGE = re.compile(
    r"(?i)\b(?:regardless of (?:their )?age|(?:of|at) (?:all|any) ages?|whatever their age)\b"
)
