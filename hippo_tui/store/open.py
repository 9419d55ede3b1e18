"""Which store a front end opens: the main SQLite file in the data folder, a user's JSONL KB's own, another
SQLite file (``--database PATH``), or a team's PostgreSQL database (``--database postgresql://…``)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, cast

from hippo_tui.store.core import Store
from hippo_tui.store.errors import StoreError
from hippo_tui.store.paths import DEMO_KB

if TYPE_CHECKING:
    from hippo_tui.config import Settings

_SQLITE_URL = "sqlite:///"


def kb_db_path(settings: Settings, kb: Path) -> Path:
    """A database of its own for a user's JSONL knowledge base, inside the data folder."""
    resolved = kb.expanduser().resolve()
    slug = re.sub(r"[^a-z0-9]+", "-", resolved.stem.lower()).strip("-")[:40] or "kb"
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    return settings.data_dir() / f"kb-{slug}-{digest}.db"


def is_postgres(database: str | None) -> bool:
    return bool(database) and str(database).startswith(("postgresql://", "postgres://"))


def sqlite_path(database: str) -> Path:
    """``sqlite:///abs/path`` or a plain path, as the file's path."""
    if database.startswith(_SQLITE_URL):
        return Path("/" + database[len(_SQLITE_URL) :].lstrip("/"))
    if "://" in database:
        raise StoreError(
            f"--database {database.split('://', 1)[0]}://…: not a database this hippo-tui opens. "
            "Give a postgresql:// URL or an SQLite file's path."
        )
    return Path(database).expanduser()


async def open_postgres(url: str, *, seed: Path | None = DEMO_KB, migrate: bool = True) -> Store:
    """The PostgreSQL store at ``url`` (typed as the Store it stands in for: the same methods)."""
    try:
        from hippo_tui.store.pg.store import PgStore
    except ImportError as e:
        raise StoreError(
            f"--database postgresql://…: the PostgreSQL driver is not installed ({e.name}). "
            "Install it with: pip install 'hippo-tui[postgres]'"
        ) from None
    return cast(Store, await PgStore.open(url, seed=seed, migrate=migrate))


async def open_database(database: str, *, seed: Path | None = DEMO_KB) -> Store:
    """The store ``--database`` names: a postgresql:// URL, ``sqlite:///path`` or a path."""
    if is_postgres(database):
        return await open_postgres(database, seed=seed)
    return await Store.open(sqlite_path(database), seed=seed)


async def open_store(settings: Settings) -> Store:
    """The store the settings point at (the app, ``ask``, ``kb``, ``audit``, ``eval`` and ``serve`` all open
    it here). With PostgreSQL nothing is written to the data folder."""
    if settings.database:
        return await open_database(settings.database, seed=settings.kb or DEMO_KB)
    if settings.kb is not None:
        return await Store.open(kb_db_path(settings, settings.kb), seed=settings.kb)
    return await Store.open(settings.db_path(), seed=DEMO_KB)
