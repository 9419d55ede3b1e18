"""Horizontal bars drawn with Unicode block glyphs, the number always printed beside them.

Plain glyphs rather than a plotting library: they need no extra dependency (start-up time, snapshot
stability), draw the same in 16 colours or with ``NO_COLOR``, and the length of the bar plus the number
carry the meaning, never the colour. An empty track (``░``) shows how long a full bar would be.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

EIGHTHS = " ▏▎▍▌▋▊▉"  # a bar's last cell, in eighths of a cell
FULL = "█"
TRACK = "░"
NUMBER_WIDTH = "100.0%"  # numbers right-aligned to this, so bars line up from one block to the next
MAX_BAR = 40  # cells: wider bars on a wide terminal only make the numbers harder to reach


def bar(fraction: float, width: int) -> str:
    """``fraction`` (0–1, clamped) of ``width`` cells, to the eighth of a cell, then the empty track."""
    width = max(width, 0)
    eighths = round(max(0.0, min(fraction, 1.0)) * width * 8)
    full, rest = divmod(eighths, 8)
    drawn = FULL * full + (EIGHTHS[rest] if rest else "")
    return drawn + TRACK * (width - len(drawn))


@dataclass(frozen=True)
class BarRow:
    """One labelled bar: ``fraction`` of a full bar and the text printed after it (``12.5%``, ``7``)."""

    label: str
    fraction: float | None  # None: nothing to measure (no citations); the number says why
    number: str


def bar_rows(rows: list[BarRow], width: int, *, indent: int = 2) -> Content:
    """Rows of ``label  bar  number`` fitted to ``width`` columns, labels and numbers aligned."""
    label_w = max((len(r.label) for r in rows), default=0)
    number_w = max([len(NUMBER_WIDTH), *(len(r.number) for r in rows)])
    bar_w = max(1, min(MAX_BAR, width - indent - label_w - number_w - 2))
    parts: list[str | tuple[str, str]] = []
    for i, row in enumerate(rows):
        if i:
            parts.append("\n")
        parts.append(" " * indent + row.label.ljust(label_w) + " ")
        if row.fraction is None:
            parts.append((TRACK * bar_w, "dim"))
        else:
            drawn = bar(row.fraction, bar_w)
            filled = drawn.rstrip(TRACK)
            parts += [filled, (drawn[len(filled) :], "dim")]
        parts.append(" " + row.number.rjust(number_w))
    return Content.assemble(*parts)
