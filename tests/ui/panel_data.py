"""Data the panel tests and snapshots share: the key list, an audit record with every kind of flagged
citation, and an event log of two answers. Timestamps come from a fixed script, never the wall clock."""

from __future__ import annotations

from typing import Any

from textual.app import App

from hippo_tui.events import (
    Citation,
    EndEvent,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.models import AnswerRecord, CitationAttempt, ResetRecord
from hippo_tui.ui.event_log import EventLog
from tests.support.textual_internals import screen_strips


def drawn(app: App[Any]) -> str:
    """The text on the active screen as drawn (what a user reads), one line per row."""
    return "\n".join(strip.text for strip in screen_strips(app))


BINDINGS: list[tuple[str, str]] = [
    ("enter", "Ask the question in the prompt"),
    ("escape", "Cancel the running answer (the prompt comes back)"),
    ("f1", "This help"),
    ("ctrl+n", "New conversation"),
    ("f2", "Show or hide the sources sidebar"),
    ("up / down", "Earlier questions (prompt history)"),
    ("f3", "Audit: every citation attempt of the last answer"),
    ("f4", "Event inspector: raw events and timings"),
    ("f5", "Edit the system prompt"),
    ("f6", "Switch model or endpoint"),
    ("ctrl+y", "Copy the answer with its citation list"),
    ("ctrl+e", "Export the conversation (Markdown or JSON)"),
    ("ctrl+p", "Command palette: every command by name"),
    ("ctrl+q", "Quit"),
]

ID_SHOWN = "0c6f2c1e-5d1a-4c4e-9a51-2b0d6f1d9a01"
ID_MISSING = "7d3e9b42-8f00-4a6b-b1c2-000000000000"
ID_RETIRED = "a1b2c3d4-1111-4222-8333-444455556666"
ID_UNGROUNDED = "5e6f7a8b-2222-4333-9444-555566667777"
ID_UNCHECKED = "9f8e7d6c-3333-4444-a555-666677778888"
ID_UNESTABLISHED = "4d5c6b7a-4444-4555-b666-777788889999"


def flagged_record() -> AnswerRecord:
    """An answer whose citations hit every outcome: shown (supported), missing, retired, contradicted, not
    established, unchecked."""
    return AnswerRecord(
        id=42,
        created="2026-01-01T00:00:00Z",
        question="How should uncomplicated cystitis in adults be treated?",
        model="offline-demo",
        backend="offline",
        outcome="complete",
        final_text="Nitrofurantoin for 5 days is first line [1].",
        timings={"ttft": 0.42, "verification": 0.8, "total": 2.1},
        resets=[
            ResetRecord(
                reason="safety",
                rule="dose_advice",
                withdrawn="Take 200 mg every 4 hours until the pain stops, and double it if",
                withdrawn_chars=143,
                at=1.2,
            ),
            ResetRecord(reason="tool_call", withdrawn="Cystitis is usually", withdrawn_chars=19, at=0.4),
        ],
        citations=[
            CitationAttempt(
                source_id=ID_SHOWN,
                # Model text with markup and an escape sequence: drawn inert.
                claims=["Adults can [bold]take[/bold] nitrofurantoin\x1b[31m for 5 days."],
                check_one="confirmed",
                check_two="grounded",
                verdict="supported",
                shown=True,
                number=1,
                title="Cystitis in adults: first-line treatment",
            ),
            CitationAttempt(
                source_id=ID_MISSING,
                claims=["Cranberry juice cures cystitis."],
                check_one="missing",
                reason="no such source in the knowledge base",
            ),
            CitationAttempt(
                source_id=ID_RETIRED,
                claims=["Trimethoprim is first line."],
                check_one="retired",
                reason="superseded by the 2025 guideline",
                title="Cystitis guideline (2014)",
            ),
            CitationAttempt(
                source_id=ID_UNGROUNDED,
                claims=["Antibiotics are never needed."],
                check_one="confirmed",
                check_two="ungrounded",
                verdict="contradicted",
                element="veto",
                reason="claim negates “antibiotics are needed when symptoms are severe”",
                title="Self-care for urinary symptoms",
            ),
            CitationAttempt(
                source_id=ID_UNESTABLISHED,
                claims=["Cranberry capsules prevent recurrence in children."],
                check_one="confirmed",
                check_two="ungrounded",
                verdict="not_established",
                element="population",
                reason="the excerpt does not say this is for children",
                title="Recurrent cystitis: prevention",
            ),
            CitationAttempt(
                source_id=ID_UNCHECKED,
                claims=["Symptoms usually settle within 3 days."],
                check_one="confirmed",
                check_two="unchecked",
                reason="verification unavailable: timed out",
                shown=True,  # a missing check two never hides a confirmed citation
                number=2,
                title="When to see a doctor",
            ),
        ],
    )


def _answer(question: str, shift: float) -> list:
    return [
        ThinkingEvent(text=f"Searching the knowledge base for “{question}”", phase="searching", t=0.0),
        SourcesEvent(
            sources=[SourcePreview(id=ID_SHOWN, title="Cystitis in adults", snippet="For uncomplicated…")],
            t=0.12,
        ),
        ThinkingEvent(text="Writing…", phase="writing", t=0.2),
        TextEvent(delta="Cystitis is ", display="Cystitis is ", held=9, t=0.4 + shift),
        ResetEvent(
            reason="tool_call",
            withdrawn="Cystitis is ",
            withdrawn_display="Cystitis is ",
            note="Looked something up",
            t=0.5 + shift,
        ),
        TextEvent(delta="Nitrofurantoin ", display="Nitrofurantoin ", held=7, t=0.7 + shift),
        TextEvent(delta=f"[{ID_SHOWN}].", display="[·1].", held=0, t=0.9 + shift),
        ThinkingEvent(text="Checking citations…", phase="checking", t=1.0 + shift),
        EndEvent(
            text="Nitrofurantoin [1].",
            citations=[Citation(id=ID_SHOWN, number=1, title="Cystitis in adults", grounding="grounded")],
            audit_id=42,
            verification=VerificationSummary(attempted=1, confirmed=1, grounded=1, seconds=0.8),
            t=1.8 + shift,
        ),
    ]


def two_answer_log() -> EventLog:
    log = EventLog()
    for question, shift in (("cystitis", 0.1), ("cystitis in pregnancy", 0.0)):
        log.begin_answer()
        for event in _answer(question, shift):
            log.add(event)
    return log
