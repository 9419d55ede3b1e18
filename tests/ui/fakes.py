"""Fakes and pilot helpers for the UI tests.

The scripted engine and its demo scripts live in the package (the screenshot script and the UI benchmark
use them too); they are re-exported here under the name the tests use.
"""

from __future__ import annotations

from hippo_tui.ui.scripted import (
    IDS,
    QUESTION,
    SOURCES,
    ScriptedEngine,
    ScriptedStore,
    answer_events,
    ask,
    demo_record,
    error_events,
    long_answer_events,
    play,
    reset_events,
    safety_events,
    timeout_events,
    until,
)

__all__ = [
    "IDS",
    "QUESTION",
    "SOURCES",
    "ScriptedEngine",
    "ScriptedStore",
    "answer_events",
    "ask",
    "demo_record",
    "error_events",
    "long_answer_events",
    "play",
    "reset_events",
    "safety_events",
    "timeout_events",
    "until",
]
