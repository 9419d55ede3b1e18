"""Compiled regular expressions kept as data, so that a process can skip compiling large patterns again.

``re.compile`` parses a pattern and generates its matcher code in Python (milliseconds for the lexicon's
alternations of hundreds of phrases); the matcher is then made by ``_sre.compile`` from that code. ``state``
keeps what ``_sre.compile`` is given, exactly as ``re``'s own compiler gives it (Python 3.11 to 3.13), and
``restore`` makes the pattern from it. Both lean on CPython's internals, so neither is trusted: ``state``
keeps no code unless the pattern it makes equals ``re.compile``'s (pattern equality compares the matcher
code), and a pattern that cannot be restored is compiled from its text the ordinary way. The code is only valid for the ``re`` engine
that made it: ``VERSION`` belongs in any key a state is stored under (with ``sys.version``).

``kept`` compiles a module's fixed patterns once per install: from a file in the user's cache folder named by
a hash of the patterns themselves, so an edited pattern is simply another file. ``remembered`` does the same
for every pattern ``re.compile`` makes while a command's modules load, whoever's modules they are.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # CPython's regular expression engine: no stubs
import contextlib
import hashlib
import re
import sys
from collections.abc import Iterator, Sequence
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


def restore(kept: tuple[Any, ...], compile_text: Any = None) -> re.Pattern[str]:
    """The pattern ``state`` gave ``kept`` for, compiled from its text (by ``compile_text``, else
    ``re.compile``) when its code is not known or refused."""
    text, flags, made = kept
    if made is not None:
        try:
            return _sre.compile(*made)
        except (TypeError, ValueError, RuntimeError, OverflowError):  # the engine validates code it is given
            pass
    return (compile_text or re.compile)(text, flags)


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


@contextlib.contextmanager
def remembered(name: str, folder: Path | None = None) -> Iterator[None]:
    """Meanwhile ``re.compile`` makes each text pattern from its state kept under ``name`` in the cache folder
    when there is one, and the states of what it made are kept for the next process.

    For a command's modules loading in its own process: their module-level patterns (theirs, the standard
    library's, their packages') are most of the patterns a fresh process compiles: compiling them was 7% of an
    offline ``ask`` before its first text. The file holds the states of the last load, looked up by the text
    and flags asked for: an edited pattern is compiled as usual and the file rewritten. ``re.compile`` is
    itself again after; a pattern that is not text, or asks for DEBUG's printout, goes to it as it is.
    """
    key = hashlib.sha256(repr((sys.version, VERSION)).encode()).hexdigest()[:24]
    path = (folder or cache_files.cache_dir()) / f"patterns-{name}-{key}.bin"
    known = _states(cache_files.read(path))
    used: dict[tuple[str, int], tuple[Any, ...]] = {}
    missed: list[tuple[str, int]] = []
    compile_text = re.compile

    def compile_remembered(pattern: Any, flags: int = 0) -> Any:
        if not isinstance(pattern, str) or not isinstance(flags, int) or flags & re.DEBUG:
            return compile_text(pattern, flags)
        wanted = (pattern, int(flags))  # as asked: a pattern's own flags add re.UNICODE
        if wanted in known:
            made = restore(known[wanted], compile_text)
            used[wanted] = known[wanted]
        else:
            made = compile_text(pattern, flags)
            used[wanted] = state(made)
            missed.append(wanted)
        return made

    re.compile = compile_remembered
    try:
        yield
    finally:
        re.compile = compile_text
        if missed:
            cache_files.write(path, {"states": [[*wanted, s] for wanted, s in used.items()]})


def _states(data: Any) -> dict[tuple[str, int], tuple[Any, ...]]:
    """The states ``remembered`` kept, by the text and flags asked for (none from a file of another shape)."""
    try:
        return {(text, flags): tuple(s) for text, flags, s in data["states"] if len(s) == 3 and s[0] == text}
    except (LookupError, TypeError, ValueError):
        return {}
