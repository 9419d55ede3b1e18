"""The knowledge-base statements that PostgreSQL writes differently: arrays instead of ``json_each``,
booleans that do not sum, ``LIMIT ALL``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.store.pg.search import PgSearchMixin
from hippo_tui.store.sources import _SELECT, KBImportError, _canonical_or_none, _row_to_source

if TYPE_CHECKING:
    import aiosqlite

    from hippo_tui.models import Lookup, Source


class PgSourcesMixin(PgSearchMixin):
    async def get_many(self, ids: Iterable[str]) -> dict[str, Lookup]:
        """Every asked id (as asked) -> found/active/retired, in ONE query (the ids as one bound array)."""
        from hippo_tui.models import Lookup

        asked = list(dict.fromkeys(ids))
        canonical = {a: _canonical_or_none(a) for a in asked}
        wanted = sorted({c for c in canonical.values() if c})
        found: dict[str, Source] = {}
        if wanted:
            with self._errors():
                rows = await self._conn.native(_SELECT + " WHERE s.id = ANY(%s::text[])", (wanted,))
            found = {s.id: s for s in map(_row_to_source, rows)}
        out: dict[str, Lookup] = {}
        for a in asked:
            src = found.get(canonical[a] or "")
            out[a] = Lookup.model_construct(id=a, status=src.status if src else "missing", source=src)
        return out

    async def _check_successors(
        self, db: aiosqlite.Connection, path: Path, numbered: list[tuple[int, Source]]
    ) -> None:
        in_file = {s.id for _line, s in numbered}
        outside = sorted({s.superseded_by for _l, s in numbered if s.superseded_by} - in_file)
        stored: set[str] = set()
        if outside:
            rows = await self._conn.native("SELECT id FROM sources WHERE id = ANY(%s::text[])", (outside,))
            stored = {r[0] for r in rows}
        for line, s in numbered:
            succ = s.superseded_by
            if succ is None:
                continue
            if succ == s.id:
                raise KBImportError(path, line, "superseded_by", "a source cannot supersede itself")
            if succ not in in_file and succ not in stored:
                raise KBImportError(
                    path, line, "superseded_by", f"no source with id {succ} in the file or the knowledge base"
                )

    async def list_sources(
        self, *, status: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[Source]:
        where, params = ("WHERE s.status = %s", [status]) if status else ("", [])
        with self._errors():
            rows = await self._conn.native(
                f"{_SELECT} {where} ORDER BY s.title, s.id LIMIT %s OFFSET %s", (*params, limit, max(0, offset))
            )
        return [_row_to_source(r) for r in rows]

    async def kb_stats(self) -> dict[str, int | str]:
        with self._errors():
            rows = await self._conn.native(
                "SELECT count(*), count(*) FILTER (WHERE status = 'active'), "
                "count(*) FILTER (WHERE status = 'retired'), coalesce(max(updated), ''), "
                "(SELECT count(*) FROM answers) FROM sources",
                (),
            )
        total, active, retired, newest, answers = rows[0]
        return {
            "name": await self._one("SELECT value FROM meta WHERE key = 'kb_name'") or "",
            "path": str(self.path),
            "sources": int(total),
            "active": int(active),
            "retired": int(retired),
            "newest_update": str(newest),
            "answers": int(answers),
        }

    async def integrity_check(self) -> str:
        """"ok" when every source's search entry is up to date (none left stale by a write)."""
        stale = await self._one("SELECT count(*) FROM sources WHERE tsv_stale")
        return "ok" if not stale else f"search index: {stale} sources whose index entry is stale"

