"""The process's garbage collector, set for an app that allocates a great deal and keeps little."""

from __future__ import annotations

import gc

# Objects allocated (less freed) between young collections; Python's default is 700. Drawing one batch
# of an answer allocates hundreds of thousands of short-lived objects (strips, segments, styles), so
# at 700 a collection ran every few hundred microseconds and each promoted the batch's survivors to
# older generations, whose collections then walked them again. Refcounting frees nearly all of it
# anyway; the collector is only for cycles, which wait a little longer (a few MB at most).
YOUNG_THRESHOLD = 50_000
# Young collections per middle one, middle per full one (Python: 10 and 10).
OLDER_THRESHOLDS = (20, 10)

_settled = False


def settle_after_startup() -> None:
    """Once the app is up: freeze what start-up left alive, and collect less often from then on.

    A full collection walks every tracked object; with Textual, pydantic and the engine loaded that was
    60-80 ms, and one landed in a streamed frame or the answer's end every second or so. What exists
    once the app is up (modules, classes, the app's first widgets) lives as long as the process, so it
    is frozen: later collections skip it. What is created afterwards (answers, their widgets) is
    collected as before, so memory stays bounded. Once per process.
    """
    global _settled
    if _settled:
        return
    _settled = True
    gc.collect()  # start-up garbage first: frozen garbage would never be freed
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
