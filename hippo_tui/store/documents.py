"""The ingested-documents half of the Store: a document's passages written, kept or retired in one go."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import aiosqlite

from hippo_tui.store.base import StoreBase
from hippo_tui.store.sources import COLUMNS, UPSERT_SQL

# The ingest modules are imported where a method uses them: every command opens a Store, few ingest.
if TYPE_CHECKING:
    from hippo_tui.ingest.document import Document
    from hippo_tui.ingest.passages import Passage
    from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem, Plan, StoredPassage

# One setting of the meta table (the knowledge base's name, the search index's folding), on either backend.
SET_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
_RETIRE = "UPDATE sources SET status = 'retired', retired_reason = ?, superseded_by = ? WHERE id = ?"
# Unchanged wording: only its provenance and the document's metadata (not indexed: no re-indexing).
_REFRESH = (
    "UPDATE sources SET doc_version = ?, ingested = ?, publisher = ?, url = ?, updated = ? WHERE id = ?"
)
_RETIRE_DOCUMENT = (
    "UPDATE sources SET status = 'retired', retired_reason = ?, superseded_by = NULL "
    "WHERE doc_key = ? AND status = 'active'"
)
_MARK_REMOVED = "UPDATE documents SET version = ?, ingested = ? WHERE key = ?"
_MOVE = "UPDATE sources SET title = ?, body = ?, section = ?, page = ? WHERE id = ?"
_UPSERT_DOCUMENT = (
    "INSERT INTO documents (key, title, format, version, publisher, url, updated, ingested) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET title = excluded.title, "
    "format = excluded.format, version = excluded.version, publisher = excluded.publisher, "
    "url = excluded.url, updated = excluded.updated, ingested = excluded.ingested"
)
_ADD_VERSION = (
    "INSERT INTO document_versions (key, version, ingested, added, unchanged, revised, removed) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_WRITE_ORDER = (UPSERT_SQL, _MOVE, _REFRESH, _RETIRE, _UPSERT_DOCUMENT, _ADD_VERSION)


@dataclass
class DocumentInfo:
    """A stored document for ``kb docs``: its current version, passage counts and every version seen."""

    key: str
    title: str
    format: str
    version: str
    ingested: str
    publisher: str | None
    updated: str | None
    active: int
    retired: int
    versions: list[dict[str, Any]] = field(default_factory=list)


def _row(doc: Document, p: Passage, when: str, updated: str | None) -> tuple[Any, ...]:
    """A new passage as a sources row in UPSERT_SQL's column order (no Source model: thousands per run)."""
    values = {
        "id": p.id, "title": p.title, "excerpt": p.excerpt, "body": p.body, "publisher": doc.publisher,
        "url": doc.url, "updated": updated, "status": "active", "retired_reason": None, "superseded_by": None,
        "doc_key": doc.key, "section": p.anchor, "page": p.page, "doc_version": doc.version, "ingested": when,
    }  # fmt: skip
    return tuple(values[c] for c in COLUMNS)


class DocumentsMixin(StoreBase):
    kb_name: str

    async def document_heads(self, keys: Sequence[str]) -> dict[str, DocumentHead]:
        """The stored version of each of ``keys`` that is stored, in one query."""
        return await self._heads("d.key IN (SELECT value FROM json_each(?))", keys)

    async def documents_under(self, folders: Sequence[str]) -> dict[str, DocumentHead]:
        """Every stored document whose key (path) lies under one of ``folders`` (each ending in a path
        separator), except those already removed."""
        where = (
            "EXISTS (SELECT 1 FROM json_each(?) f WHERE substr(d.key, 1, length(f.value)) = f.value) "
            "AND d.version != ?"
        )
        from hippo_tui.ingest.versions import REMOVED_VERSION

        return await self._heads(where, folders, REMOVED_VERSION)

    async def _heads(self, where: str, values: Sequence[str], *more: str) -> dict[str, DocumentHead]:
        from hippo_tui.ingest.versions import DocumentHead

        with self._errors():
            cur = await self._db.execute(
                "SELECT d.key, d.version, d.title, d.format, d.publisher, d.updated, "
                "(SELECT count(*) FROM sources s WHERE s.doc_key = d.key AND s.status = 'active') "
                f"FROM documents d WHERE {where}",
                (json.dumps(list(values)), *more),
            )
            return {r[0]: DocumentHead(*r[1:]) for r in await cur.fetchall()}

    async def _stored_passages(
        self, db: aiosqlite.Connection, keys: list[str]
    ) -> dict[str, list[StoredPassage]]:
        from hippo_tui.ingest.versions import StoredPassage

        cur = await db.execute(
            "SELECT doc_key, id, title, body, section, page FROM sources "
            "WHERE doc_key IN (SELECT value FROM json_each(?)) AND status = 'active' ORDER BY rowid",
            (json.dumps(keys),),
        )
        out: dict[str, list[StoredPassage]] = {}
        for key, *rest in await cur.fetchall():
            out.setdefault(key, []).append(StoredPassage(*rest))
        return out

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[aiosqlite.Connection]:
        with self._errors():
            yield self._db

    async def apply_ingest(
        self,
        items: Sequence[IngestItem],
        *,
        when: datetime,
        dry_run: bool = False,
        retire: Sequence[tuple[str, str]] = (),
        kb_name: str | None = None,
        remove: Sequence[str] = (),
    ) -> list[DocumentReport]:
        """Compare each document's passages with the stored ones and write the result, all in ONE transaction.

        ``remove`` are the keys of stored documents whose files are gone: all their active passages are
        retired ("removed from <document> on <date>"). ``retire`` are (id, reason) pairs retired in the same
        transaction (the demo KB an ingest replaces), and ``kb_name`` renames the knowledge base in it too.
        With ``dry_run`` nothing is written and the reports say what would have been.
        """
        from hippo_tui.ingest.versions import DocumentReport

        async with self._reading() if dry_run else self._transaction() as db:
            reports = await self._plan_and_write(db, items, when, dry_run)
            removed = await self.document_heads(remove) if remove else {}
            reports += [
                DocumentReport(key, h.title, h.format, h.version, "removed", removed=h.passages)
                for key, h in removed.items()
            ]
            if not dry_run:
                await _write_removals(db, removed, when)
                await db.executemany(_RETIRE, [(reason, None, sid) for sid, reason in retire])
                if kb_name:
                    await db.execute(SET_META, ("kb_name", kb_name))
        if not dry_run:
            self._doc_counts.clear()
            self.kb_name = kb_name or self.kb_name
            await self.compact_index(sum(len(i.passages) for i in items))
        return reports

    async def _plan_and_write(
        self, db: aiosqlite.Connection, items: Sequence[IngestItem], when: datetime, dry_run: bool
    ) -> list[DocumentReport]:
        from hippo_tui.ingest.versions import DocumentReport, plan

        stored = await self._stored_passages(db, [i.doc.key for i in items])
        plans = [(item, plan(item.passages, stored.get(item.doc.key, []))) for item in items]
        if not dry_run:
            await _write_plans(db, plans, when)
        return [
            DocumentReport(
                i.doc.key, i.doc.title, i.doc.format, i.doc.version,
                _status(i.doc.key in stored, p.counts()), **p.counts(),
            )
            for i, p in plans
        ]  # fmt: skip

    async def list_documents(self) -> list[DocumentInfo]:
        """Every ingested document by title, with its passage counts and versions (newest first)."""
        with self._errors():
            cur = await self._db.execute(
                "SELECT d.key, d.title, d.format, d.version, d.ingested, d.publisher, d.updated, "
                "(SELECT count(*) FROM sources s WHERE s.doc_key = d.key AND s.status = 'active'), "
                "(SELECT count(*) FROM sources s WHERE s.doc_key = d.key AND s.status = 'retired') "
                "FROM documents d ORDER BY d.title, d.key"
            )
            docs = {r[0]: DocumentInfo(*r) for r in await cur.fetchall()}
            cur = await self._db.execute(
                "SELECT key, version, ingested, added, unchanged, revised, removed FROM document_versions "
                "ORDER BY id DESC"
            )
            for key, *row in await cur.fetchall():
                names = ("version", "ingested", "added", "unchanged", "revised", "removed")
                docs[key].versions.append(dict(zip(names, row, strict=True)))
        return list(docs.values())


async def _write_plans(
    db: aiosqlite.Connection, plans: Sequence[tuple[IngestItem, Plan]], when: datetime
) -> None:
    """Every document's changes, one ``executemany`` per kind of write for the whole run: a round trip to
    SQLite's thread per statement kind, not per document (a first ingest of 1,000 files made 6,000)."""
    from hippo_tui.ingest.versions import document_label

    stamp = when.isoformat(timespec="seconds")
    rows: dict[str, list[tuple[Any, ...]]] = {sql: [] for sql in _WRITE_ORDER}
    fresh, moved, refresh = rows[UPSERT_SQL], rows[_MOVE], rows[_REFRESH]
    retire, docs, versions = rows[_RETIRE], rows[_UPSERT_DOCUMENT], rows[_ADD_VERSION]
    for item, p in plans:
        doc = item.doc
        updated = doc.updated.isoformat() if doc.updated else None
        fresh += [_row(doc, x, stamp, updated) for x in p.fresh]
        moved += [(x.title, x.body, x.anchor, x.page, x.id) for x in p.moved]
        refresh += [(doc.version, stamp, doc.publisher, doc.url, updated, x.id) for x in p.unchanged]
        retire += [
            (r.reason, r.superseded_by, r.id)
            for r in p.retirements(document_label(doc.title, doc.key), when.date())
        ]
        docs.append((doc.key, doc.title, doc.format, doc.version, doc.publisher, doc.url, updated, stamp))
        versions.append((doc.key, doc.version, stamp, *p.counts().values()))
    for sql in _WRITE_ORDER:
        if rows[sql]:
            await db.executemany(sql, rows[sql])


async def _write_removals(db: aiosqlite.Connection, removed: dict[str, DocumentHead], when: datetime) -> None:
    """Each gone document's active passages retired, the document marked removed (``REMOVED_VERSION``) and
    the removal kept among its versions."""
    if not removed:
        return
    from hippo_tui.ingest.versions import REMOVED_VERSION, document_label, removed_reason

    stamp = when.isoformat(timespec="seconds")
    reasons = [(removed_reason(document_label(h.title, key), when.date()), key) for key, h in removed.items()]
    await db.executemany(_RETIRE_DOCUMENT, reasons)
    await db.executemany(_MARK_REMOVED, [(REMOVED_VERSION, stamp, key) for key in removed])
    await db.executemany(
        _ADD_VERSION, [(key, REMOVED_VERSION, stamp, 0, 0, 0, h.passages) for key, h in removed.items()]
    )


def _status(stored: bool, counts: dict[str, int]) -> str:
    """new; revised when passages changed; reread when the file changed but not one passage did (its
    layout, say): "revised … added 0 · unchanged 6" would claim a change that is not there."""
    if not stored:
        return "new"
    return "revised" if counts["added"] or counts["revised"] or counts["removed"] else "reread"
