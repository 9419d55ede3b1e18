"""The ingested-documents statements that PostgreSQL writes differently (arrays instead of ``json_each``);
planning and writing an ingest are the shared ``DocumentsMixin``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hippo_tui.store.pg.base import PgBase

if TYPE_CHECKING:
    import aiosqlite

    from hippo_tui.ingest.versions import DocumentHead, StoredPassage

_HEADS = (
    "SELECT d.key, d.version, d.title, d.format, d.publisher, d.updated, "
    "(SELECT count(*) FROM sources s WHERE s.doc_key = d.key AND s.status = 'active') "
    "FROM documents d WHERE "
)


class PgDocumentsMixin(PgBase):
    async def document_heads(self, keys: Sequence[str]) -> dict[str, DocumentHead]:
        return await self._pg_heads("d.key = ANY(%s::text[])", (list(keys),))

    async def documents_under(self, folders: Sequence[str]) -> dict[str, DocumentHead]:
        from hippo_tui.ingest.versions import REMOVED_VERSION

        where = (
            "EXISTS (SELECT 1 FROM unnest(%s::text[]) f WHERE left(d.key, length(f)) = f) AND d.version <> %s"
        )
        return await self._pg_heads(where, (list(folders), REMOVED_VERSION))

    async def _pg_heads(self, where: str, params: tuple[object, ...]) -> dict[str, DocumentHead]:
        from hippo_tui.ingest.versions import DocumentHead

        with self._errors():
            rows = await self._conn.native(_HEADS + where, params)
        return {r[0]: DocumentHead(*r[1:]) for r in rows}

    async def _stored_passages(
        self, db: aiosqlite.Connection, keys: list[str]
    ) -> dict[str, list[StoredPassage]]:
        from hippo_tui.ingest.versions import StoredPassage

        rows = await self._conn.native(
            "SELECT doc_key, id, title, body, section, page FROM sources "
            "WHERE doc_key = ANY(%s::text[]) AND status = 'active' ORDER BY rowid",
            (keys,),
        )
        out: dict[str, list[StoredPassage]] = {}
        for key, *rest in rows:
            out.setdefault(key, []).append(StoredPassage(*rest))
        return out
