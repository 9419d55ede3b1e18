"""Compiled regular expressions kept as data, so that a process can skip compiling large patterns again.

``re.compile`` parses a pattern and generates its matcher code in Python (milliseconds for the lexicon's
alternations of hundreds of phrases); the matcher is then made by ``_sre.compile`` from that code. ``state``
keeps what ``_sre.compile`` is given, exactly as ``re``'s own compiler gives it (Python 3.11 to 3.13), and
``restore`` makes the pattern from it. Both lean on CPython's internals, so neither is trusted: ``state``
keeps no code unless the pattern it makes equals ``re.compile``'s (pattern equality compares the matcher
code), and a pattern that cannot be restored is compiled from its text the ordinary way. The code is only valid for the ``re`` engine
that made it: ``VERSION`` belongs in any key a state is stored under (with ``sys.version``).

``kept`` compiles a module's fixed patterns once per install: from a file in the user's cache folder named by
a hash of the patterns themselves, so an edited pattern is simply another file.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # CPython's regular expression engine: no stubs
import hashlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hippo_tui import cache_files

VERSION = f"sre {_sre.MAGIC} {_sre.CODESIZE}"


def state(pattern: re.Pattern[str]) -> tuple[Any, ...]:
    """``pattern`` as plain data (``marshal``-able): its text and flags, and its matcher code when known."""
    try:
        made: tuple[Any, ...] | None = _made(pattern.pattern, pattern.flags)
        sound = made is not None and _sre.compile(*made) == pattern
    except Exception:  # the internals of a Python this was not written for: keep the text alone
        made, sound = None, False
    return (pattern.pattern, int(pattern.flags), made if sound else None)


def restore(kept: tuple[Any, ...]) -> re.Pattern[str]:
    text, flags, made = kept
    if made is not None:
        try:
            return _sre.compile(*made)
        except (TypeError, ValueError, RuntimeError, OverflowError):  # the engine validates code it is given
            pass
    return re.compile(text, flags)


def _made(text: str, flags: int) -> tuple[Any, ...]:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` for ``text``, as plain ints and strings."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(text, flags)
    code = [int(c) for c in _compiler._code(parsed, flags)]  # opcodes are int subclasses marshal refuses
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    flags = int(flags | parsed.state.flags)
    return (text, flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def kept(name: str, sources: Sequence[tuple[str, int]], folder: Path | None = None) -> list[re.Pattern[str]]:
    """``re.compile(text, flags)`` of each of ``sources``, read from the cache folder when this very set was
    compiled before. For fixed patterns only: one made per call (a random token in it) would add a file each."""
    wanted = [[text, int(flags)] for text, flags in sources]  # a RegexFlag is an int subclass marshal refuses
    key = hashlib.sha256(repr((sys.version, VERSION, wanted)).encode()).hexdigest()[:24]
    path = (folder or cache_files.cache_dir()) / f"patterns-{name}-{key}.bin"
    data: Any = cache_files.read(path)
    try:
        if data["sources"] == wanted:
            return [restore(s) for s in data["states"]]
    except (LookupError, TypeError, ValueError, re.error):  # none, or a shape not known here: compile below
        pass
    patterns = [re.compile(text, flags) for text, flags in sources]
    cache_files.write(path, {"sources": wanted, "states": [state(p) for p in patterns]})
    return patterns
