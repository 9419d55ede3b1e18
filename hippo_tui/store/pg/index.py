"""The PostgreSQL search index on folded words: the same ``wording.fold`` the SQLite index holds.

A write to a source only marks it stale (a trigger); ``index_stale`` folds the stale rows in Python and
writes their tsvector (title A > section B > excerpt C > body D, the 'simple' configuration: the words are
folded already) and token count. It runs after a transaction that wrote sources and before a search, so a
row committed by another process, or left stale by a crash, is indexed before anyone searches it.
"""

from __future__ import annotations

from hippo_tui.store.documents import SET_META
from hippo_tui.store.errors import StoreReadOnly
from hippo_tui.store.pg.base import PgBase
from hippo_tui.store.wording import fold, fold_signature

BATCH = 500  # rows folded and written per statement
_STALE = """
    SELECT rowid, title, section, excerpt, body FROM sources WHERE tsv_stale
    ORDER BY rowid LIMIT %s FOR UPDATE SKIP LOCKED
"""
_WRITE = """
    UPDATE sources AS s
    SET tsv = v.t, dl = coalesce((SELECT sum(array_length(u.positions, 1)) FROM unnest(v.t) AS u), 0),
        tsv_stale = false
    FROM (SELECT f.r, setweight(to_tsvector('simple', f.a), 'A') || setweight(to_tsvector('simple', f.b), 'B')
                      || setweight(to_tsvector('simple', f.c), 'C') || setweight(to_tsvector('simple', f.d), 'D') AS t
          FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[]) AS f(r, a, b, c, d)) AS v
    WHERE s.rowid = v.r
"""


class PgIndexMixin(PgBase):
    async def _refold_if_folding_changed(self) -> None:
        """Mark every source stale when the index was folded by other rules (an upgrade that changed the
        lexicon or the spelling rules): the next search folds them again, as the questions now fold."""
        if await self._one("SELECT value FROM meta WHERE key = ?", ("fold",)) == fold_signature():
            return
        try:
            async with self._transaction() as db:
                await db.execute("UPDATE sources SET tsv_stale = true WHERE NOT tsv_stale")
                await db.execute(SET_META, ("fold", fold_signature()))
        except StoreReadOnly:
            return  # a role that cannot write: searches go on with the index as it is

    async def _sources_written(self) -> None:
        await self.index_stale()

    async def _index_if_stale(self) -> None:
        """Index what another process committed (or a crash left stale) before searching it."""
        if await self._one("SELECT EXISTS (SELECT 1 FROM sources WHERE tsv_stale)"):
            await self.index_stale()

    async def index_stale(self) -> int:
        """Fold and index every stale source; how many were indexed."""
        done = 0
        while True:
            async with self._transaction():
                with self._errors():
                    rows = await self._conn.native(_STALE, (BATCH,))
                    if not rows:
                        return done
                    columns = [[fold(r[i]) or "" for r in rows] for i in range(1, 5)]
                    await self._conn.native(_WRITE, ([r[0] for r in rows], *columns))
            done += len(rows)
            self._doc_counts.clear()  # word counts and corpus length moved
