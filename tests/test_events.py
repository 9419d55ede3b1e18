import json

import pytest
from pydantic import ValidationError

from hippo_tui.events import (
    Citation,
    EndEvent,
    ErrorEvent,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
    parse_event,
    to_json,
)


@pytest.mark.parametrize(
    "event",
    [
        ThinkingEvent(text="Searching the knowledge base for “asthma”…", t=0.1),
        SourcesEvent(sources=[SourcePreview(id="a" * 8, title="T", snippet="s")], query="asthma"),
        TextEvent(delta="Hello [x]", display="Hello [·1]", held=3),
        ResetEvent(reason="safety", rule="ssn", withdrawn="abc", withdrawn_display="abc", note="withdrawn"),
        EndEvent(
            text="Done [1].",
            citations=[Citation(id="x", number=1, title="T", grounding="grounded")],
            audit_id=7,
        ),
        ErrorEvent(kind="auth", message="401", action="check the API key"),
    ],
)
def test_round_trip(event):
    line = to_json(event)
    assert json.loads(line)["type"] == event.type
    assert parse_event(line) == event


def test_unknown_type_is_rejected():
    with pytest.raises(ValidationError):
        parse_event('{"type": "bogus"}')
