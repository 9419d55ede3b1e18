"""Fakes for the UI tests: the scripted engine and its demo scripts (shared with screenshots and the bench)."""

from hippo_tui.ui.scripted import (
    IDS,
    QUESTION,
    SOURCES,
    ScriptedEngine,
    ScriptedStore,
    answer_events,
    error_events,
    long_answer_events,
    reset_events,
    safety_events,
    timeout_events,
)

__all__ = [
    "IDS",
    "QUESTION",
    "SOURCES",
    "ScriptedEngine",
    "ScriptedStore",
    "answer_events",
    "error_events",
    "long_answer_events",
    "reset_events",
    "safety_events",
    "timeout_events",
]
