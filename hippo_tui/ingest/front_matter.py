"""The front matter of a Markdown document: ``key: value`` lines between ``---`` fences.

Only the four keys ingest uses are read (title, publisher, updated, url), as plain strings with optional
quotes; other keys are ignored. That is the whole of what a protocol's front matter needs, without a YAML
library (and without YAML's surprises: ``updated: 2026-01-31`` stays a string we parse ourselves).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from hippo_tui.ingest.document import IngestError, clean

KEYS = ("title", "publisher", "updated", "url")


def split(text: str) -> tuple[dict[str, str], str, int]:
    """(fields, the text after the front matter, how many lines the front matter took)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return {}, text, 0  # no closing fence: a thematic break, not front matter
    fields: dict[str, str] = {}
    for raw in lines[1:end]:
        key, sep, value = raw.partition(":")
        key = key.strip().lower()
        if sep and key in KEYS:
            fields[key] = clean(value.strip().strip("'\""))
    return fields, "\n".join(lines[end + 1 :]), end + 1


def parse_date(value: str, path: Path, *, line: int | None = None, what: str = "updated") -> date:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise IngestError(path, f"{what} {value!r} is not a date (YYYY-MM-DD)", line=line) from None
