"""Benches that run the app several times in one process start each run as a fresh process would."""

from __future__ import annotations

import gc

from hippo_tui import heap

PYTHON_THRESHOLDS = gc.get_threshold()  # what a new interpreter starts with (read before any app runs)


def fresh_process_heap() -> None:
    """Python's collector settings, no frozen objects, none of the previous run's garbage: the app settles
    its heap again once its engine is ready (``hippo_tui.heap``), as in a new process."""
    gc.unfreeze()
    gc.set_threshold(*PYTHON_THRESHOLDS)
    heap._settled = False
    gc.collect()
