"""A command's start-up in its own process, made cheaper while its modules load.

Loading the modules is most of a short command's time (an offline ``ask`` before its first text, ``kb
search``, the app's first frame). Meanwhile the garbage collector is held off and what loaded is frozen
afterwards (``heap.frozen_after``), and the regular expressions the modules compile are made from their
states kept in the cache folder (``compiled_patterns.remembered``). Only when the entry point runs this
process's own command line: a test or an embedder that calls it keeps its process's collector and ``re``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

_own_process = False


def own_process() -> None:
    """Said by the entry point when it runs the command line of this process."""
    global _own_process
    _own_process = True


@contextlib.contextmanager
def loading(command: str) -> Iterator[None]:
    """While ``command``'s modules load (imported inside this block)."""
    if not _own_process:
        yield
        return
    from hippo_tui import compiled_patterns, heap

    with heap.frozen_after(), compiled_patterns.remembered(f"loading-{command}"):
        yield
