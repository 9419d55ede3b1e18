"""Store errors. Every message names the database path and says what to do about it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

# Primary SQLite result codes (the low byte of an extended code).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


class StoreError(Exception):
    """A knowledge base or audit database problem a user can act on."""


class StoreLocked(StoreError):
    """Another process held the database longer than the busy timeout."""


class StoreCorrupt(StoreError):
    """The file at the path is not a hippo-tui database or is damaged. It is never overwritten."""


class StoreReadOnly(StoreError):
    """The database or its folder cannot be written."""


class NotFound(StoreError, LookupError):
    """An id names nothing in the database (bad input rather than a broken database)."""


class UnknownSource(NotFound):
    """No source has this id (or a successor is not a different, active source)."""


class UnknownAnswer(NotFound):
    """No answer in the audit record has this id."""


class KBImportError(StoreError, ValueError):
    """A bad line in a JSONL knowledge base; nothing was imported."""

    def __init__(self, path: Path, line: int, field: str | None, message: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = f"line {line}, field '{field}'" if field else f"line {line}"
        super().__init__(f"{path}: {where}: {message}. Nothing was imported.")


def _writable(path: Path) -> bool:
    folder = path.parent if str(path) != ":memory:" else Path(".")
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def translate(err: sqlite3.Error, path: Path, busy_timeout: float) -> StoreError:
    """Map a sqlite3 error onto the StoreError a user can act on."""
    code = (getattr(err, "sqlite_errorcode", 0) or 0) & 0xFF
    text = str(err)
    if code in (_BUSY, _LOCKED) or "locked" in text:
        return StoreLocked(
            f"{path}: the database is locked by another process (waited {busy_timeout:g} s). "
            "Close the other hippo-tui session (or whatever holds the file) and try again."
        )
    if code in (_CORRUPT, _NOTADB) or "malformed" in text or "not a database" in text:
        return StoreCorrupt(
            f"{path}: not a hippo-tui database, or it is damaged ({text}). It was left untouched: "
            "move it aside, or set HIPPO_HOME to another folder, to start a fresh one."
        )
    if code == _READONLY or (code in (_CANTOPEN, _IOERR) and not _writable(path)):
        return StoreReadOnly(
            f"{path}: cannot write the database ({text}). Make the file and its folder writable, "
            "or set HIPPO_HOME to a writable folder."
        )
    if code == _FULL:
        return StoreError(f"{path}: the disk is full ({text}). Free some space and try again.")
    if code == _CANTOPEN:
        return StoreError(f"{path}: cannot open the database ({text}). Check that the path is a file.")
    return StoreError(f"{path}: database error: {text}")
