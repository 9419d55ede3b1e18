"""``hippo-tui db copy``: one store's knowledge base, documents and audit record into another (SQLite into a
team's PostgreSQL, typically), in ONE transaction on the target, with the rows counted on both sides.

Rows are read and written through each store's connection with the same statements (the PostgreSQL store
takes SQLite's ``?`` marks), so any backend copies into any other. Into an empty target the audit ids are
kept (``audit show 42`` still finds answer 42); ``append`` into a non-empty one gives the copied answers
new ids, their resets and citations following them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hippo_tui.store.core import Store
from hippo_tui.store.errors import StoreError
from hippo_tui.store.sources import COLUMNS

CHUNK = 2000
_ANSWERS = ("id", "created", "finished", "question", "model", "backend", "conversation_id", "outcome", "raw_text",
            "final_text", "error", "timings", "grounding", "coverage", "asked_by", "client")  # fmt: skip
# table -> (columns copied, order read, conflict clause for keyed rows)
_DOCUMENTS = ("key", "title", "format", "version", "publisher", "url", "updated", "ingested")


def _upsert(key: str, columns: Sequence[str]) -> str:
    return f"ON CONFLICT ({key}) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)


_KB: dict[str, tuple[Sequence[str], str, str]] = {
    "sources": (COLUMNS, "rowid", _upsert("id", COLUMNS)),
    "documents": (_DOCUMENTS, "key", _upsert("key", _DOCUMENTS)),
    "document_versions": (("key", "version", "ingested", "added", "unchanged", "revised", "removed"), "id", ""),
}
_CHILDREN: dict[str, Sequence[str]] = {
    "resets": ("answer_id", "reason", "rule", "withdrawn", "withdrawn_chars", "at"),
    "citations": ("answer_id", "source_id", "claims", "check_one", "check_two", "reason", "shown", "number",
                  "title", "verdict", "element"),
}
TABLES = ("sources", "documents", "document_versions", "answers", "resets", "citations")


@dataclass
class Copied:
    table: str
    source: int  # rows in the source
    target_before: int
    target_after: int


async def _count(store: Store, table: str) -> int:
    row = await (await store.db.execute(f"SELECT count(*) FROM {table}")).fetchone()
    return int(row[0]) if row else 0


async def _rows(store: Store, table: str, columns: Sequence[str], order: str) -> list[tuple[Any, ...]]:
    cur = await store.db.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
    return [tuple(r) for r in await cur.fetchall()]


def _insert(table: str, columns: Sequence[str], tail: str = "") -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) {tail}"


async def _write(db: Any, sql: str, rows: list[tuple[Any, ...]]) -> None:
    for start in range(0, len(rows), CHUNK):
        await db.executemany(sql, rows[start : start + CHUNK])


async def copy_store(source: Store, target: Store, *, append: bool = False) -> list[Copied]:
    """Copy everything from ``source`` into ``target``; a non-empty target is refused unless ``append``.
    Raises StoreError (and the target keeps nothing of it) when a count does not add up."""
    before = {t: await _count(target, t) for t in TABLES}
    if not append and any(before.values()):
        filled = ", ".join(f"{t} {n}" for t, n in before.items() if n)
        raise StoreError(f"{target.path}: the target is not empty ({filled}). Give --append to add to it.")
    counts = {t: await _count(source, t) for t in TABLES}
    async with target._transaction() as db:
        for table, (columns, order, conflict) in _KB.items():
            await _write(db, _insert(table, columns, conflict), await _rows(source, table, columns, order))
        if not before["sources"] and not before["documents"]:  # a new target takes the source's KB name
            await db.execute("DELETE FROM meta WHERE key = 'kb_name'")
            await db.execute(_insert("meta", ("key", "value")), ("kb_name", source.kb_name))
        await _copy_audit(source, target, db, keep_ids=not any(before.values()))
        after = {t: await _count(target, t) for t in TABLES}
        report = [Copied(t, counts[t], before[t], after[t]) for t in TABLES]
        await _check(source, target, report)
    return report


async def _copy_audit(source: Store, target: Store, db: Any, *, keep_ids: bool) -> None:
    answers = await _rows(source, "answers", _ANSWERS, "id")
    ids: dict[int, int] = {}
    if keep_ids:
        await _write(db, _insert("answers", _ANSWERS), answers)
        ids = {r[0]: r[0] for r in answers}
        if hasattr(target, "pool"):  # the next answer's id follows the copied ones
            await db.execute("SELECT setval(pg_get_serial_sequence('answers', 'id'), "
                             "coalesce((SELECT max(id) FROM answers), 0) + 1, false)")  # fmt: skip
    else:
        insert = _insert("answers", _ANSWERS[1:]) + " RETURNING id"
        for row in answers:  # one at a time: each needs the id the target gives it
            new = await (await db.execute(insert, row[1:])).fetchone()
            ids[row[0]] = int(new[0])
    for table, columns in _CHILDREN.items():
        rows = await _rows(source, table, columns, "id")
        await _write(db, _insert(table, columns), [(ids[r[0]], *r[1:]) for r in rows])


async def _check(source: Store, target: Store, report: list[Copied]) -> None:
    """Appended tables grew by exactly the source's rows; keyed ones (sources, documents) hold every source
    key (a key already there is updated, not added)."""
    for c in report:
        if c.table in ("sources", "documents"):
            key = "id" if c.table == "sources" else "key"
            keys = [r[0] for r in await _rows(source, c.table, (key,), key)]
            found = sum([await _present(target, c.table, key, keys[i : i + CHUNK]) for i in range(0, len(keys), CHUNK)])
            ok = found == c.source
        else:
            ok = c.target_after - c.target_before == c.source
        if not ok:
            raise StoreError(f"{target.path}: {c.table}: {c.source} rows in the source but the target gained "
                             f"{c.target_after - c.target_before}; nothing was copied.")  # fmt: skip


async def _present(target: Store, table: str, key: str, keys: list[str]) -> int:
    if not keys:
        return 0
    marks = ", ".join("?" for _ in keys)
    row = await (await target.db.execute(f"SELECT count(*) FROM {table} WHERE {key} IN ({marks})", keys)).fetchone()
    return int(row[0]) if row else 0
