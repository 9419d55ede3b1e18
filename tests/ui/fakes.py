"""Fakes and pilot helpers for the UI tests, re-exported from tests/support (the screenshot tool and the UI
benchmark use them too) under the name the tests use."""

from __future__ import annotations

from tests.support.pilot import ask, ask_in_turn, play, until
from tests.support.scripted import (
    IDS,
    QUESTION,
    SOURCES,
    ScriptedEngine,
    ScriptedStore,
    answer_events,
    demo_record,
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
    "ask",
    "ask_in_turn",
    "demo_record",
    "error_events",
    "long_answer_events",
    "play",
    "reset_events",
    "safety_events",
    "timeout_events",
    "until",
]
