"""Every event type has a handler in every front end: adding an event type cannot be half done.

The event types come from the ``Event`` union itself; each front end's table is keyed by ``type``.
"""

from __future__ import annotations

import io
import re

import pytest

from hippo_tui.commands.ask_run import LiveStatus
from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    Event,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    StartEvent,
    TextEvent,
    ThinkingEvent,
    event_types,
)

SAMPLES: dict[str, Event] = {
    "start": StartEvent(audit_id=1, question="q", backend="offline", model="m"),
    "thinking": ThinkingEvent(text="Searching…"),
    "sources": SourcesEvent(sources=[SourcePreview(id="s1", title="A source", snippet="…")]),
    "text": TextEvent(delta="Hi [s1]", display="Hi [·1]", numbers={"s1": 1}),
    "reset": ResetEvent(reason="safety", rule="r", withdrawn="Hi", withdrawn_display="Hi", note="Withdrawn."),
    "end": EndEvent(text="Hi", citations=[], audit_id=1, outcome="complete"),
    "error": ErrorEvent(kind="server", message="boom"),
}


def test_the_samples_cover_every_event_type():
    assert sorted(SAMPLES) == sorted(event_types())
    assert all(SAMPLES[t].type == t for t in SAMPLES)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("kind", event_types())
def test_the_ask_printer_handles_every_event_type(kind: str):
    assert kind in LiveStatus.HANDLERS
    status = LiveStatus(_Terminal())
    status.show(SAMPLES[kind])  # raises for a type it has no handler for


@pytest.mark.parametrize("kind", event_types())
def test_the_inspector_describes_every_event_type(kind: str):
    from hippo_tui.ui.screens.inspector import describe

    line = describe(SAMPLES[kind])
    assert line and line != kind


@pytest.mark.parametrize("kind", event_types())
def test_the_app_has_a_message_and_a_handler_for_every_event_type(kind: str):
    from hippo_tui.ui.app import HippoApp
    from hippo_tui.ui.messages import HANDLED_TYPES, message_for
    from hippo_tui.ui.session import Answer

    assert kind in HANDLED_TYPES
    message = message_for(Answer(question="q", number=1, conversation=0), [SAMPLES[kind]])
    handler = "on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", type(message).__name__).lower()
    assert callable(getattr(HippoApp, handler, None)), handler


@pytest.mark.parametrize("kind", event_types())
def test_the_server_frames_every_event_type(kind: str):
    pytest.importorskip("fastapi")
    from hippo_tui.events import parse_event
    from hippo_tui.server.sse import ROLE, frame

    assert kind in ROLE
    head, data = frame(SAMPLES[kind], 7, 3).decode().rstrip("\n").split("\n")
    assert head == "id: 7.3" and parse_event(data.removeprefix("data: ")) == SAMPLES[kind]
