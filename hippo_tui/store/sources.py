"""The knowledge-base half of the Store: sources, FTS5 search, one-query lookup, JSONL import/export."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

import aiosqlite

from hippo_tui.store.base import Listed, StoreBase
from hippo_tui.store.budget import RARE_WEIGHT, ranked_words
from hippo_tui.store.covering import by_coverage
from hippo_tui.store.errors import KBImportError, StoreError, UnknownSource
from hippo_tui.store.fts5 import AVERAGES_SQL, MATCH_COUNT_SQL, ROWS_HOLDING_SQL, indexed_rows, plain_token
from hippo_tui.store.narrowing import narrowing, standing_in
from hippo_tui.store.query import quoted_or
from hippo_tui.store.ranking import POOL, rerank, with_siblings
from hippo_tui.store.recency import edition, years_named
from hippo_tui.store.slips import with_slips_read
from hippo_tui.store.titles import by_title
from hippo_tui.store.unmentioned import unmentioned
from hippo_tui.store.wording import search_terms, snippet

# The records (pydantic models, a fifth of a second to import) are imported where a function builds one,
# so that `kb search` prints its results without loading them (see HitRow).
if TYPE_CHECKING:
    from hippo_tui.models import Lookup, Provenance, SearchHit, Source

# Provenance.document/section/page/version/ingested, flattened onto the sources row.
PROVENANCE_COLUMNS = ("doc_key", "section", "page", "doc_version", "ingested")
COLUMNS = (
    "id",
    "title",
    "excerpt",
    "body",
    "publisher",
    "url",
    "updated",
    "status",
    "retired_reason",
    "superseded_by",
    *PROVENANCE_COLUMNS,
)
_SELECT = "SELECT " + ", ".join(f"s.{c}" for c in COLUMNS) + " FROM sources s"
UPSERT_SQL = (
    f"INSERT INTO sources ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)}) "
    "ON CONFLICT (id) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
)
_ROWS = " rows"  # the cache key of the active rows' count; never a word (words have no space)
DOC_COUNT_CACHE = 50_000  # words whose source counts are remembered between searches
FIELD_WEIGHTS = "8.0, 4.0, 1.0"  # bm25 weights of title (document › section), excerpt, body
IMPORT_CHUNK = 2000  # rows per executemany; also the progress granularity
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

Progress = Callable[[int, int], None]


def provenance_from_row(doc_key: str | None, section: str | None, page: int | None,
                        version: str | None, ingested: str | None) -> Provenance | None:  # fmt: skip
    if doc_key is None:
        return None
    from hippo_tui.models import Provenance

    return Provenance.model_construct(
        document=doc_key, section=section, page=page, version=version or "", ingested=ingested or ""
    )


def provenance_to_row(p: Provenance | None) -> tuple[Any, ...]:
    return (
        (None,) * len(PROVENANCE_COLUMNS)
        if p is None
        else (p.document, p.section, p.page, p.version, p.ingested)
    )


def _row_to_source(row: Sequence[Any]) -> Source:
    # Every row was validated as a Source on its way in (upsert/import), so it is rebuilt without
    # validating again: get_many of 100 ids spends most of its time here otherwise.
    from hippo_tui.models import Source

    n = len(COLUMNS) - len(PROVENANCE_COLUMNS)
    data = dict(zip(COLUMNS[:n], row[:n], strict=True))
    if data["updated"]:
        data["updated"] = date.fromisoformat(data["updated"])
    data["provenance"] = provenance_from_row(*row[n:])
    return Source.model_construct(**data)


def source_to_row(s: Source) -> tuple[Any, ...]:
    return (s.id, s.title, s.excerpt, s.body, s.publisher, s.url, s.updated.isoformat() if s.updated else None,
            s.status, s.retired_reason, s.superseded_by, *provenance_to_row(s.provenance))  # fmt: skip


def _isatty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def _canonical_or_none(value: str) -> str | None:
    if _CANONICAL.fullmatch(value):  # the usual case, without building a UUID object
        return value
    try:
        return str(uuid.UUID(value.strip()))
    except (ValueError, AttributeError):
        return None


# The hard size of a passage, for ingest and `kb import` alike: search builds a snippet over the excerpt
# it returns, so one multi-megabyte excerpt would make every search that matches it slow for everyone.
MAX_EXCERPT_CHARS = 2000
MAX_BODY_CHARS = 20_000


def _check_size(path: Path, number: int, source: Source) -> None:
    for field, text, limit in (
        ("excerpt", source.excerpt, MAX_EXCERPT_CHARS),
        ("body", source.body, MAX_BODY_CHARS),
    ):
        if text is not None and len(text) > limit:
            raise KBImportError(
                path,
                number,
                field,
                f"{len(text):,} characters is over the {limit:,}-character limit; split it",
            )


def parse_jsonl(path: Path) -> list[Source]:
    """Read and validate a whole JSONL knowledge base; the first bad line raises KBImportError."""
    return [s for _line, s in parse_jsonl_lines(path)]


def parse_jsonl_lines(path: Path) -> list[tuple[int, Source]]:
    """``parse_jsonl`` with each source's line number (for errors found after parsing)."""
    from pydantic import ValidationError

    from hippo_tui.models import Source

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise StoreError(f"{path}: cannot read the file: {e.strerror or e}") from None
    sources: list[tuple[int, Source]] = []
    first_line: dict[str, int] = {}  # id -> the line that had it first
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise KBImportError(path, number, None, "not valid UTF-8") from None
        try:
            sources.append((number, Source.model_validate_json(text)))
        except ValidationError as e:
            err = e.errors(include_url=False)[0]
            if err["type"] == "json_invalid":
                raise KBImportError(path, number, None, f"not valid JSON ({err['msg']})") from None
            loc = ".".join(str(p) for p in err["loc"]) or None
            msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
            raise KBImportError(path, number, loc, msg) from None
        _check_size(path, number, sources[-1][1])
        # Two lines with one id: an upsert would keep the last and drop the other without a word.
        sid = sources[-1][1].id
        if (seen := first_line.setdefault(sid, number)) != number:
            raise KBImportError(path, number, "id", f"the same id as line {seen}")
    return sources


# The k best rows of the rare words' expression (:q) and, when the question has commoner words, of the rows that
# hold both (:all, scored on every word, the rare words written RARE_WEIGHT times: bm25 is a sum over the
# expression's phrases, so they weigh that many times): each row's better score, the rare words' scaled alike.
# Ranked first and cut to k, then those k rows are read. CROSS JOIN keeps `top` the outer loop. bm25 gets the
# weights (title, excerpt, body) directly: the configured `rank` column measured slower.
_RANKED = "SELECT rowid AS r, {x} * bm25(sources_fts, {w}) AS score FROM sources_fts WHERE sources_fts MATCH {q} "
_READ = """
    SELECT s.id, s.title, s.excerpt, s.publisher, s.updated, top.score,
           s.doc_key, s.section, s.page, s.doc_version, s.ingested
    FROM top CROSS JOIN sources s ON s.rowid = top.r
    ORDER BY top.score
"""
_TOP_RARE_SQL = f"WITH top AS ({_RANKED.format(x=1, w=FIELD_WEIGHTS, q=':q')} ORDER BY score LIMIT :k) {_READ}"
_TOP_SQL = f"""
    WITH rare AS ({_RANKED.format(x=RARE_WEIGHT, w=FIELD_WEIGHTS, q=':q')} ORDER BY score LIMIT :k),
         every AS ({_RANKED.format(x=1, w=FIELD_WEIGHTS, q=':all')} ORDER BY score LIMIT :k),
         top AS (SELECT r, min(score) / {RARE_WEIGHT} AS score
                 FROM (SELECT * FROM rare UNION ALL SELECT * FROM every) GROUP BY r ORDER BY score LIMIT :k)
    {_READ}
"""


class _Scored(NamedTuple):
    score: float  # higher is better
    row: Sequence[Any]


class HitRow(NamedTuple):
    """One search result as ranked, before it becomes a ``SearchHit`` (``hit()``): enough for a front end
    that only prints results (``kb search``) without loading the record models."""

    id: str
    title: str
    excerpt: str
    publisher: str | None
    updated: str | None  # ISO date, as stored
    score: float  # higher is better
    snippet: str  # matched terms wrapped in « and »
    provenance: tuple[Any, ...]  # PROVENANCE_COLUMNS, as stored

    def hit(self) -> SearchHit:
        from hippo_tui.models import SearchHit

        return SearchHit(
            id=self.id,
            title=self.title,
            excerpt=self.excerpt,
            publisher=self.publisher,
            updated=date.fromisoformat(self.updated) if self.updated else None,
            score=self.score,
            snippet=self.snippet,
            provenance=provenance_from_row(*self.provenance),
        )


class SourcesMixin(StoreBase):
    async def count(self, status: str | None = "active") -> int:
        """Sources of that status (None: all). The active ones are the search index's rows, as it records them
        (``fts5``): counted, they walked an index of 100,000 entries, and had the connection's closing ANALYZE
        the table (``PRAGMA optimize``, for a query that used an index)."""
        if status == "active":
            return await self._indexed_rows()
        with self._errors():
            if status is None:
                cur = await self._db.execute("SELECT count(*) FROM sources")
            else:
                cur = await self._db.execute("SELECT count(*) FROM sources WHERE status = ?", (status,))
            (n,) = await cur.fetchone() or (0,)
        return int(n)

    async def search(self, query: str, k: int = 5, siblings: int = 0, titles: bool = True) -> list[SearchHit]:
        """Active sources ranked by bm25 (best first; ``score`` higher is better). Never raises on syntax.
        ``siblings``: up to that many more passages of the best hits' documents after the ``k`` (for an answerer).
        ``titles``: passages raised where the question says their document's title (``titles.by_title``)."""
        return [row.hit() for row in await self.search_rows(query, k, siblings, titles)]

    async def search_rows(
        self, query: str, k: int = 5, siblings: int = 0, titles: bool = True
    ) -> list[HitRow]:
        """``search``'s results as read, before they become records."""
        words = search_terms(query)
        if not words or k <= 0:
            return []
        words = await with_slips_read(query, words, self._doc_frequencies)
        # The lexicon's wordings the knowledge base writes less often only rank (narrowing.standing_in).
        narrows = narrowing(query) | standing_in(query, await self._doc_frequencies(words))
        rare, common = await self._bounded_match(words, narrows)
        with self._errors():
            # More than k: a newer edition or another document just below the cut may move up (ranking.py).
            cur = await self._db.execute(_TOP_SQL if common else _TOP_RARE_SQL,
                                         {"q": rare, "all": common, "k": max(4 * k, POOL)})  # fmt: skip
            rows = await cur.fetchall()
        scored = [_Scored(-float(r[5]), r) for r in rows]
        if titles:
            scored = [_Scored(s, x.row) for s, x in by_title(scored, [x.score for x in scored],
                      [x.row[1] for x in scored], [x.row[6] for x in scored], words, query)]  # fmt: skip
        scored = await self._covering(scored, words)
        ranked = rerank(scored, [edition(x.row[4], x.row[6], x.row[1]) for x in scored],
                        [x.row[6] or x.row[0] for x in scored], years_named(query))  # fmt: skip
        ranked = with_siblings(ranked, [x.row[6] or x.row[0] for x in ranked], k, siblings)
        return [
            HitRow(r[0], r[1], r[2], r[3], r[4], score, snippet(r[2], words), tuple(r[6:11]))
            for score, r in ranked
        ]

    async def _covering(self, scored: list[_Scored], words: list[str]) -> list[_Scored]:
        """``scored`` with each document's passages in order of how much of the question their title and
        excerpt say (``covering``); the word counts are those ``_bounded_match`` just read, cached."""
        return by_coverage(scored, [x.score for x in scored], [x.row[6] or x.row[0] for x in scored],
                           [(x.row[1], x.row[2]) for x in scored], words,
                           await self._doc_frequencies(words), await self._active_rows())  # fmt: skip

    async def unmentioned(self, query: str) -> list[str]:
        """The question's words no active passage contains in any form (``slips.unmentioned``)."""
        return await unmentioned(query, self._doc_frequencies)

    async def _bounded_match(self, words: list[str], narrows: Collection[str] = ()) -> tuple[str, str | None]:
        """The MATCH expressions to rank (``budget.ranked_words``): the words that find the candidates, and,
        when commoner words rank them too, the rows holding both (``_TOP_SQL``), scored on every word, the rare
        ones RARE_WEIGHT times. bm25 is a sum over words, so a candidate without a common word scores the same
        either way. Counting is cheap: FTS5 answers count(*) from a word's doclist without ranking anything.
        """
        if len(words) < 2:
            return quoted_or(words), None
        dfs = await self._doc_frequencies(words)
        rare, common = ranked_words(dfs, await self._active_rows(), narrows)
        if not rare:
            return quoted_or(words), None
        both = f"({quoted_or(rare * RARE_WEIGHT)}) AND ({quoted_or(common)})" if common else None
        return quoted_or(rare), both

    async def _active_rows(self) -> int:
        """``_indexed_rows``, cached with the word counts, which every write clears."""
        if _ROWS not in self._doc_counts:
            self._doc_counts[_ROWS] = await self._indexed_rows()
        return self._doc_counts[_ROWS]

    async def _indexed_rows(self) -> int:
        """The rows the search index holds (the active sources), as the index records them (``fts5``)."""
        with self._errors():
            cur = await self._db.execute(AVERAGES_SQL)
            row = await cur.fetchone()
        return indexed_rows(row[0] if row else None)

    async def _doc_frequencies(self, words: list[str]) -> dict[str, int]:
        """How many active sources contain each word: one query (two with a word the vocabulary cannot hold as
        it is) for the words not already cached."""
        if len(self._doc_counts) > DOC_COUNT_CACHE:
            # Before reading what is missing: cleared after, the words found cached would be gone (KeyError).
            self._doc_counts.clear()
        missing = [w for w in words if w not in self._doc_counts]
        plain = [w for w in missing if plain_token(w)]
        other = [w for w in missing if not plain_token(w)]
        found: dict[str, int] = {}
        with self._errors():
            if plain:  # the index's vocabulary: one lookup a word (fts5.py)
                cur = await self._db.execute(ROWS_HOLDING_SQL, (json.dumps(plain),))
                found.update((str(w), int(n)) for w, n in await cur.fetchall())
            if other:
                cur = await self._db.execute(f"SELECT {', '.join(MATCH_COUNT_SQL for _ in other)}",
                                             [f'"{w}"' for w in other])  # fmt: skip
                found.update(zip(other, await cur.fetchone() or (), strict=True))
        self._doc_counts.update((w, found.get(w, 0)) for w in missing)
        return {w: self._doc_counts[w] for w in words}

    async def get_many(self, ids: Iterable[str]) -> dict[str, Lookup]:
        """Every asked id (as asked; duplicates collapsed) -> found/active/retired, in ONE query.

        The ids travel as one bound JSON array, so there is no limit on how many are asked for.
        """
        from hippo_tui.models import Lookup

        asked = list(dict.fromkeys(ids))
        canonical = {a: _canonical_or_none(a) for a in asked}
        wanted = sorted({c for c in canonical.values() if c})
        found: dict[str, Source] = {}
        if wanted:
            with self._errors():
                cur = await self._db.execute(
                    f"{_SELECT} WHERE s.id IN (SELECT value FROM json_each(?))", (json.dumps(wanted),)
                )
                found = {s.id: s for s in map(_row_to_source, await cur.fetchall())}
        out: dict[str, Lookup] = {}
        for a in asked:
            src = found.get(canonical[a] or "")
            out[a] = Lookup.model_construct(id=a, status=src.status if src else "missing", source=src)
        return out

    async def get(self, id: str) -> Source | None:
        cid = _canonical_or_none(id)
        if cid is None:
            return None
        with self._errors():
            cur = await self._db.execute(f"{_SELECT} WHERE s.id = ?", (cid,))
            row = await cur.fetchone()
        return _row_to_source(row) if row else None

    async def _upsert_in(self, db: aiosqlite.Connection, rows: list[tuple[Any, ...]]) -> None:
        await db.executemany(UPSERT_SQL, rows)

    async def upsert(self, sources: Iterable[Source]) -> int:
        rows = [source_to_row(s) for s in sources]
        async with self._transaction() as db:
            await self._upsert_in(db, rows)
        self._doc_counts.clear()
        return len(rows)

    async def import_jsonl(self, path: Path, progress: Progress | None = None) -> int:
        """Validate every line, then upsert all of them in one transaction: all or nothing."""
        numbered = await asyncio.to_thread(parse_jsonl_lines, Path(path))
        sources = [s for _line, s in numbered]
        total = len(sources)
        if progress:
            progress(0, total)
        async with self._transaction() as db:
            await self._check_successors(db, Path(path), numbered)
            for start in range(0, total, IMPORT_CHUNK):
                chunk = sources[start : start + IMPORT_CHUNK]
                await self._upsert_in(db, [source_to_row(s) for s in chunk])
                if progress:
                    progress(start + len(chunk), total)
        self._doc_counts.clear()
        await self.compact_index(total)
        return total

    async def _check_successors(
        self, db: aiosqlite.Connection, path: Path, numbered: list[tuple[int, Source]]
    ) -> None:
        """Every ``superseded_by`` names another source, in the file or already stored (one query).

        A successor that points nowhere would send a reader of a retired source to nothing, so, as a bad
        field, it stops the whole import. A chain (retired, superseded by another retired one) is fine.
        """
        in_file = {s.id for _line, s in numbered}
        outside = sorted({s.superseded_by for _l, s in numbered if s.superseded_by} - in_file)
        stored: set[str] = set()
        if outside:
            cur = await db.execute(
                "SELECT id FROM sources WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(outside),)
            )
            stored = {r[0] for r in await cur.fetchall()}
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

    async def export_jsonl(self, out: TextIO) -> int:
        """Write every source (active and retired) in the import format; returns how many.

        To a terminal, non-ASCII is written as JSON escapes: KB text may hold C1 controls or bidi marks a
        terminal would act on. To a file it stays readable UTF-8; either way it parses back the same.
        """
        ascii_only = _isatty(out)
        n = 0
        with self._errors():
            async with self._db.execute(f"{_SELECT} ORDER BY s.rowid") as cur:
                async for row in cur:
                    data = _row_to_source(row).model_dump(mode="json", exclude_none=True)
                    out.write(json.dumps(data, ensure_ascii=ascii_only) + "\n")
                    n += 1
        return n

    async def list_sources(
        self, *, status: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[Source]:
        """Sources by title (then id), ``limit`` of them from the ``offset``-th (all when ``limit`` is None)."""
        return [_row_to_source(r) for r in await self._listing(_SELECT, status, limit, offset)]

    async def list_rows(
        self, *, status: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[Listed]:
        """The same sources as ``list_sources``, in the same order, as ``Listed`` rows: no record is built."""
        select = "SELECT s.id, s.status, s.title FROM sources s"
        return [Listed(*r) for r in await self._listing(select, status, limit, offset)]

    async def _listing(self, select: str, status: str | None, limit: int | None, offset: int) -> list[Any]:
        where, params = ("WHERE s.status = ?", [status]) if status else ("", [])
        with self._errors():
            cur = await self._db.execute(
                f"{select} {where} ORDER BY s.title, s.id LIMIT ? OFFSET ?",
                (*params, -1 if limit is None else limit, max(0, offset)),
            )
            return list(await cur.fetchall())

    async def retire(self, id: str, reason: str, superseded_by: str | None = None) -> Source:
        """Mark a source retired (it leaves the search index); the successor must be another active source.

        Retiring a retired source again updates its reason, and its successor when one is given.
        """
        if not reason.strip():
            raise ValueError("a reason is needed to retire a source")
        async with self._transaction() as db:
            src = await self.get(id)
            if src is None:
                raise UnknownSource(f"{self.path}: no source with id {id!r}")
            if superseded_by is not None:
                succ = await self.get(superseded_by)
                if succ is None:
                    raise UnknownSource(f"{self.path}: no source with id {superseded_by!r} to supersede it")
                if succ.id == src.id or succ.status != "active":
                    raise UnknownSource(
                        f"{self.path}: the successor {succ.id} must be a different, active source"
                    )
                superseded_by = succ.id
            else:
                superseded_by = src.superseded_by
            await db.execute(
                "UPDATE sources SET status = 'retired', retired_reason = ?, superseded_by = ? WHERE id = ?",
                (reason.strip(), superseded_by, src.id),
            )
        self._doc_counts.clear()
        return src.model_copy(
            update={"status": "retired", "retired_reason": reason.strip(), "superseded_by": superseded_by}
        )

    async def get_meta(self, key: str) -> str | None:
        with self._errors():
            cur = await self._db.execute("SELECT value FROM meta WHERE key = ?", (key,))
            row = await cur.fetchone()
        return row[0] if row else None

    async def kb_stats(self) -> dict[str, int | str]:
        with self._errors():
            cur = await self._db.execute(
                "SELECT count(*), coalesce(sum(status = 'active'), 0), coalesce(sum(status = 'retired'), 0), "
                "coalesce(max(updated), '') FROM sources"
            )
            total, active, retired, newest = await cur.fetchone() or (0, 0, 0, "")
            cur = await self._db.execute("SELECT count(*) FROM answers")
            (answers,) = await cur.fetchone() or (0,)
        return {
            "name": await self.get_meta("kb_name") or "",
            "path": str(self.path),
            "sources": int(total),
            "active": int(active),
            "retired": int(retired),
            "newest_update": str(newest),
            "answers": int(answers),
        }
