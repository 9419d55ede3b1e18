"""Comparing a document's new passages with the ones stored for it: what is added, kept, revised, removed.

Unchanged wording keeps its id (ids come from the wording, see ``passages``). Of the stored passages whose
wording is gone, each is paired, in order, with a new passage of the same section: that is a revision (the
old one is retired, superseded by the new one). A gone passage with no new one left in its section was
removed; a new one with no old one left was added.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePath

from hippo_tui.ingest.document import Document
from hippo_tui.ingest.passages import Passage


@dataclass(frozen=True)
class StoredPassage:
    """An active passage already stored for the document (what a re-ingest compares against)."""

    id: str
    title: str
    body: str | None
    anchor: str | None
    page: int | None


@dataclass(frozen=True)
class Retirement:
    id: str
    reason: str
    superseded_by: str | None


@dataclass
class Plan:
    """What one document's ingest changes. ``fresh`` are the passages to write as new (added and revised)."""

    added: list[Passage] = field(default_factory=list)
    unchanged: list[Passage] = field(default_factory=list)
    revised: list[tuple[str, Passage]] = field(default_factory=list)  # (old id, its successor)
    removed: list[str] = field(default_factory=list)
    moved: list[Passage] = field(default_factory=list)  # unchanged wording whose title, body or page changed

    @property
    def fresh(self) -> list[Passage]:
        return self.added + [new for _old, new in self.revised]

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "unchanged": len(self.unchanged),
            "revised": len(self.revised),
            "removed": len(self.removed),
        }

    def retirements(self, document: str, on: date) -> list[Retirement]:
        revised = [
            Retirement(old, f"revised in {document} on {on.isoformat()}", new.id) for old, new in self.revised
        ]
        return revised + [Retirement(old, removed_reason(document, on), None) for old in self.removed]


def removed_reason(document: str, on: date) -> str:
    """Why a passage gone from its document (or with its document) was retired."""
    return f"removed from {document} on {on.isoformat()}"


def plan(new: list[Passage], stored: list[StoredPassage]) -> Plan:
    """Compare ``new`` (the document's passages now) with ``stored`` (its active passages before)."""
    out = Plan()
    by_id = {s.id: s for s in stored}
    new_ids = {p.id for p in new}
    added_by_section: dict[str | None, list[Passage]] = defaultdict(list)
    for p in new:
        old = by_id.get(p.id)
        if old is None:
            added_by_section[p.anchor].append(p)
            continue
        out.unchanged.append(p)
        if (old.title, old.body, old.anchor, old.page) != (p.title, p.body, p.anchor, p.page):
            out.moved.append(p)
    for s in stored:
        if s.id in new_ids:
            continue
        successors = added_by_section.get(s.anchor)
        if successors:
            out.revised.append((s.id, successors.pop(0)))
        else:
            out.removed.append(s.id)
    paired = {new.id for _old, new in out.revised}
    out.added = [p for p in new if p.id not in by_id and p.id not in paired]
    return out


# The stored version of a document whose file is gone (``kb ingest --prune``): no file hashes to it, so the
# file, should it come back, is read again and its passages return as added (same wording, same ids).
REMOVED_VERSION = ""


def document_label(title: str, key: str) -> str:
    """How a retirement reason names a document: "Cystitis in adults (cystitis-protocol.md)"."""
    return f"{title} ({PurePath(key).name})"


@dataclass
class DocumentReport:
    """One document's line in an ingest run's report: ``status`` is new, revised or skipped (read), removed
    (its file is gone and ``--prune`` retired its passages) or missing (gone, and kept: no ``--prune``)."""

    key: str
    title: str
    format: str
    version: str
    status: str
    added: int = 0
    unchanged: int = 0
    revised: int = 0
    removed: int = 0

    def counts(self) -> dict[str, int]:
        return {
            "added": self.added,
            "unchanged": self.unchanged,
            "revised": self.revised,
            "removed": self.removed,
        }


@dataclass(frozen=True)
class DocumentHead:
    """What a re-ingest needs to know to skip a document: its stored version and metadata."""

    version: str
    title: str
    format: str
    publisher: str | None
    updated: str | None
    passages: int  # active


@dataclass(frozen=True)
class IngestItem:
    doc: Document
    passages: list[Passage]
