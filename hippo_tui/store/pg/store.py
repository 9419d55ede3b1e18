"""``PgStore``: the Store on PostgreSQL. The same methods as the SQLite ``Store`` (the shared mixins
supply those whose SQL is the same on both), built by migrations on first use."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from hippo_tui.store.audit import AuditMixin
from hippo_tui.store.core import Opening
from hippo_tui.store.documents import SET_META, DocumentsMixin
from hippo_tui.store.errors import StoreError
from hippo_tui.store.paths import DEMO_KB
from hippo_tui.store.pg.audit import PgAuditMixin
from hippo_tui.store.pg.connect import POOL_SIZE, open_pool, translate
from hippo_tui.store.pg.documents import PgDocumentsMixin
from hippo_tui.store.pg.index import PgIndexMixin
from hippo_tui.store.pg.migrations import SCHEMA_VERSION, current_version, migrate
from hippo_tui.store.pg.sources import PgSourcesMixin
from hippo_tui.store.sources import UPSERT_SQL, SourcesMixin, parse_jsonl, source_to_row

_SEED_LOCK = 0x68697071  # advisory lock: two first starts seed the knowledge base once


class PgStore(PgIndexMixin, PgSourcesMixin, PgDocumentsMixin, PgAuditMixin, SourcesMixin, DocumentsMixin, AuditMixin):
    """The knowledge base and the audit record in one PostgreSQL database, shared by many processes."""

    kb_name: str

    @classmethod
    def open(
        cls,
        url: str,
        *,
        seed: Path | None = DEMO_KB,
        kb_name: str | None = None,
        migrate: bool = True,
        pool_size: int = POOL_SIZE,
    ) -> Opening[Self]:
        """Connect to ``url``; run missing migrations unless ``migrate`` is false (then an out-of-date
        schema is an error naming `hippo-tui db migrate`). A knowledge base without a name yet is
        filled from ``seed`` and named, once, as a new SQLite file is."""
        return Opening(cls._open(url, seed=seed, kb_name=kb_name, run_migrations=migrate, pool_size=pool_size))

    @classmethod
    async def _open(
        cls, url: str, *, seed: Path | None, kb_name: str | None, run_migrations: bool, pool_size: int
    ) -> Self:
        pool = await open_pool(url, size=pool_size)
        store = cls(pool, url)
        try:
            await store._upgrade(run_migrations)
            await store._take_lease()
            name = await store.get_meta("kb_name")
            if name is None:
                name = await store._seed(seed, kb_name)
            store.kb_name = name
            await store._refold_if_folding_changed()
        except BaseException:
            await store.close()
            raise
        return store

    async def _take_lease(self) -> None:
        """A connection of its own holding an advisory lock on this process's writer id for as long as the
        store is open: while it is held, no other process takes this one's answers for orphaned."""
        import uuid

        import psycopg

        self.writer = uuid.uuid4().hex
        try:
            self._lease = await psycopg.AsyncConnection.connect(self.url, autocommit=True, prepare_threshold=None)
            await self._lease.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (self.writer,))
        except psycopg.Error as e:
            raise translate(e, self.url) from e

    async def _upgrade(self, run_migrations: bool) -> None:
        import psycopg

        try:
            async with self.pool.connection() as conn:
                version = await current_version(conn)
                if version < SCHEMA_VERSION and run_migrations:
                    version = (await migrate(conn))[1]
        except psycopg.Error as e:
            raise translate(e, self.url) from e
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: written by a newer hippo-tui (schema {version}, this one knows "
                             f"{SCHEMA_VERSION}). Upgrade hippo-tui.")  # fmt: skip
        if version < SCHEMA_VERSION:
            raise StoreError(f"{self.path}: the schema is at version {version}, this hippo-tui needs "
                             f"{SCHEMA_VERSION}. Run `hippo-tui db migrate` (or have the database's owner run it).")  # fmt: skip

    async def _seed(self, seed: Path | None, kb_name: str | None) -> str:
        sources = await asyncio.to_thread(parse_jsonl, Path(seed)) if seed is not None else []
        name = kb_name or (Path(seed).stem if seed is not None else "empty")
        async with self._transaction() as db:
            await db.execute("SELECT pg_advisory_xact_lock(?)", (_SEED_LOCK,))
            existing = await self.get_meta("kb_name")
            if existing is not None:  # another process seeded it while we waited
                return existing
            await db.execute(SET_META, ("kb_name", name))
            if sources:
                await db.executemany(UPSERT_SQL, [source_to_row(s) for s in sources])
        return name

    async def set_kb_name(self, name: str) -> None:
        async with self._transaction() as db:
            await db.execute(SET_META, ("kb_name", name))
        self.kb_name = name

    async def close(self) -> None:
        self._closed = True
        lease = getattr(self, "_lease", None)
        if lease is not None:
            await lease.close()
        await self.pool.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


async def migrate_database(url: str) -> tuple[int, int]:
    """``hippo-tui db migrate``: (version before, version after), without seeding anything."""
    import psycopg

    pool = await open_pool(url, size=1)
    try:
        async with pool.connection() as conn:
            return await migrate(conn)
    except psycopg.Error as e:
        raise translate(e, url) from e
    finally:
        await pool.close()




__all__: list[Any] = ["PgStore", "migrate_database"]
