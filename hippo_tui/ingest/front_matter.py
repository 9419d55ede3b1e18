"""The front matter of a Markdown document: ``key: value`` lines between ``---`` fences.

Only the keys ingest uses are read (title, publisher, url and the dates), as plain strings with optional
quotes, or the items of a ``- item`` list under a key; other keys are ignored. That is the whole of what a
protocol's front matter needs, without a YAML library (and without YAML's surprises: ``updated:
2026-01-31`` stays a string we parse ourselves).
"""

from __future__ import annotations

import re
from datetime import date

from hippo_tui.ingest.document import clean

# The date keys in the order they are trusted: an explicit "updated" first, a creation date last.
DATE_KEYS = ("updated", "last_modified", "last-modified", "modified", "updates", "date", "created")
KEYS = ("title", "publisher", "url", *DATE_KEYS)
_EMPTY = ("null", "~", "none", "tbd", "n/a")  # YAML's empty values and placeholders: no date, no warning
_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")


def _fields(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = None  # the key a "- item" line belongs to
    for raw in lines:
        item = raw.strip()
        if item.startswith("- ") and key is not None:
            fields[key] = max(fields.get(key, ""), clean(item[2:].strip("'\"")))  # the latest of dates
            continue
        name, sep, value = raw.partition(":")
        name = name.strip().lower()
        key = name if sep and name in KEYS and not value.strip() and raw[:1] not in " \t" else None
        if sep and name in KEYS and value.strip():
            fields[name] = clean(value.strip().strip("'\""))
    return fields


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
    return _fields(lines[1:end]), "\n".join(lines[end + 1 :]), end + 1


def parse_date(value: str, warnings: list[str], *, what: str = "updated") -> date | None:
    """``value`` as a date (2018-04-27, 2018/04/27, 2018.04.27, or a timestamp starting with one); a value
    that is not one is a warning in ``warnings`` and no date, not a file left out."""
    found = _DATE.match(value.strip())
    try:
        if found:
            return date(*(int(g) for g in found.groups()))
    except ValueError:
        pass
    warnings.append(f"{what} {value!r} is not a date (YYYY-MM-DD); the date is left empty")
    return None


def front_matter_date(fields: dict[str, str], warnings: list[str]) -> date | None:
    """The document's date from the first date key it has."""
    for key in DATE_KEYS:
        if fields.get(key) and fields[key].lower() not in _EMPTY:
            return parse_date(fields[key], warnings, what=key)
    return None
