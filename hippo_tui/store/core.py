"""``Store``: opening (first-run build, faults), closing, and the KB and audit halves put together."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Coroutine, Generator
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

import aiosqlite

from hippo_tui.store.audit import AuditMixin
from hippo_tui.store.base import COMPACT_ROWS
from hippo_tui.store.documents import SET_META, DocumentsMixin
from hippo_tui.store.errors import StoreCorrupt, StoreError, StoreReadOnly, translate
from hippo_tui.store.fts5 import VOCABULARY_SQL
from hippo_tui.store.paths import DEMO_KB
from hippo_tui.store.schema import MIGRATIONS, OUR_TABLES, REINDEX_SQL, SCHEMA_VERSION
from hippo_tui.store.sources import UPSERT_SQL, SourcesMixin, parse_jsonl, source_to_row
from hippo_tui.store.wording import fold, fold_signature

SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_BUSY_TIMEOUT = 5.0  # seconds to wait for another process's write lock


def _is_memory(path: Path) -> bool:
    return str(path) == ":memory:"


def _precheck(path: Path) -> Path:
    """Refuse, before SQLite touches it, anything at the path that is not an SQLite database."""
    path = path.expanduser()
    if path.is_dir():
        raise StoreError(
            f"{path}: is a folder, not a database file. Point HIPPO_HOME at a folder without it."
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except PermissionError as e:
        raise StoreReadOnly(
            f"{path}: cannot create the data folder ({e.strerror}). Set HIPPO_HOME to a writable folder."
        ) from None
    except OSError as e:
        raise StoreError(f"{path}: cannot create the data folder ({e.strerror or e}).") from None
    if path.exists() and path.stat().st_size > 0:
        try:
            with path.open("rb") as f:
                header = f.read(len(SQLITE_HEADER))
        except PermissionError as e:
            raise StoreReadOnly(
                f"{path}: cannot read the database ({e.strerror}). Check its permissions."
            ) from None
        if header != SQLITE_HEADER:
            raise StoreCorrupt(
                f"{path}: this file is not an SQLite database. It was left untouched: move it aside, "
                "or set HIPPO_HOME to another folder, to start a fresh one."
            )
    return path


class _Closes(Protocol):
    async def close(self) -> None: ...


S = TypeVar("S", bound=_Closes)  # a Store of either backend


class Opening(Generic[S]):
    """What ``Store.open`` returns: await it for the store, or use it in ``async with`` to close it too."""

    def __init__(self, opening: Coroutine[Any, Any, S]) -> None:
        self._opening = opening
        self._store: S | None = None

    def __await__(self) -> Generator[Any, None, S]:
        return self._opening.__await__()

    async def __aenter__(self) -> S:
        self._store = await self._opening
        return self._store

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._store is not None:
            await self._store.close()


class Store(SourcesMixin, DocumentsMixin, AuditMixin):
    """The knowledge base and the audit record, in one SQLite file (WAL, foreign keys on)."""

    kb_name: str

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        seed: Path | None = DEMO_KB,
        kb_name: str | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> Opening[Self]:
        """Open (or create) the database at ``path``: ``await Store.open(…)`` or ``async with Store.open(…)``.

        A new database is built and, when ``seed`` is given, filled from that JSONL file in the same
        transaction; ``kb_name`` defaults to the seed's stem ("demo" for the bundled KB). An existing
        database keeps its sources and name: ``seed`` and ``kb_name`` apply only at creation.
        """
        return Opening(cls._open(path, seed=seed, kb_name=kb_name, busy_timeout=busy_timeout))

    @classmethod
    async def _open(
        cls, path: Path | str, *, seed: Path | None, kb_name: str | None, busy_timeout: float
    ) -> Self:
        path = Path(path)
        if not _is_memory(path):
            path = await asyncio.to_thread(_precheck, path)
        seed_sources = None
        try:
            db = await aiosqlite.connect(str(path), timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise translate(e, path, busy_timeout) from e
        store = cls(db, path, busy_timeout)
        try:
            # The search index's triggers fold text through this (schema v7, store/wording.py).
            await db.create_function("hippo_fold", 1, fold, deterministic=True)
            # Look before changing anything: a file that is not ours must stay byte-for-byte as it was.
            with store._errors():
                await db.execute("PRAGMA foreign_keys = ON")
                # A 64 MiB page cache (allocated only as used): a 100k-source import thrashes the 2 MiB
                # default on the id index, and search reads the same index pages again and again.
                await db.execute("PRAGMA cache_size = -65536")
                version = await store._version()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: written by a newer hippo-tui (schema {version}, this one knows {SCHEMA_VERSION}). "
                    "Upgrade hippo-tui, or set HIPPO_HOME to another folder."
                )
            if version == 0:
                await store._check_foreign_tables()
                if seed is not None:
                    seed_sources = await asyncio.to_thread(parse_jsonl, Path(seed))
            with store._errors():
                await store._enter_wal()
                # FULL: every committed audit row survives even a power cut, not only a killed process.
                await db.execute("PRAGMA synchronous = FULL")
                # Truncate the WAL after checkpoints, or one big import leaves a file that size behind.
                await db.execute("PRAGMA journal_size_limit = 67108864")
            if version < SCHEMA_VERSION:
                async with store._transaction() as tx:
                    # Another process may have built or upgraded it while we waited for the write lock.
                    version = await store._version()
                    for statements in MIGRATIONS[version:]:
                        for sql in statements:
                            await tx.execute(sql)
                    if version == 0:
                        name = kb_name or (Path(seed).stem if seed is not None else "empty")
                        await tx.execute("INSERT INTO meta (key, value) VALUES ('kb_name', ?)", (name,))
                        if seed_sources:
                            await tx.executemany(UPSERT_SQL, [source_to_row(s) for s in seed_sources])
                    await tx.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    # The index was just built (or rebuilt by v7) with today's folding.
                    await tx.execute(SET_META, ("fold", fold_signature()))
            await store._reindex_if_folding_changed()
            with store._errors():
                await db.execute(VOCABULARY_SQL)  # search counts its words there (fts5.py)
            store.kb_name = await store.get_meta("kb_name") or ""
        except BaseException:
            await db.close()
            raise
        return store

    async def _reindex_if_folding_changed(self) -> None:
        """Rebuild the search index when it was folded by other rules (an upgrade that changed the lexicon or
        the spelling rules): searches would miss, and deleting a row by its refolded text would corrupt it."""
        if await self.get_meta("fold") == fold_signature():
            return
        try:
            async with self._transaction() as tx:
                if await self.get_meta("fold") == fold_signature():
                    return  # another process rebuilt it while we waited
                await tx.execute("INSERT INTO sources_fts (sources_fts) VALUES ('delete-all')")
                await tx.execute(REINDEX_SQL)
                await tx.execute(SET_META, ("fold", fold_signature()))
        except StoreReadOnly:
            return  # nothing can be written: searches go on with the index as it is
        await self.compact_index()

    async def compact_index(self, written: int = COMPACT_ROWS) -> None:
        """Merge the search index into one segment after a write that indexed ``written`` rows, if that many.

        A bulk write leaves the index in a dozen segments (100,000 passages: 12), and every word a search
        counts is looked up in each of them: the hundreds of words a slip tries took 13 ms in 12 segments,
        3 in one. Merging reorders nothing (the same rows, counts and scores); it rewrites the whole index
        (0.4 s at 100,000 passages), so small writes (a retire, one source) leave it as it is.
        """
        if written < COMPACT_ROWS:
            return
        try:
            async with self._transaction() as db:
                await db.execute("INSERT INTO sources_fts (sources_fts) VALUES ('optimize')")
        except StoreReadOnly:
            return  # searches go on over the segments as they are

    async def _enter_wal(self) -> None:
        """Switch to WAL. Two first starts at once can deadlock on this switch, and SQLite then answers
        "locked" at once instead of calling the busy handler: retry within the busy timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.busy_timeout
        delay = 0.01
        while True:
            try:
                await self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or loop.time() + delay > deadline:
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.2)

    async def _version(self) -> int:
        cur = await self._db.execute("PRAGMA user_version")
        row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def _check_foreign_tables(self) -> None:
        """An SQLite file of some other program is not ours to build tables in."""
        with self._errors():
            cur = await self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            names = {r[0] for r in await cur.fetchall()}
        if names - OUR_TABLES:
            raise StoreCorrupt(
                f"{self.path}: an SQLite database of another program (tables: {', '.join(sorted(names))}). "
                "It was left untouched: set HIPPO_HOME to another folder."
            )

    async def set_kb_name(self, name: str) -> None:
        async with self._transaction() as db:
            await db.execute(SET_META, ("kb_name", name))
        self.kb_name = name

    async def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` plus the search index's own check: "ok" when both are sound."""
        with self._errors():
            cur = await self._db.execute("PRAGMA integrity_check")
            result = "\n".join(str(r[0]) for r in await cur.fetchall())
        if result != "ok":
            return result
        try:
            await self._db.execute("INSERT INTO sources_fts (sources_fts) VALUES ('integrity-check')")
        except sqlite3.Error as e:
            return f"search index: {e}"
        return "ok"

    async def close(self) -> None:
        if self._pending:  # let cancelled writes finish undoing themselves first
            await asyncio.gather(*self._pending, return_exceptions=True)
        with contextlib.suppress(sqlite3.Error, ValueError):
            await self._db.execute("PRAGMA optimize")  # keeps the query planner's statistics fresh
        await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
