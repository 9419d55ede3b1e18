"""Which database a front end opens: the main one in the data folder, or a user's JSONL KB's own."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.store.core import Store
from hippo_tui.store.paths import DEMO_KB

if TYPE_CHECKING:
    from hippo_tui.config import Settings


def kb_db_path(settings: Settings, kb: Path) -> Path:
    """A database of its own for a user's JSONL knowledge base, inside the data folder."""
    resolved = kb.expanduser().resolve()
    slug = re.sub(r"[^a-z0-9]+", "-", resolved.stem.lower()).strip("-")[:40] or "kb"
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    return settings.data_dir() / f"kb-{slug}-{digest}.db"


async def open_store(settings: Settings) -> Store:
    """The store the settings point at (the app, ``ask``, ``kb`` and ``audit`` all open the same one)."""
    if settings.kb is not None:
        return await Store.open(kb_db_path(settings, settings.kb), seed=settings.kb)
    return await Store.open(settings.db_path(), seed=DEMO_KB)
