"""Files in the user's cache folder that only ever save work: plain data behind a digest, written whole.

What is kept is ``marshal`` data (dicts, lists, strings, numbers: loading one runs no code) after its SHA-256
digest. A file that is missing, cut short or altered reads as None, and the caller does the work as if there
were no cache; a folder that cannot be written only means the next process does the work again. Name a file
by a hash of everything that decides its content, so that a stale one is never read.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

_DIGEST = hashlib.sha256().digest_size


def cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("hippo-tui", appauthor=False))


def read(path: Path) -> Any | None:
    """What ``write`` kept at ``path``, or None when there is no sound file there."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    digest, payload = blob[:_DIGEST], blob[_DIGEST:]
    if hashlib.sha256(payload).digest() != digest:
        return None
    try:
        return marshal.loads(payload)
    except (ValueError, TypeError, EOFError):
        return None


def write(path: Path, data: Any) -> None:
    """Keep ``data`` at ``path`` when it can be (an unwritable folder or data marshal refuses: not kept)."""
    try:
        payload = marshal.dumps(data)
    except ValueError:
        return
    import tempfile  # only when writing: a process that reads the cache has no need of it

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed: a process reading at the same moment sees no file or the whole new one.
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}-", delete=False) as f:
            tmp = f.name
            f.write(hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
