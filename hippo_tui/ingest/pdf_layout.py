"""What a PDF's text layer says about its layout: the font size and weight of each printed line.

Most guidelines have no outline (bookmarks), but they print their headings larger or bold. One pass of
pypdf's text extraction with a visitor gives each page's text and its lines with their size; the body size
is the size most of the characters are set in, and a short line set larger (or bold at body size) is a
heading, its level from the rank of its size.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_LETTERS = re.compile(r"[A-Za-z]{2}")
_SPACE = re.compile(r"\s+")
_HEADING_CHARS = 120
_LARGER = 1.15  # a heading's size over the body's


@dataclass
class Line:
    size: float
    bold: bool
    text: str


@dataclass
class Page:
    text: str
    lines: list[Line] = field(default_factory=list)


def key(text: str) -> str:
    """A line's text for matching the visitor's runs against the page text (spacing differs)."""
    return _SPACE.sub("", text).casefold()


def _runs_visitor(lines: list[Line]) -> Any:
    last_y: list[float | None] = [None]

    def visit(text: str, cm: Any, tm: Any, font: Any, font_size: float) -> None:
        if not text.strip():
            return
        scale = abs(tm[3] * cm[3]) or abs(tm[0] * cm[0]) or 1.0
        y = round(tm[4] * cm[1] + tm[5] * cm[3] + cm[5], 0)
        name = str(font.get("/BaseFont", "")) if font is not None and hasattr(font, "get") else ""
        size, bold = round(font_size * scale, 1), bool(_BOLD.search(name))
        if lines and last_y[0] == y:
            line = lines[-1]
            line.text += text
            line.size, line.bold = max(line.size, size), line.bold and bold
        else:
            lines.append(Line(size, bold, text))
        last_y[0] = y

    return visit


def read_page(page: Any) -> Page:
    lines: list[Line] = []
    text = page.extract_text(visitor_text=_runs_visitor(lines)) or ""
    return Page(text, lines)


def body_size(pages: list[Page]) -> float:
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def headings(pages: list[Page]) -> list[dict[str, int]]:
    """Per page, the heading lines (by ``key``) and their level (2 for the largest size, then 3, 4)."""
    body = body_size(pages)
    if body <= 0:
        return [{} for _ in pages]

    def candidate(line: Line) -> bool:
        text = " ".join(line.text.split())
        return (
            3 <= len(text) <= _HEADING_CHARS
            and _LETTERS.search(text) is not None
            and not text.endswith((".", ",", ";"))
            and (text[0].isupper() or text[0].isdigit())  # not a bullet, not a sentence's continuation
            and (line.size >= body * _LARGER or (line.bold and line.size >= body * 0.95))
        )

    found = [[line for line in page.lines if candidate(line)] for page in pages]
    sizes = sorted(
        {line.size for lines in found for line in lines if line.size >= body * _LARGER}, reverse=True
    )
    rank = {size: min(2 + i, 4) for i, size in enumerate(sizes)}
    bold_level = min(2 + len(sizes), 4)
    return [{key(line.text): rank.get(line.size, bold_level) for line in lines} for lines in found]
