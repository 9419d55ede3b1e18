"""The event types: the one contract between the engine and any front end.

Events are also the wire format: each is a pydantic model with a ``type`` field, and
``hippo-tui ask --json`` prints them one per line. Parse a line back with ``parse_event``.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# Each model builds its validator when first used, not on import: the app's first frame and `kb search`
# import this module and never make an event; building all of them costs more than Textual's CSS.
FROZEN = ConfigDict(frozen=True, defer_build=True)


class _Event(BaseModel):
    model_config = FROZEN

    # Seconds since the answer started (the engine's clock; frozen in snapshot tests).
    t: float = 0.0


class StartEvent(_Event):
    """The first event of every answer whose audit record exists: its id, and who is answering.

    A front end keys everything about the answer on ``audit_id`` (the audit panel, exports, a cancelled
    answer's record); it never looks an answer up by its question text.
    """

    type: Literal["start"] = "start"
    audit_id: int
    question: str
    backend: str
    model: str
    conversation_id: str | None = None


Phase = Literal["searching", "writing", "checking"]


class ThinkingEvent(_Event):
    """What the assistant is doing now ("Searching the knowledge base for …")."""

    type: Literal["thinking"] = "thinking"
    text: str
    phase: Phase = "searching"


class SourcePreview(BaseModel):
    model_config = FROZEN

    id: str
    title: str
    snippet: str
    publisher: str | None = None
    updated: str | None = None
    # Where an ingested passage comes from ("Document › Section, p. 3"); None for a hand-written source.
    where: str | None = None
    # A later edition of guidance on this was found for the same question ("a newer document on this: …").
    newer: str | None = None


class SourcesEvent(_Event):
    """Previews of what retrieval found, before (or while) the answer arrives. Added, never replaced."""

    type: Literal["sources"] = "sources"
    sources: list[SourcePreview]
    query: str = ""


class TextEvent(_Event):
    """A released piece of the answer, already sanitised and free of partial markers.

    ``delta`` is the raw released text (complete ``[uuid]`` markers included, for the record);
    ``display`` is the same piece with markers shown as compact pending numbers (``[·1]``),
    so no front end has to parse model output.
    """

    type: Literal["text"] = "text"
    delta: str
    display: str
    held: int = 0  # characters the guard is still holding back after this release
    # Every source id cited so far in this turn → its pending number, as ``display`` shows it (``[·n]``),
    # so a sidebar can number its previews the same way while the answer streams. A reset starts a new
    # turn, whose numbers start again from 1.
    numbers: dict[str, int] = Field(default_factory=dict)


ResetReason = Literal["safety", "tool_call"]


class ResetEvent(_Event):
    """A retraction: the front end removes exactly ``withdrawn_display`` from the end of the answer."""

    type: Literal["reset"] = "reset"
    reason: ResetReason
    rule: str | None = None  # the safety rule's name when reason == "safety"
    withdrawn: str  # raw released text withdrawn (kept in the audit record)
    withdrawn_display: str  # the same text as it was displayed
    note: str  # a short human-readable why, shown where the text was


class Citation(BaseModel):
    model_config = FROZEN

    id: str
    number: int
    title: str
    grounding: Literal["grounded", "unchecked"]  # both passed check one; only these are shown
    # Where an ingested passage comes from ("Document › Section, p. 3"); None for a hand-written source.
    where: str | None = None
    # A later edition of guidance on this was found for the same question ("a newer document on this: …").
    newer: str | None = None


class VerificationSummary(BaseModel):
    model_config = FROZEN

    attempted: int = 0  # distinct source ids cited
    confirmed: int = 0  # check one passed
    missing: int = 0
    retired: int = 0
    grounded: int = 0  # check two passed
    ungrounded: int = 0  # check two did not pass: contradicted or not established
    contradicted: int = 0  # of the ungrounded: the excerpt says otherwise
    not_established: int = 0  # of the ungrounded: the excerpt does not say so
    unchecked: int = 0  # check two did not run or gave no verdict for it
    note: str | None = None  # e.g. "Verification unavailable: timed out"
    seconds: float = 0.0


class Coverage(BaseModel):
    """What the final answer says without a verified source: each statement (sentence) of ``EndEvent.text``
    is backed when it cites a shown citation, unbacked otherwise."""

    model_config = FROZEN

    statements: int = 0
    backed: int = 0
    # [start, end) offsets into EndEvent.text of every unbacked statement, so a front end can mark them
    # (a visible, colour-independent mark) without splitting sentences itself.
    unbacked: list[tuple[int, int]] = Field(default_factory=list)
    # The answer says the knowledge base does not cover the question, and cites nothing.
    abstained: bool = False

    @property
    def line(self) -> str:
        """ "4 of 5 statements backed by a verified source", or what to say when nothing was checked."""
        if self.abstained:
            return "The knowledge base does not cover this question"
        if self.statements and not self.backed:
            return "Nothing in this answer was checked against a source"
        return f"{self.backed} of {self.statements} statements backed by a verified source"


Outcome = Literal["complete", "cancelled", "withdrawn", "error"]


class EndEvent(_Event):
    """How an answer ended, with its final display text: the one thing a front end shows at the end.

    ``complete``: ``text`` has only verified citations attached (``[1]``, ``[2]`` in order of first use).
    ``withdrawn``: a safety rule tripped; ``text`` is empty. ``cancelled``: the reader stopped it (the
    engine's ``cancel``); ``text`` is what had been released, with every marker removed (none was checked).
    """

    type: Literal["end"] = "end"
    text: str
    citations: list[Citation]
    audit_id: int | None
    outcome: Outcome = "complete"
    verification: VerificationSummary = Field(default_factory=VerificationSummary)
    backend: str = ""
    model: str = ""
    # The model stopped at its output limit (max_tokens): ``text`` is what it wrote, verified as usual,
    # and a front end says plainly that the answer was cut short.
    cut: bool = False
    coverage: Coverage = Field(default_factory=Coverage)


ErrorKind = Literal[
    "connection",  # refused, DNS, unreachable
    "auth",  # 401/403
    "not_found",  # 404: model or endpoint
    "rate_limit",  # 429
    "server",  # 5xx
    "stream_cut",  # the stream ended mid-answer
    "bad_response",  # malformed JSON, unexpected shape
    "length",  # finish_reason == "length"
    "content_filter",
    "store",  # the database
    "usage",
    "internal",
]


class ErrorEvent(_Event):
    """Something went wrong; the answer so far is kept in the record. ``action`` says what to do.

    ``partial_text`` is the final display text of what had been released (markers removed: none was
    checked); a front end shows it as it is.
    """

    type: Literal["error"] = "error"
    kind: ErrorKind
    message: str
    action: str = ""
    partial_text: str = ""
    audit_id: int | None = None


Event = Annotated[
    StartEvent | ThinkingEvent | SourcesEvent | TextEvent | ResetEvent | EndEvent | ErrorEvent,
    Field(discriminator="type"),
]


def event_types() -> list[str]:
    """Every event's ``type`` tag, in the union's order: what every front end must handle."""
    (union, *_) = get_args(Event)
    return [cls.model_fields["type"].default for cls in get_args(union)]


@functools.cache
def _adapter() -> TypeAdapter[Event]:
    return TypeAdapter(Event)  # built on the first parse: it would build every event's validator


def parse_event(line: str | bytes) -> Event:
    """One JSON line back into its event type (raises pydantic.ValidationError when it is not one)."""
    return _adapter().validate_json(line)


def to_json(event: Event) -> str:
    return event.model_dump_json()
