"""Dropping what is not content before it becomes a citable passage.

A table of contents (dot leaders to page numbers), navigation ("↑ Back to Table of Contents", "Skip to
content"), a reference list or bibliography, and text without a real word ("1 2 3", "• •") would each be
quoted verbatim and so "verified", citing nothing a clinician could act on. They are dropped from the
passages (the file's other text keeps its sections and pages); how many is counted for the run's report.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hippo_tui.ingest.document import Block, Section

# Four or more dots (or spaced dots, ellipses, rules) running to a page number or the end: a contents line.
_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|_{6,}|(?:\s\.){4,}")
_NAVIGATION = re.compile(
    r"^\W*(back to (the )?(top|table of contents|contents|index|menu)|skip to (main )?content|return to top|"
    r"(previous|next) (page|section|chapter)|top of page|print this page|share this page|home)\W*$",
    re.IGNORECASE,
)
_REFERENCE_SECTION = re.compile(
    r"^\s*(\d+[.)]?\s*)?(references?|bibliography|further reading|works cited|literature cited|sources|citations)\s*$",
    re.IGNORECASE,
)
# A reference entry: authors "et al" or a year in brackets, with a journal's volume(issue):pages (or an
# online journal's article number, "105:e448") or a DOI.
_CITATION = re.compile(
    r"\bdoi\s*[:.]|\bpmid\b|\b\d{1,4}\s*\(\s*\d{1,4}\s*\)\s*:\s*e?\d+|;\s*\d{1,4}\s*:\s*e?\d+", re.I
)
_AUTHORS = re.compile(r"\bet al\b|\(\s*(19|20)\d\d\s*\)|\b(19|20)\d\d\s*;", re.IGNORECASE)
_REAL_WORD = re.compile(r"[A-Za-z]{3,}")


def is_content(block: Block) -> bool:
    """Whether ``block`` is text a citation could usefully point at."""
    text = block.text
    if block.kind == "code":
        return True
    if _REAL_WORD.search(text) is None:
        return False
    if _NAVIGATION.match(text):
        return False
    leaders = _LEADER.findall(text)
    if leaders and (len(leaders) >= 2 or re.search(r"(?:\.\s?){4,}\s*[\divxlc]+\s*$", text, re.I)):
        return False  # contents lines
    if sum(map(len, leaders)) * 5 > len(text):
        return False  # a form's blanks to fill in ("Name: ........ Date: ........")
    return not (_CITATION.search(text) and _AUTHORS.search(text))


# A run of dots, ellipses or underscores left in text (a form's blank, a rule): shown as one ellipsis.
_BLANK_RUN = re.compile(r"(?:\.\s?){5,}|…{2,}|_{5,}")


def _without_blanks(block: Block) -> Block:
    if block.kind == "code" or _BLANK_RUN.search(block.text) is None:
        return block
    return replace(block, text=_BLANK_RUN.sub("…", block.text))


def is_reference_section(section: Section) -> bool:
    return any(_REFERENCE_SECTION.match(h) for h in section.headings[-1:])


def keep_content(sections: list[Section]) -> tuple[list[Section], int]:
    """``sections`` without their non-content blocks (and reference sections), and how many were dropped."""
    kept: list[Section] = []
    dropped = 0
    for section in sections:
        if is_reference_section(section):
            dropped += len(section.blocks)
            continue
        blocks = [_without_blanks(b) for b in section.blocks if is_content(b)]
        dropped += len(section.blocks) - len(blocks)
        if blocks:
            kept.append(Section(section.headings, section.anchor, blocks))
    return kept, dropped
