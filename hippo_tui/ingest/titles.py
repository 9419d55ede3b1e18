"""A document's title as a clinician would recognise it, not what its authoring tool left in the metadata.

Junk is what a tool writes when nobody set a title: "untitled", "Microsoft Word - protocol.docx",
"Dept Health Guidelines.indd", "PowerPoint Presentation", a bare file name. A PDF without a usable title
gets the largest-font line of its first page (the title as printed), or, when that line only says what kind
of document it is ("GUIDELINE", "Original Article", "Press Release"), the lines printed under it.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from hippo_tui.ingest.pdf_layout import Page, body_size

_JUNK = re.compile(
    r"^(untitled\b.*|document\s*\d*|title|slide\s*\d*|powerpoint presentation|presentation\d*|"
    r"microsoft (word|excel|powerpoint)\b.*|.*\.(indd|docx?|xlsx?|pptx?|pdf|rtf|odt|qxd|qxp|ai|eps|tiff?|jpe?g|png)"
    r"|\W*|[^a-z]*\d[^a-z]*)$",
    re.IGNORECASE,
)
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b"
)
# What kind of document it is, printed large above its title: a label, never the title of one document.
_GENRE = re.compile(
    r"^((clinical|practice|national|original|review|research|consensus|policy)\s+)?(guidelines?|article|"
    r"review|research|editorial|commentary|policy|protocol|statement|position statement|fact ?sheet|report|"
    r"newsletter|case report|summary|draft|update|(press|media) (release|statement))\W*"
    r"(\d{1,2}(st|nd|rd|th)?\s*)?(" + _MONTH + r"\.?\s*)?(\d{4})?\W*$",  # "PRESS RELEASE 13 August 2009"
    re.IGNORECASE,
)
_COPY_OF = re.compile(r"^copy of\s+", re.IGNORECASE)  # a shared drive's copy keeps the original's name
_PANDOC_ATTRS = re.compile(r"\s*\{[#.][^}]*\}\s*$")  # "Dosing {#dosing}", "Notes {.unnumbered}"


def tidy_metadata(title: str) -> str:
    """A metadata title without what a tool prefixed it with ("Copy of Press Statement")."""
    return _COPY_OF.sub("", title)


def is_junk(title: str) -> bool:
    """Whether ``title`` is what a tool wrote rather than the document's title."""
    title = title.strip()
    return len(title) < 3 or _JUNK.match(title) is not None or _GENRE.match(title) is not None


def tidy_heading(text: str) -> str:
    """A heading without Pandoc's attribute block or Markdown's "#" marks."""
    return _PANDOC_ATTRS.sub("", text).strip().strip("#").strip()


def printed_title(lines: list[Any]) -> str | None:
    """The text set in the largest font on page 1 (its lines joined), when it reads as a title; ``lines``
    are ``pdf_layout.Line``s."""
    if len({line.size for line in lines}) < 2:
        return None  # one size throughout: no line stands out as the title
    largest = max(line.size for line in lines)
    start = next(i for i, line in enumerate(lines) if line.size == largest)
    block = _block(lines[start:])
    title = _joined(block)
    if _GENRE.match(title):
        title = _under_label(lines[start + len(block) :], body_size([Page("", lines)]))
    return (
        title if 3 <= len(title) <= 200 and not is_junk(title) and re.search("[A-Za-z]{3}", title) else None
    )


def spaced_as(title: str, text: str) -> str:
    """``title`` with the spaces ``text`` (the page's text) puts between its words: the runs that make up a
    printed line are joined without them ("SOUTH AFRICANANTIRETROVIRAL", "RuralDoctoroftheYear")."""
    pattern = r"\s*".join(re.escape(ch) for ch in title if not ch.isspace())
    found = re.search(pattern, text) if pattern else None
    return " ".join(found.group(0).split()) if found else title


def _under_label(lines: list[Any], body: float) -> str:
    """The title printed under a genre label: the next lines, when set apart from the body text (bold or
    larger), not the first paragraph."""
    block = _block(lines)
    return _joined(block) if block and (block[0].bold or block[0].size > body) else ""


def _block(lines: list[Any]) -> list[Any]:
    """The first lines set in the same size as the first (a title's lines)."""
    size = lines[0].size if lines else None
    return list(itertools.takewhile(lambda line: line.size == size, lines))


def _joined(block: list[Any]) -> str:
    return " ".join(" ".join(line.text for line in block[:3]).split())  # a title, not its headings


def collapse(parts: list[str]) -> list[str]:
    """A title path without repeats: "Tranexamic Acid › Tranexamic Acid (TXA) › Dose" reads
    "Tranexamic Acid (TXA) › Dose" (a part that only extends the one before it replaces it)."""
    out: list[str] = []
    for part in parts:
        if out and part.casefold().startswith(out[-1].casefold()):
            out[-1] = part
        else:
            out.append(part)
    return out
