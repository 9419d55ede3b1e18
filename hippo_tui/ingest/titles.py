"""A document's title as a clinician would recognise it, not what its authoring tool left in the metadata.

Junk is what a tool writes when nobody set a title: "untitled", "Microsoft Word - protocol.docx",
"Dept Health Guidelines.indd", "PowerPoint Presentation", a bare file name. A PDF without a usable title
gets the largest-font line of its first page (the title as printed).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

_JUNK = re.compile(
    r"^(untitled\b.*|document\s*\d*|title|slide\s*\d*|powerpoint presentation|presentation\d*|"
    r"microsoft (word|excel|powerpoint)\b.*|.*\.(indd|docx?|xlsx?|pptx?|pdf|rtf|odt|qxd|qxp|ai|eps|tiff?|jpe?g|png)"
    r"|\W*|[^a-z]*\d[^a-z]*)$",
    re.IGNORECASE,
)
_PANDOC_ATTRS = re.compile(r"\s*\{[#.][^}]*\}\s*$")  # "Dosing {#dosing}", "Notes {.unnumbered}"


def is_junk(title: str) -> bool:
    """Whether ``title`` is what a tool wrote rather than the document's title."""
    return len(title.strip()) < 3 or _JUNK.match(title.strip()) is not None


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
    block = [line.text for line in itertools.takewhile(lambda line: line.size == largest, lines[start:])]
    title = " ".join(" ".join(block[:3]).split())  # the first lines in that size: a title, not its headings
    return (
        title if 3 <= len(title) <= 200 and not is_junk(title) and re.search("[A-Za-z]{3}", title) else None
    )


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
