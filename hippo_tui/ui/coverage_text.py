"""What the app says about an answer's coverage: the marked final text, and the line under it.

Plain Python: the answer pane, the status line, copy and export read the same words. The engine has
measured the coverage (``EndEvent.coverage``); nothing here splits sentences or parses the text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippo_tui.safe_text import clip

if TYPE_CHECKING:  # the event models (pydantic) load with the engine, after the app's first frame
    from hippo_tui.events import EndEvent


def shown_text(end: EndEvent) -> str:
    """The final text as the pane shows it: a complete answer's unbacked statements marked as ``ask``
    marks them; any other ending as the engine gave it (nothing of it was measured)."""
    if end.outcome != "complete" or not end.coverage.unbacked:
        return end.text
    from hippo_tui.verification.coverage import mark_unbacked

    return mark_unbacked(end.text, end.coverage)


def coverage_line(end: EndEvent) -> str | None:
    """ "4 of 5 statements backed by a verified source", "Nothing in this answer was checked …" or the
    abstention; None when there is nothing to say (not complete, or no statement at all)."""
    c = end.coverage
    if end.outcome != "complete" or not (c.statements or c.abstained):
        return None
    return c.line


def coverage_mark(end: EndEvent) -> str:
    """The mark that says it without colour: ○ not covered, ⚠ nothing checked, ✓ some statement backed."""
    c = end.coverage
    return "○" if c.abstained else "⚠" if not c.backed else "✓"


def coverage_footer(end: EndEvent) -> str | None:
    """The coverage line as the turn's footer says it."""
    line = coverage_line(end)
    if line is None:
        return None
    c = end.coverage
    if c.abstained:
        return f"○ {line}"
    if not c.backed:
        return f"⚠ {line}: no statement cites a verified source."
    if not c.unbacked:
        return line
    from hippo_tui.verification.coverage import UNBACKED_MARK

    return f"{line} · unbacked ones marked{UNBACKED_MARK}"


def coverage_short(end: EndEvent) -> str | None:
    """The status line's form for thin terminals: "4/5 backed", "Nothing checked", "Not in the KB"."""
    line = coverage_line(end)
    if line is None:
        return None
    c = end.coverage
    words = (
        "Not in the KB"
        if c.abstained
        else "Nothing checked"
        if not c.backed
        else f"{c.backed}/{c.statements} backed"
    )
    return f"{coverage_mark(end)} {words}"


def citation_footer(end: EndEvent) -> str:
    """The line under a finished answer: each shown citation with ✓/? and words, and what was hidden."""
    parts = []
    for c in sorted(end.citations, key=lambda c: c.number):
        mark = "✓ verified" if c.grounding == "grounded" else "? unchecked"
        parts.append(f"[{c.number}] {clip(c.title, 48, flat=True)} ({mark})")
    coverage = coverage_footer(end)
    return "\n".join([*parts, verification_line(end), *([coverage] if coverage else [])])


def verification_line(end: EndEvent) -> str:
    v = end.verification
    if end.outcome == "withdrawn":
        return "Answer withdrawn"
    if v.attempted == 0:
        return "No citations in this answer"
    if v.note:
        return f"{clip(v.note, flat=True)} · {len(end.citations)} of {v.attempted} citations shown, unchecked"
    return f"{v.grounded} of {v.attempted} citations verified"
