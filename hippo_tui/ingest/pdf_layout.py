"""What a PDF's text layer says about its layout: the font size and weight of each printed line.

Most guidelines have no outline (bookmarks), but they print their headings larger or bold. One pass of
pypdf's text extraction with a visitor gives each page's text and its lines with their size; the body size
is the size most of the characters are set in, and a short line set larger (or bold at body size) is a
heading, its level from the rank of its size.

The size also separates paragraphs where the text layer has no blank lines (a one-page form, a poster): a
line set much smaller or larger than the line before starts a new paragraph, so a reference list set small
under a dose is not read as part of the dose's paragraph (and dropped with it as a citation).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_LETTERS = re.compile(r"[A-Za-z]{2}")
_SPACE = re.compile(r"\s+")
_BLANK_LINE = re.compile(r"\n\s*\n")
_HEADING_CHARS = 120
_LARGER = 1.15  # a heading's size over the body's
_NEW_PARAGRAPH = 1.25  # a line this much smaller or larger than the one before starts a paragraph
_MIN_LINE_CHARS = 10


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


def _runs_visitor(lines: list[Line], runs: list[tuple[str, float]]) -> Any:
    last_y: list[float | None] = [None]

    def visit(text: str, cm: Any, tm: Any, font: Any, font_size: float) -> None:
        if not text.strip():
            return
        scale = abs(tm[3] * cm[3]) or abs(tm[0] * cm[0]) or 1.0
        y = round(tm[4] * cm[1] + tm[5] * cm[3] + cm[5], 0)
        name = str(font.get("/BaseFont", "")) if font is not None and hasattr(font, "get") else ""
        size, bold = round(font_size * scale, 1), bool(_BOLD.search(name))
        runs.append((text, size))
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
    runs: list[tuple[str, float]] = []
    text = page.extract_text(visitor_text=_runs_visitor(lines, runs)) or ""
    return Page(_break_at_size_changes(text, runs), lines)


def _line_sizes(lines: list[str], runs: list[tuple[str, float]]) -> list[float | None] | None:
    """The size most of each text line's characters are set in; None when the visitor's runs do not spell
    the page's text character for character (then nothing is inferred from them)."""
    sizes = [size for run, size in runs for ch in run if not ch.isspace()]
    drawn = "".join(ch for run, _ in runs for ch in run if not ch.isspace())
    if drawn != "".join(ch for line in lines for ch in line if not ch.isspace()):
        return None
    out: list[float | None] = []
    start = 0
    for line in lines:
        end = start + sum(1 for ch in line if not ch.isspace())
        counted = Counter(sizes[start:end])
        out.append(counted.most_common(1)[0][0] if counted else None)
        start = end
    return out


def _break_at_size_changes(text: str, runs: list[tuple[str, float]]) -> str:
    """``text`` with a blank line wherever a line's type size differs markedly from the line before, when
    it has no blank line of its own (a page that has them marks its paragraphs already)."""
    if _BLANK_LINE.search(text.strip()):
        return text
    lines = text.split("\n")
    sizes = _line_sizes(lines, runs)
    if sizes is None:
        return text
    out: list[str] = []
    before: float | None = None
    for line, size in zip(lines, sizes, strict=True):
        # A short line (a superscript "th", a footnote mark on its own line) neither breaks nor sets the size.
        size = size if len(line.strip()) >= _MIN_LINE_CHARS else None
        if (
            size is not None
            and before is not None
            and max(size, before) >= _NEW_PARAGRAPH * min(size, before)
        ):
            out.append("")
        out.append(line)
        before = size or before
    return "\n".join(out)


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
