"""The process's garbage collector, set for an app that allocates a great deal and keeps little, and for a
command's start-up, which allocates a great deal and keeps nearly all of it."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

# Objects allocated (less freed) between young collections; Python's default is 700. Drawing one batch
# of an answer allocates a great many short-lived objects (strips, segments, styles), so at 700 a young
# collection ran every few hundred microseconds. Larger is faster but lets cyclic garbage (removed
# widgets) wait longer: in a 160-answer soak, RSS grew 8 MB from answer 40 to 160 at 700 and at 5,000,
# 25 MB at 20,000 and 42 MB at 50,000 (with middle and full collections 20 times rarer), while CPU per
# answer fell 964 -> 600-614 ms at 5,000 (737-886 ms with the freeze alone).
YOUNG_THRESHOLD = 5_000
# Young collections per middle one, middle per full one: Python's.
OLDER_THRESHOLDS = (10, 10)

_settled = False


def settle_after_startup() -> None:
    """Once the app is up: freeze what start-up left alive, and collect less often from then on.

    A full collection walks every tracked object; with Textual, pydantic and the engine loaded that was
    57-81 ms, two in the streaming of a 4,000-character answer, often one in its end. What exists
    once the app is up (modules, classes, the app's first widgets) lives as long as the process, so it
    is frozen: later collections skip it. What is created afterwards (answers, their widgets) is
    collected as before, so memory stays bounded. Once per process. The price: widgets of the first screen
    that are replaced later (the key footer's first keys) are never freed, once, a few hundred KB.
    """
    global _settled
    if _settled:
        return
    _settled = True
    # No collection first: start-up leaves about a hundred unreachable objects, and finding them took a
    # full collection of ~120 ms, while the reader may be typing; frozen, they stay (a few KB).
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)


def hold_collections() -> Callable[[], None]:
    """Hold the collector off while the reader waits (the end of an answer and its final frame); call
    what this returns once that is drawn. A young or middle collection there took 3-18 ms of a ~100 ms
    end; it runs right after instead. Only in a settled process (the app's own), never nested."""
    if not _settled or not gc.isenabled():
        return _nothing
    gc.disable()
    return gc.enable


def _nothing() -> None:
    pass


@contextlib.contextmanager
def frozen_after() -> Iterator[None]:
    """No collection meanwhile (a command's modules loading), then what exists is frozen. Modules, classes and
    their tables are tens of thousands of objects and almost no garbage, and young collections walked them
    again and again: ~80 collections before an offline ask's first text. They live as long as the process:
    frozen, later collections skip them; what is made afterwards is collected as before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
