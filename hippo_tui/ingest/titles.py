"""A document's title as a clinician would recognise it, not what its authoring tool left in the metadata.

Junk is what a tool writes when nobody set a title: "untitled", "Microsoft Word - protocol.docx",
"Dept Health Guidelines.indd", "PowerPoint Presentation", a bare file name. A PDF without a usable title
gets the largest-font line of its first page (the title as printed).
"""

from __future__ import annotations

import math
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


def _size(cm: Any, tm: Any, font_size: float) -> float:
    scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) if tm and cm else 1.0
    return round(font_size * (scale or 1.0), 1)


def first_page_title(reader: Any) -> str | None:
    """The text set in the largest font on page 1 (the runs of that size joined), when it reads as a title."""
    runs: list[tuple[float, str]] = []

    def visit(text: str, cm: Any, tm: Any, _font: Any, font_size: float) -> None:
        if text.strip():
            runs.append((_size(cm, tm, font_size), text))

    try:
        reader.pages[0].extract_text(visitor_text=visit)
    except Exception:  # a title is a nicety: any failure here leaves the next source of one
        return None
    if len({size for size, _ in runs}) < 2:
        return None  # one size throughout: no line stands out as the title
    largest = max(size for size, _ in runs)
    title = " ".join(" ".join(t for size, t in runs if size == largest).split())
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
