"""What of a passage's text can answer a question: its statements, one row of a list or flowchart at a time,
never the document's apparatus.

A real document's passages carry more than statements. A bulleted list, a flowchart or a table, flattened by
ingest, reads as one "sentence" of a thousand characters ("» If the rapid test is positive … » If the infant
tests negative …"); each of its rows is read here as a sentence of its own, so that an answer quotes the row
that answers, not the chart. A section heading run into the sentence after it ("CHAPTER 9 SYSTEMIC
INFECTIONS Some important causes …") goes without the heading. A reference-list entry, a line of a table of
contents, a heading or a table's header row on its own, and any passage of a references, contents, index or
acknowledgements section, answer nothing: such text is never quoted.
"""

from __future__ import annotations

import re

# The marks a flattened list or chart puts before each of its rows ("•", "»", "▪", a PDF's private-use
# bullets), and a numbered step's "2." only after a row's end.
_ROW = re.compile(r"\s*(?:[•»▪●◦■□➢►✓√\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf0a8]|(?<=[.;:])\s+\d{1,2}\.(?=\s))\s*")
# A heading in capitals, two words or more, before the sentence it heads ("ANNEXURE 17: MANAGEMENT
# ALGORITHM … Does the patient …").
_HEADING = re.compile(r"^(?:[A-Z0-9][A-Z0-9&/,:()’'-]*\s+){2,}(?=[A-Z][a-z])")
_REFERENCE = re.compile(
    r"\bet al\b|\bdoi\b|\bretrieved\b|\bavailable (?:from|at)\b|https?://|www\.|\b(?:19|20)\d\d\s*;\s*\d"
    r"|\bvol\.\s*\d|\bpp?\.\s*\d|^\s*\[?\d{1,3}[.\]]\s+[A-Z][a-z]+\s+[A-Z]{1,2}\b",
    re.I,
)
_LEADERS = re.compile(r"\.{4,}|(?:\.\s){4,}|…{2,}")
# A document's index is a section that opens with the word ("INDEX OF MEDICINES"); a clinical index is named
# by what it scores ("Pneumonia Severity Index (PSI)", "Interviewing index patients"), and answers.
_APPARATUS = re.compile(
    r"\b(?:references?|bibliography|further reading|acknowledge?ments?|contents|"
    r"list of (?:tables|figures|abbreviations)|foreword|preface)\b|^\s*index\b",
    re.I,
)
# A row that opens a document's apparatus ("Appendix 1 Acknowledgements …", "References 1. …").
_APPARATUS_ROW = re.compile(
    r"^(?:(?:appendix|annex(?:ure)?|chapter|section)\s+[\w.]+\s+)?(?:acknowledge?ments?|references|bibliography|"
    r"table of contents|contents\b(?!\s+of))",
    re.I,
)
# A line of a table of contents without leader dots: a section's number, its heading, its page ("9.8 Tick
# bite fever 9.14"). The heading is words only, from a capital: a dose row ("0.5 mg per kg 12") is no heading.
_CONTENTS_LINE = re.compile(
    r"^\d{1,2}(?:\.\d{1,2}){1,3}\s+[A-Z][A-Za-z'’ ()-]*[a-z)]\s+\d{1,3}(?:[.-]\d{1,3})?$"
)
_EXPANSION = re.compile(r"\b([A-Z][A-Z0-9/]{1,6})\s*[:=–]\s*([A-Z]?[a-z]{3,}(?:\s+[a-z]{3,})?)")
MIN_EXPANSIONS = 4
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SMALL = frozenset("a an and as at by for from in into of on or the to with vs".split())

MIN_WORDS = 3  # a row with fewer words is a label, not a statement
# A table's header row, not a statement: of a long row's words this share (of a short one's all) in capitals or
# Title Case, with no number or clause mark in it.
HEADER_SHARE = 0.75
LONG_ROW = 10
_STATEMENT = re.compile(r"[.?!:;,]|\d")


def is_apparatus(title: str) -> bool:
    """The passage belongs to a references, contents, index or acknowledgements section (its title's last
    part names one: "Guidelines › References", "STG › INDEX OF DISEASE CONDITIONS")."""
    last = title.rsplit("›", 1)[-1]
    return bool(_APPARATUS.search(last))


def rows(sentence: str) -> list[str]:
    """``sentence`` split at the row marks of a flattened list or chart, each row without its heading."""
    out = []
    for piece in _ROW.split(sentence):
        piece = _HEADING.sub("", piece.strip()).strip(" -–")
        if piece:
            out.append(piece)
    return out


def is_junk(text: str) -> bool:
    """Text no answer quotes: a reference entry, a contents line, or a heading or header row on its own
    (words in capitals or Title Case, with no statement in them)."""
    if (
        _REFERENCE.search(text)
        or _LEADERS.search(text)
        or _APPARATUS_ROW.match(text)
        or _CONTENTS_LINE.match(text)
    ):
        return True
    if len(_EXPANSION.findall(text)) >= MIN_EXPANSIONS:
        return True  # a key to abbreviations ("LZD: Linezolid / BDQ: Bedaquiline / VL = Viral load …")
    words = _WORD.findall(text)
    if len(words) < MIN_WORDS:
        return False  # short lines are judged by the answerer (a label, or a value of a table row)
    # A header row names its columns: Title Case or capitals throughout, nothing but a last full stop.
    capitalised = [w for w in words if w[0].isupper() or w.lower() in _SMALL]
    has_statement = bool(_STATEMENT.search(text.rstrip(". ")))
    share = HEADER_SHARE if len(words) >= LONG_ROW else 1.0
    return len(capitalised) >= share * len(words) and not has_statement


def expansions(text: str) -> dict[str, str]:
    """The abbreviations a passage's key spells out ("BDQ: Bedaquiline / VL = Viral load"), when it has one."""
    found = _EXPANSION.findall(text)
    return {abbr: full for abbr, full in found} if len(found) >= MIN_EXPANSIONS else {}


def expanded(text: str, key: dict[str, str]) -> str:
    """``text`` with what each abbreviation of ``key`` it uses stands for after it ("BDQ (Bedaquiline)")."""
    if not key:
        return text
    return re.sub(
        r"\b[A-Z][A-Z0-9/]{1,6}\b",
        lambda m: f"{m.group()} ({key[m.group()]})" if m.group() in key else m.group(),
        text,
    )
