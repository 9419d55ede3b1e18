"""Search on PostgreSQL: the stored tsvector finds candidates through its GIN index, and one BM25 (the
formula FTS5 uses, ``store.bm25``) orders them, so both backends rank alike.

The index holds folded words (``store.pg.index``, the same ``wording.fold`` as the SQLite index) and the
query's terms come from ``wording.search_terms`` (the same terms SQLite searches for); each reaches
PostgreSQL as a bound value through ``phraseto_tsquery``, which reads any text as plain words: nothing a
user types can be tsquery or SQL syntax. Snippets are cut in Python from the passage's own text, as on
SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hippo_tui.store import bm25
from hippo_tui.store.budget import COMMON_BUDGET, RARE_WEIGHT, ranked_words
from hippo_tui.store.covering import by_coverage
from hippo_tui.store.narrowing import narrowing, standing_in
from hippo_tui.store.pg.base import PgBase
from hippo_tui.store.ranking import POOL, rerank, with_siblings
from hippo_tui.store.recency import edition, years_named
from hippo_tui.store.slips import with_slips_read
from hippo_tui.store.sources import DOC_COUNT_CACHE, HitRow, _Scored
from hippo_tui.store.titles import by_title
from hippo_tui.store.unmentioned import unmentioned
from hippo_tui.store.wording import search_terms, snippet

CANDIDATES = 200  # rows (pre-ordered by ts_rank) that BM25 re-scores per search
_CORPUS = " corpus"  # the cache key of (active rows, average length); never a word (words have no space)
_Q = "(SELECT hippo_tsquery_or(phraseto_tsquery('simple', w)) FROM unnest(%(words)s::text[]) AS w)"
_COUNTS = f"""
    WITH cand AS (
        SELECT s.rowid, s.tsv, s.dl FROM sources s
        WHERE s.status = 'active' AND s.tsv @@ {_Q}
        ORDER BY ts_rank('{{0.125, 0.5, 0.75, 1.0}}', s.tsv, {_Q}) DESC, s.rowid LIMIT %(n)s
    )
    SELECT cand.rowid, cand.dl, u.lexeme, u.weights
    FROM cand LEFT JOIN LATERAL unnest(cand.tsv) AS u ON u.lexeme = ANY(%(lexemes)s::text[])
"""
_HITS = """
    SELECT s.rowid, s.id, s.title, s.excerpt, s.publisher, s.updated, s.excerpt,
           s.doc_key, s.section, s.page, s.doc_version, s.ingested
    FROM sources s WHERE s.rowid = ANY(%(rows)s::bigint[])
"""
# Counting stops past the commoner words' budget: a word found in more rows is ranked on only when it is the
# rarest, and then alone, where its IDF scales every candidate alike. (A GIN count visits each row, unlike
# FTS5's.)
_WORDS = """
    SELECT w, tsvector_to_array(to_tsvector('simple', w)),
           (SELECT count(*) FROM (SELECT 1 FROM sources
                                  WHERE status = 'active' AND tsv @@ phraseto_tsquery('simple', w) LIMIT %s) AS m)
    FROM unnest(%s::text[]) AS w
"""


class PgSearchMixin(PgBase):
    _lexemes: dict[str, tuple[str, ...]]

    async def search_rows(
        self, query: str, k: int = 5, siblings: int = 0, titles: bool = True
    ) -> list[HitRow]:
        words = search_terms(query)
        if not words or k <= 0:
            return []
        await self._index_if_stale()
        async with self._session():
            words = await with_slips_read(query, words, self._doc_frequencies)
            return await self._search(query, words, k, siblings, titles)

    async def unmentioned(self, query: str) -> list[str]:
        await self._index_if_stale()
        async with self._session():
            return await unmentioned(query, self._doc_frequencies)

    async def _index_if_stale(self) -> None:
        """The index mixin brings stale rows up to date before a search (a no-op without it)."""

    async def _search(self, query: str, words: list[str], k: int, siblings: int, titles: bool) -> list[HitRow]:
        dfs = await self._doc_frequencies(words)
        total, avg = await self._corpus()
        narrows = narrowing(query)
        chosen, common = ranked_words(dfs, total, {*narrows, *standing_in(query, dfs)})
        if not chosen:
            return []
        # The candidates are the chosen words' rows; the commoner words rank them too (store.budget).
        lexemes = {w: self._lexemes[w] for w in chosen + common}
        with self._errors():
            wanted = sorted({x for parts in lexemes.values() for x in parts})
            cur = await self._conn.native(_COUNTS, {"words": chosen, "n": CANDIDATES, "lexemes": wanted})
        # A word's idf scaled is its bm25 part scaled: the rare words weigh RARE_WEIGHT times the commoner.
        idfs = {w: bm25.idf(total, dfs[w]) / (RARE_WEIGHT if w in common else 1) for w in lexemes}
        scores = _bm25(cur, lexemes, idfs, avg)
        # More than k, then the same re-ranking as SQLite: a newer edition or another document just below
        # the cut may move up (store.ranking).
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: max(4 * k, POOL)]
        with self._errors():
            rows = await self._conn.native(_HITS, {"rows": [r for r, _ in best]})
        by_row = {r[0]: r for r in rows}
        scored = [_Scored(s, by_row[r]) for r, s in best if r in by_row]
        if titles:  # as on SQLite (store.titles)
            scored = [_Scored(s, x.row) for s, x in by_title(scored, [x.score for x in scored],
                      [x.row[2] for x in scored], [x.row[7] for x in scored], words, query)]  # fmt: skip
        # Each document's passages in order of how much of the question they say, as on SQLite (store.covering).
        scored = by_coverage(scored, [x.score for x in scored], [x.row[7] or x.row[1] for x in scored],
                             [(x.row[2], x.row[3]) for x in scored], words, dfs, total)  # fmt: skip
        editions = [edition(x.row[5], x.row[7], x.row[2]) for x in scored]
        ranked = rerank(scored, editions, [x.row[7] or x.row[1] for x in scored], years_named(query))
        ranked = with_siblings(ranked, [x.row[7] or x.row[1] for x in ranked], k, siblings)
        return [_hit(x.row, x.score, chosen) for x in ranked]

    async def _doc_frequencies(self, words: list[str]) -> dict[str, int]:
        """How many active sources contain each word (and its lexemes), one query for the uncached words;
        COMMON_BUDGET + 1 stands for "more than any budget"."""
        if not hasattr(self, "_lexemes") or len(self._doc_counts) > DOC_COUNT_CACHE:
            self._lexemes = {}
            self._doc_counts.clear()
        missing = [w for w in words if w not in self._doc_counts]
        if missing:
            with self._errors():
                rows = await self._conn.native(_WORDS, (COMMON_BUDGET + 1, missing))
            for w, lexemes, df in rows:
                self._lexemes[w], self._doc_counts[w] = tuple(lexemes), int(df)
        return {w: self._doc_counts[w] for w in words if self._lexemes.get(w)}

    async def _indexed_rows(self) -> int:
        """The active sources (``SourcesMixin.count``): counted, as no index here records how many it holds."""
        with self._errors():
            rows = await self._conn.native("SELECT count(*) FROM sources WHERE status = 'active'", ())
        return int(rows[0][0])

    async def _corpus(self) -> tuple[int, float]:
        """Active sources and their average length in tokens: BM25's N and avgdl (cached with the counts)."""
        if _CORPUS not in self._doc_counts:
            with self._errors():
                rows = await self._conn.native(
                    "SELECT count(*), coalesce(avg(dl), 0) FROM sources WHERE status = 'active'", ()
                )
            self._doc_counts[_CORPUS] = int(rows[0][0])
            self._avg_length = float(rows[0][1])
        return self._doc_counts[_CORPUS], self._avg_length


def _bm25(
    rows: Sequence[Sequence[Any]], lexemes: dict[str, tuple[str, ...]], idfs: dict[str, float], avg: float
) -> dict[int, float]:
    """Each candidate's BM25 from its query lexemes' weight letters (one per occurrence). A word made of
    several lexemes counts as often as its rarest part, as a phrase would."""
    per_row: dict[int, dict[str, list[str]]] = {}
    lengths: dict[int, int] = {}
    for rowid, length, lexeme, weights in rows:
        lengths[rowid] = length
        found = per_row.setdefault(rowid, {})
        if lexeme is not None:
            found[lexeme] = list(weights)
    scores: dict[int, float] = {}
    for rowid, found in per_row.items():
        counts = {}
        for word, parts in lexemes.items():
            columns = [_by_column(found.get(p, [])) for p in parts]
            counts[word] = min(columns, key=lambda c: sum(c.values())) if columns else {}
        scores[rowid] = bm25.score(counts, idfs, lengths[rowid], avg)
    return scores


def _by_column(weights: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in weights:
        out[w] = out.get(w, 0) + 1
    return out


def _hit(r: Sequence[Any], score: float, words: list[str]) -> HitRow:
    return HitRow(r[1], r[2], r[3], r[4], r[5], score, snippet(r[6] or r[3], words), tuple(r[7:12]))
