"""A compiled regular expression kept as data, so that a process can skip compiling a large pattern again.

``re.compile`` parses a pattern and generates its matcher code in Python (milliseconds for the lexicon's
alternations of hundreds of phrases); the matcher is then made by ``_sre.compile`` from that code. ``state``
keeps what ``_sre.compile`` is given, exactly as ``re``'s own compiler gives it (Python 3.11 to 3.13), and
``restore`` makes the pattern from it. Both lean on CPython's internals, so neither is trusted: ``state``
returns None unless its pattern equals ``re.compile``'s (pattern equality compares the matcher code), and a
pattern that cannot be restored is compiled the ordinary way. The code is only valid for the ``re`` engine
that made it: ``VERSION`` belongs in any key a state is stored under (with ``sys.version``).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # CPython's regular expression engine: no stubs
import re
from typing import Any

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
