"""Plain text notes: paragraphs split by blank lines; a short line standing alone is a heading.

A formulary note is usually a few headed paragraphs ("Dosing", blank line, text); a line of its own under
80 characters that does not end like a sentence, followed by more text or by list lines, is taken as a
heading (the first one is the note's title). Lines starting with "-", "*", "•" or "1." are list items.
"""

from __future__ import annotations

import re

from hippo_tui.ingest.document import Parsed, SectionBuilder

_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")
_SENTENCE_END = (".", ":", ";", "!", "?", ",")


def _is_heading(line: str) -> bool:
    line = line.strip()
    return len(line) < 80 and not line.endswith(_SENTENCE_END) and not _ITEM.match(line)


def _heading_of(lines: list[str], is_last: bool) -> str | None:
    """The paragraph's heading: a lone short line before more text, or one over a list ("Interactions")."""
    if not _is_heading(lines[0]):
        return None
    if len(lines) == 1:
        return None if is_last else lines[0]
    return lines[0] if all(_ITEM.match(line) for line in lines[1:]) else None


def parse(text: str) -> Parsed:
    out = SectionBuilder()
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            paragraphs.append((start, current))
            current = []
    if current:
        paragraphs.append((start, current))
    for i, (first, lines) in enumerate(paragraphs):
        heading = _heading_of(lines, i == len(paragraphs) - 1)
        if heading is not None:
            out.heading(1 if i == 0 else 2, heading)  # a heading first of all is the note's title
            lines = lines[1:]
            first += 1
        pending: list[str] = []
        for offset, raw in enumerate(lines):
            if _ITEM.match(raw):
                if pending:
                    out.add(" ".join(pending), "para", line=first)
                    pending = []
                out.add(_ITEM.sub("", raw, count=1), "item", line=first + offset)
            else:
                pending.append(raw)
        if pending:
            out.add(" ".join(pending), "para", line=first)
    return Parsed(sections=out.sections(), title=out.title)
