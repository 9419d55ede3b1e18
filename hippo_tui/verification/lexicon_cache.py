"""The clinical lexicon built once per install and kept in the user's cache folder (``cache_files``).

Building the lexicon (parsing ``data/lexicon.toml``, respelling and stemming every entry, compiling its phrase
patterns) is most of a process's first search: tens of milliseconds, every ``ask``. The built tables are kept
as plain data with each pattern's compiled form, in a file whose name is a hash of everything that decides
the result: the lexicon file, the code that builds and keeps it, the stemmer's code (its file's size and
time), and the Python that compiled the patterns.
An edit to any of them names another file, so a stale one is never read; a missing or damaged file, or one
of a shape this code does not know, is ignored and the lexicon built as before.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from hippo_tui import cache_files, compiled_patterns
from hippo_tui.verification.lexicon import STEMMER_FILE, DrugClass, Lexicon

FORMAT = 3  # bump when what is stored changes shape
_SOURCES = ("data/lexicon.toml", "verification/lexicon.py", "verification/lexicon_cache.py",
            "compiled_patterns.py", "cache_files.py")  # fmt: skip


def cache_file(folder: Path) -> Path | None:
    """Where this lexicon's built form lives, or None when the files it is built from cannot be read."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version} {compiled_patterns.VERSION}".encode())
    package = resources.files("hippo_tui")
    try:
        for name in _SOURCES:
            digest.update(package.joinpath(name).read_bytes())
        digest.update(_stemmer_identity().encode())
    except OSError:  # an install without its sources: nothing safe to key a file by
        return None
    return folder / f"lexicon-{digest.hexdigest()[:24]}.bin"


def _stemmer_identity() -> str:
    """The stemmer's code file, known by its path, size and change time (as Python's own bytecode cache knows a
    source): another version may stem the lexicon's words otherwise. Not by its bytes: PyStemmer's is a 2.7 MB
    library, and hashing it was a hundredth of an offline ask."""
    if STEMMER_FILE is None:
        raise FileNotFoundError("the stemmer's code has no file")
    found = Path(STEMMER_FILE).stat()
    return f"{STEMMER_FILE} {found.st_size} {found.st_mtime_ns}"


def load_or_build(build: Callable[[], Lexicon], folder: Path | None = None) -> Lexicon:
    """The lexicon from its cache file when that is sound, else ``build()`` (then kept for the next process)."""
    path = cache_file(folder or cache_files.cache_dir())
    if path is None:
        return build()
    lexicon = _read(path)
    if lexicon is None:
        lexicon = build()
        cache_files.write(path, _encode(lexicon))
    return lexicon


def _read(path: Path) -> Lexicon | None:
    data = cache_files.read(path)
    if data is None:
        return None
    try:
        return _decode(data)
    except (ValueError, TypeError, KeyError, AttributeError, re.error):  # a shape not known here
        return None


def _encode(lexicon: Lexicon) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    patterns: dict[str, tuple[Any, ...]] = {}
    for field in dataclasses.fields(lexicon):
        value = getattr(lexicon, field.name)
        if isinstance(value, re.Pattern):
            patterns[field.name] = compiled_patterns.state(value)
        elif field.name == "classes":
            plain[field.name] = tuple(dataclasses.astuple(c) for c in value)
        else:
            plain[field.name] = value
    return {"plain": plain, "patterns": patterns}


def _decode(data: dict[str, Any]) -> Lexicon:
    plain = dict(data["plain"])
    plain["classes"] = tuple(DrugClass(*c) for c in plain["classes"])
    patterns: dict[str, Any] = {name: compiled_patterns.restore(s) for name, s in data["patterns"].items()}
    return Lexicon(**plain, **patterns)
