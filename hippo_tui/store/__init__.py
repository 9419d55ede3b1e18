"""The knowledge base and the audit record, in one SQLite file through aiosqlite.

``from hippo_tui.store import Store, StoreError`` is the public entry point; see ``Store.open``.
"""

from hippo_tui.store.core import DEFAULT_BUSY_TIMEOUT, Store
from hippo_tui.store.errors import (
    KBImportError,
    NotFound,
    StoreCorrupt,
    StoreError,
    StoreLocked,
    StoreReadOnly,
    UnknownAnswer,
    UnknownSource,
)
from hippo_tui.store.open import kb_db_path, open_store
from hippo_tui.store.paths import DEMO_KB
from hippo_tui.store.query import terms
from hippo_tui.store.schema import SCHEMA_VERSION
from hippo_tui.store.wording import fts_match

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "DEMO_KB",
    "SCHEMA_VERSION",
    "KBImportError",
    "NotFound",
    "Store",
    "StoreCorrupt",
    "StoreError",
    "StoreLocked",
    "StoreReadOnly",
    "UnknownAnswer",
    "UnknownSource",
    "fts_match",
    "kb_db_path",
    "open_store",
    "terms",
]
