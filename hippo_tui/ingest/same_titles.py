"""Documents that print the same title told apart in their citations.

Two guidelines titled "DRTB Treatment and ARVs" (an adults' and a children's summary), or a policy and its
revision, would cite as the same words. Where a run's document shares its title with another of the run or
with an active stored document, its title gains what tells them apart: the year, when each of them has
a different one (from its date or its file name), else its file name tidied.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from hippo_tui.ingest.versions import IngestItem

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_ADDED = re.compile(r" \([^()]*\)$")  # what this module added to a stored title


def _base(title: str) -> str:
    return _ADDED.sub("", title).casefold()


def _stem(path: Path) -> str:
    words = " ".join(path.stem.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:]


def _year(item: IngestItem) -> str | None:
    doc = item.doc
    years = [str(doc.updated.year)] if doc.updated else _YEAR.findall(doc.path.stem)
    return years[-1] if years and years[-1] not in doc.title else None


def _suffixes(group: list[IngestItem]) -> list[str]:
    years = [_year(i) for i in group]
    if all(years) and len(set(years)) == len(group):
        return [y or "" for y in years]
    stems = [_stem(i.doc.path) for i in group]
    if len({s.casefold() for s in stems}) == len(group):
        return stems
    return [f"{i.doc.path.parent.name}/{i.doc.path.name}" for i in group]


def _retitle(item: IngestItem, suffix: str) -> None:
    old = item.doc.title
    item.doc.title = f"{old} ({suffix})"
    # A passage's title is its document's followed by its section path.
    item.passages[:] = [replace(p, title=item.doc.title + p.title[len(old) :]) for p in item.passages]


def tell_apart(items: list[IngestItem], stored: Mapping[str, str]) -> int:
    """Retitle ``items`` that share a title with another item or a ``stored`` document (key -> title, the
    active documents not in this run); how many were retitled."""
    by_title: dict[str, list[IngestItem]] = defaultdict(list)
    for item in items:
        by_title[item.doc.title.casefold()].append(item)
    taken = {_base(title) for key, title in stored.items()}
    n = 0
    for title, group in by_title.items():
        if len(group) < 2 and title not in taken:
            continue
        for item, suffix in zip(group, _suffixes(group), strict=True):
            if suffix and suffix.casefold() != item.doc.title.casefold():
                _retitle(item, suffix)
                n += 1
    return n
