"""Domain records shared by the store, the engine and verification (not events: those are in events.py)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hippo_tui.events import Coverage
from hippo_tui.verification.markers import canonical_id


class _Record(BaseModel):
    """Builds its validator when first used, not on import: `kb search` touches a few of these records."""

    model_config = ConfigDict(defer_build=True)


SourceStatus = Literal["active", "retired"]


class Provenance(_Record):
    """Where an ingested passage comes from (``kb ingest``); hand-written JSONL sources have none."""

    model_config = ConfigDict(extra="forbid")

    document: str  # the document's key: its resolved path
    section: str | None = None  # the section's anchor in the document ("dosing-adults")
    page: int | None = None  # PDF page, from 1
    version: str  # the document version (sha256 of its bytes) the passage was last ingested from
    ingested: str  # when, ISO 8601 UTC


class Source(_Record):
    """One knowledge-base row. ``excerpt`` is the text a citation is checked against."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str = Field(min_length=1)
    excerpt: str = Field(min_length=1)
    body: str | None = None
    publisher: str | None = None
    url: str | None = None
    updated: date | None = None
    status: SourceStatus = "active"
    retired_reason: str | None = None
    superseded_by: str | None = None
    provenance: Provenance | None = None

    @field_validator("id", "superseded_by")
    @classmethod
    def _canonical(cls, v: str | None) -> str | None:
        return None if v is None else canonical_id(v)


class SearchHit(_Record):
    id: str
    title: str
    snippet: str  # plain text; matched terms wrapped in « and » (front ends style them)
    excerpt: str
    score: float
    publisher: str | None = None
    updated: date | None = None
    provenance: Provenance | None = None


LookupStatus = Literal["active", "retired", "missing"]


class Lookup(_Record):
    """What ``Store.get_many`` says of one id."""

    id: str
    status: LookupStatus
    source: Source | None = None


CheckOne = Literal["confirmed", "missing", "retired"]
CheckTwo = Literal["grounded", "ungrounded", "unchecked"]
# What check two concluded of a confirmed citation: only "supported" is shown as verified (check_two
# "grounded"); "contradicted" (the excerpt says otherwise) and "not_established" (it does not say so) are both
# "ungrounded" and not shown. None: no verdict (unchecked, or recorded before verdicts existed).
JudgeOutcome = Literal["supported", "contradicted", "not_established"]
# A citation is *flagged* when check one failed: the id names no source, or a retired one. (Ungrounded is
# check two's verdict on a confirmed source, counted on its own.) The store's stats query uses the same set.
FLAGGED_CHECK_ONE: tuple[CheckOne, ...] = ("missing", "retired")


class CitationAttempt(_Record):
    """One cited source id in one answer, with both checks. Every attempt is recorded, shown or not."""

    source_id: str
    claims: list[str]
    check_one: CheckOne
    check_two: CheckTwo = "unchecked"
    reason: str = ""  # why it is flagged / ungrounded / unchecked
    verdict: JudgeOutcome | None = None
    element: str | None = None  # the kind of claim element that decided a verdict other than supported
    shown: bool = False
    number: int | None = None  # its [n] in the final text when shown
    title: str | None = None
    # Where an ingested passage comes from ("Document › Section, p. 3"), as the sidebar shows it: filled
    # from the source's provenance by check one and when the record is read back; None for other sources.
    where: str | None = None

    @property
    def failed_check_two(self) -> str | None:
        """ "contradicted" or "not established" for a citation check two did not pass, when the record says
        which (None otherwise): the words every front end shows for it."""
        if self.check_two != "ungrounded" or self.verdict not in ("contradicted", "not_established"):
            return None
        return self.verdict.replace("_", " ")

    @property
    def flagged(self) -> bool:
        """Check one failed (missing or retired): never shown, whatever check two would say."""
        return self.check_one in FLAGGED_CHECK_ONE


GroundingStep = Literal["json_schema", "json_object+schema", "json_object"]


class GroundingTry(_Record):
    """One request of check two: which ``response_format`` step, what came of it, and the reply as written."""

    step: GroundingStep
    outcome: str  # "answered", "incomplete: 1 of 2 verdicts", "not JSON", "HTTP 500: …"
    raw: str | None = None  # the judge's reply (None when the server refused the request)


class GroundingRecord(_Record):
    """How check two went for one answer: the step whose reply gave the verdicts, and every step tried."""

    step: GroundingStep | None = None  # None: no step gave a usable reply
    raw: str | None = None  # the reply the verdicts came from
    tries: list[GroundingTry] = Field(default_factory=list)


AnswerOutcome = Literal["in_flight", "complete", "cancelled", "withdrawn", "error"]


class ResetRecord(_Record):
    reason: str  # "safety" | "tool_call"
    rule: str | None = None
    withdrawn: str  # the raw text withdrawn
    withdrawn_chars: int
    at: float = 0.0  # seconds since the answer started


class AnswerRecord(_Record):
    """One answer in the audit record: everything needed to see what happened and why."""

    id: int
    created: str  # ISO 8601, UTC
    question: str
    model: str
    backend: str
    outcome: AnswerOutcome
    raw_text: str = ""  # everything the model wrote, withdrawn parts included
    final_text: str = ""  # what the reader was shown at the end
    error: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)  # ttft, total, verification, …
    conversation_id: str | None = None
    asked_by: str | None = None  # a token's name on a server; None in the embedded app
    client: str | None = None  # the kind of front end that asked ("tui", "ask", "server:tui", ...)
    resets: list[ResetRecord] = Field(default_factory=list)
    citations: list[CitationAttempt] = Field(default_factory=list)
    grounding: GroundingRecord | None = None  # None: check two did not run
    coverage: Coverage | None = None  # of final_text; None: no complete answer was verified
