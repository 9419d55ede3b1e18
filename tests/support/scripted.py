"""A scripted engine implementing ``AnswerEngine`` (and its ``Conversation``): yields given events,
optionally pausing at a point.

Used by the UI tests, the screenshot tool and the UI benchmark, so every screen state can be reached
deterministically (no model, no clock, no network). Like the real engine, ``cancel()`` ends the answer
being written with a ``cancelled`` end holding what was released (markers removed) and its audit id.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from hippo_tui.audit_stats import AuditStats, StatsBy, StatsGroup
from hippo_tui.engine.protocol import Checked, EngineInfo
from hippo_tui.events import (
    Citation,
    Coverage,
    EndEvent,
    ErrorEvent,
    Event,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    StartEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.models import AnswerRecord, CitationAttempt, ResetRecord
from hippo_tui.verification.markers import finalize_markers


class ScriptedStore:
    """The audit records and KB the scripted engine answers from (the demo scripts' records)."""

    def __init__(self, kb_name: str = "demo", size: int = 64) -> None:
        self.kb_name = kb_name
        self.size = size
        self.records: dict[int, AnswerRecord] = {i: demo_record(i) for i in (1, 2, 3)}
        self.records[4] = withdrawn_record(4)

    async def count(self) -> int:
        return self.size

    async def get_answer(self, answer_id: int) -> AnswerRecord | None:
        return self.records.get(answer_id)

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        return sorted(self.records.values(), key=lambda r: r.id, reverse=True)[:limit]

    async def close(self) -> None:
        return None


def _audit_id(script: Sequence[Event]) -> int | None:
    """The audit id a script's answer carries (its start, end or error event)."""
    for event in script:
        if isinstance(event, StartEvent):
            return event.audit_id
        if isinstance(event, EndEvent | ErrorEvent):
            return event.audit_id
    return None


class ScriptedEngine:
    """Plays one script of events per question (the last script repeats).

    ``pause_after=n`` blocks each answer after its first ``n`` events until ``release()`` (or
    ``cancel()``) is called, so a mid-stream state can be inspected or snapshotted.
    """

    def __init__(
        self,
        events: Sequence[Event] | Sequence[Sequence[Event]],
        pause_after: int | None = None,
        *,
        backend_label: str = "offline",
        model: str = "offline",
        store: ScriptedStore | None = None,
    ) -> None:
        if events and not isinstance(events[0], Sequence):
            self.scripts: list[list[Event]] = [list(events)]  # type: ignore[arg-type]
        else:
            self.scripts = [list(s) for s in events]  # type: ignore[union-attr]
        self.pause_after = pause_after
        self.backend_label = backend_label
        self.model = model
        self.store = store or ScriptedStore()
        self._default_prompt = "Answer from the given sources and cite each claim."
        self.system_prompt = self._default_prompt  # what a conversation opened without one starts with
        self.asked: list[str] = []
        self.prompts_at_ask: list[str] = []  # the conversation's system prompt when each question was asked
        self.cancelled: list[str] = []
        self.conversations: list[ScriptedConversation] = []
        self.verified: list[str] = []
        self.reconfigured: list[dict[str, str | None]] = []
        self.closed = False
        self._gate: asyncio.Event | None = None
        self._cancel: asyncio.Event | None = None  # set by cancel() for the answer being written

    @property
    def default_system_prompt(self) -> str:
        return self._default_prompt

    @property
    def new_conversations(self) -> int:
        """Conversations opened after the first (ctrl+n)."""
        return max(0, len(self.conversations) - 1)

    async def open_conversation(self, *, system_prompt: str | None = None) -> ScriptedConversation:
        conversation = ScriptedConversation(self, system_prompt or self.system_prompt, len(self.conversations))
        self.conversations.append(conversation)
        return conversation

    async def verify(self, text: str, *, question: str | None = None) -> Checked:
        """Nothing checked (the scripted store has no sources): the text back, uncited."""
        self.verified.append(text)
        return Checked(
            audit_id=99, judge=self.backend_label, text=text, attempts=[], summary=VerificationSummary(),
            coverage=Coverage(),
        )  # fmt: skip

    def release(self) -> None:
        """Let paused answers continue (and stop pausing later ones)."""
        self.pause_after = None
        if self._gate is not None:
            self._gate.set()

    async def info(self) -> EngineInfo:
        return EngineInfo(
            backend=self.backend_label,
            model=self.model,
            kb_name=self.store.kb_name,
            kb_size=await self.store.count(),
        )

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        return await self.store.get_answer(audit_id)

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        return await self.store.list_answers(limit=limit)

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        """Per model or per day, counted from the scripted records (no retired or failed lists)."""
        groups: dict[str, StatsGroup] = {}
        for record in await self.list_answers(limit=1000):
            key = record.model if by == "model" else record.created[:10]
            g = groups.get(key) or StatsGroup(key=key)
            groups[key] = g.model_copy(
                update={"answers": g.answers + 1, "citations": g.citations + len(record.citations)}
            )
        return AuditStats(by=by, groups=list(groups.values())[:limit], retired_sources=[], most_failed=[])

    async def _paused(self, cancel: asyncio.Event) -> None:
        if self._gate is None or self._gate.is_set():
            self._gate = asyncio.Event()
        gate = asyncio.ensure_future(self._gate.wait())
        stop = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait([gate, stop], return_when=asyncio.FIRST_COMPLETED)
        finally:
            gate.cancel()
            stop.cancel()

    async def play(self, question: str, prompt: str) -> AsyncIterator[Event]:
        script = self.scripts[min(len(self.asked), len(self.scripts) - 1)]
        self.asked.append(question)
        self.prompts_at_ask.append(prompt)
        cancel = self._cancel = asyncio.Event()
        raw = ""  # released text with its markers, withdrawn parts removed
        try:
            for i, event in enumerate(script):
                if self.pause_after is not None and i == self.pause_after:
                    await self._paused(cancel)
                if cancel.is_set():
                    yield _cancelled_end(finalize_markers(raw, {}), _audit_id(script), event.t)
                    return
                if isinstance(event, TextEvent):
                    raw += event.delta
                elif isinstance(event, ResetEvent) and event.withdrawn:
                    raw = raw[: -len(event.withdrawn)]
                elif isinstance(event, ErrorEvent) and raw and not event.partial_text:
                    # Like the real engine: an error carries the final display text of what was released.
                    event = event.model_copy(update={"partial_text": finalize_markers(raw, {})})
                yield event
                await asyncio.sleep(0)
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled.append(question)
            raise
        finally:
            if self._cancel is cancel:
                self._cancel = None

    async def cancel(self) -> None:
        if self._cancel is not None and not self._cancel.is_set():
            self.cancelled.append(self.asked[-1])
            self._cancel.set()

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        self.reconfigured.append({"base_url": base_url, "model": model, "backend": backend})
        if model:
            self.model = model
        if backend:
            self.backend_label = backend

    async def close(self) -> None:
        self.closed = True


class ScriptedConversation:
    """One conversation on the scripted engine: the engine plays the scripts and keeps the counts."""

    def __init__(self, engine: ScriptedEngine, prompt: str, number: int) -> None:
        self.engine = engine
        self._prompt = prompt
        self._id = f"scripted-{number}"
        self.closed = False

    @property
    def id(self) -> str:
        return self._id

    @property
    def system_prompt(self) -> str:
        return self._prompt

    def ask(self, question: str) -> AsyncIterator[Event]:
        return self.engine.play(question, self._prompt)

    async def cancel(self) -> None:
        await self.engine.cancel()

    async def set_system_prompt(self, text: str) -> None:
        self._prompt = text

    async def close(self) -> None:
        self.closed = True


def _cancelled_end(text: str, audit_id: int | None, t: float) -> EndEvent:
    return EndEvent(text=text, citations=[], audit_id=audit_id, outcome="cancelled", t=t)


# ---------------------------------------------------------------------------------------------
# Demo scripts: the states the tests, screenshots and benchmark need.

IDS = (
    "3f1c2a9e-1b7d-4c55-9a1e-0c2d4e6f8a01",
    "7b2e4d10-5c3a-4f8e-b1d2-9e8f7a6b5c02",
    "c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e03",
)
SOURCES = [
    SourcePreview(
        id=IDS[0],
        title="Cystitis in adults: first-line treatment",
        snippet="For uncomplicated «cystitis» in non-pregnant women, a 3-day course of trimethoprim…",
        publisher="Demo guideline",
    ),
    SourcePreview(
        id=IDS[1],
        title="Nitrofurantoin: dosing and renal function",
        snippet="Avoid «nitrofurantoin» if eGFR is below 45 ml/min; short courses are acceptable…",
        publisher="Demo formulary",
    ),
    SourcePreview(
        id=IDS[2],
        title="Urine culture before antibiotics",
        snippet="Send a «urine» sample for culture in men, pregnant women and treatment failure…",
    ),
]

QUESTION = "How should uncomplicated cystitis be treated?"

_PIECES = [
    "Adults with **uncomplicated cystitis** can be treated with a short course of antibiotics. ",
    "Trimethoprim for 3 days is a common first choice [·1]. ",
    "Nitrofurantoin is an alternative when kidney function is adequate [·2].\n\n",
    "- Send a urine culture in men and in pregnancy [·3].\n",
    "- Review if symptoms persist after 48 hours.\n",
]
_FINAL = (
    "Adults with **uncomplicated cystitis** can be treated with a short course of antibiotics. "
    "Trimethoprim for 3 days is a common first choice [1]. "
    "Nitrofurantoin is an alternative when kidney function is adequate [2].\n\n"
    "- Send a urine culture in men and in pregnancy.\n"
    "- Review if symptoms persist after 48 hours.\n"
)


def _text(display: str, t: float) -> TextEvent:
    return TextEvent(delta=display, display=display, t=t, held=3)


def _head(t0: float = 0.0) -> list[Event]:
    return [
        ThinkingEvent(text=f"Searching the knowledge base for “{QUESTION}”", phase="searching", t=t0),
        SourcesEvent(sources=SOURCES, query=QUESTION, t=t0 + 0.05),
        ThinkingEvent(text="Writing the answer…", phase="writing", t=t0 + 0.1),
    ]


def _checking(t: float) -> ThinkingEvent:
    return ThinkingEvent(text="Checking citations…", phase="checking", t=t)


def answer_events(*, audit_id: int = 1) -> list[Event]:
    """A complete answer: 3 sources cited, 2 shown (1 grounded, 1 unchecked), 1 ungrounded hidden."""
    events = _head()
    events += [_text(p, 0.2 + i * 0.1) for i, p in enumerate(_PIECES)]
    events.append(_checking(0.8))
    events.append(
        EndEvent(
            text=_FINAL,
            citations=[
                Citation(id=IDS[0], number=1, title=SOURCES[0].title, grounding="grounded"),
                Citation(id=IDS[1], number=2, title=SOURCES[1].title, grounding="unchecked"),
            ],
            audit_id=audit_id,
            verification=VerificationSummary(
                attempted=3, confirmed=3, grounded=1, ungrounded=1, unchecked=1, seconds=0.4
            ),
            backend="offline",
            model="offline",
            t=1.2,
        )
    )
    return events


def timeout_events(*, audit_id: int = 2) -> list[Event]:
    """Check two timed out: every confirmed citation stays, marked unchecked."""
    events = answer_events(audit_id=audit_id)
    end = events[-1]
    assert isinstance(end, EndEvent)
    events[-1] = end.model_copy(
        update={
            "citations": [
                Citation(id=IDS[0], number=1, title=SOURCES[0].title, grounding="unchecked"),
                Citation(id=IDS[1], number=2, title=SOURCES[1].title, grounding="unchecked"),
            ],
            "verification": VerificationSummary(
                attempted=3, confirmed=2, missing=1, unchecked=2, note="Verification unavailable: timed out"
            ),
        }
    )
    return events


def reset_events(*, audit_id: int = 3) -> list[Event]:
    """The model writes, decides to look something up (a tool-call reset), then answers for real."""
    withdrawn = "I think the usual treatment is "
    events = _head()
    events += [_text("I think the usual ", 0.2), _text("treatment is ", 0.3)]
    events.append(
        ResetEvent(
            reason="tool_call",
            withdrawn=withdrawn,
            withdrawn_display=withdrawn,
            note="Withdrawn while the assistant looks something up…",
            t=0.4,
        )
    )
    events += _head(0.5)[:2]
    events += [_text(p, 0.7 + i * 0.1) for i, p in enumerate(_PIECES)]
    events += answer_events(audit_id=audit_id)[-2:]
    return events


def safety_events(*, audit_id: int = 4) -> list[Event]:
    """A safety rule trips after some text is out: everything is withdrawn and the answer ends withdrawn."""
    shown = ["The patient's record ", "number is MRN "]
    events = _head() + [_text(p, 0.2 + i * 0.1) for i, p in enumerate(shown)]
    events.append(
        ResetEvent(
            reason="safety",
            rule="patient_identifier",
            withdrawn="".join(shown),
            withdrawn_display="".join(shown),
            note="Withdrawn: the answer matched the safety rule “patient_identifier”.",
            t=0.5,
        )
    )
    events.append(
        EndEvent(
            text="",
            citations=[],
            audit_id=audit_id,
            outcome="withdrawn",
            backend="offline",
            model="offline",
            t=0.5,
        )
    )
    return events


def error_events() -> list[Event]:
    """The server refuses the connection before any text."""
    return [
        ThinkingEvent(text=f"Searching the knowledge base for “{QUESTION}”", phase="searching"),
        SourcesEvent(sources=SOURCES[:2], query=QUESTION, t=0.05),
        ErrorEvent(
            kind="connection",
            message="Could not connect to http://127.0.0.1:11434/v1",
            action="Start the server at http://127.0.0.1:11434/v1 or pick another with --base-url",
            t=0.1,
        ),
    ]


def long_answer_pieces(chars: int = 50_000, piece: int = 24) -> list[str]:
    """A long Markdown answer (paragraphs, lists, a table) cut into model-sized pieces."""
    block = (
        "## Management of uncomplicated cystitis\n\n"
        "Adults with uncomplicated cystitis can be treated with a short course of antibiotics; "
        "the choice depends on local resistance, kidney function and previous cultures [·1].\n\n"
        "- Trimethoprim 200 mg twice daily for 3 days [·2]\n"
        "- Nitrofurantoin 100 mg modified-release twice daily for 3 days\n"
        "- Pivmecillinam as a second-line option\n\n"
        "| Drug | Dose | Days |\n|---|---|---|\n"
        "| Trimethoprim | 200 mg | 3 |\n| Nitrofurantoin | 100 mg | 3 |\n| Pivmecillinam | 400 mg | 3 |\n\n"
        "Review after 48 hours if symptoms do not improve, and send a urine culture [·3].\n\n"
    )
    text = (block * (chars // len(block) + 1))[:chars]
    return [text[i : i + piece] for i in range(0, len(text), piece)]


def long_answer_events(chars: int = 50_000, piece: int = 24) -> list[Event]:
    pieces = long_answer_pieces(chars, piece)
    events = _head()
    events += [TextEvent(delta=p, display=p) for p in pieces]
    events.append(_checking(1.0))
    events.append(
        EndEvent(
            text="".join(pieces).replace("[·", "["),
            citations=[Citation(id=IDS[0], number=1, title=SOURCES[0].title, grounding="grounded")],
            audit_id=None,
            verification=VerificationSummary(attempted=1, confirmed=1, grounded=1),
        )
    )
    return events


def demo_record(audit_id: int = 1) -> AnswerRecord:
    """The audit record behind ``answer_events``: one grounded, one unchecked, one ungrounded (hidden)."""
    return AnswerRecord(
        id=audit_id,
        created="2026-01-01T09:00:00+00:00",
        question=QUESTION,
        model="offline",
        backend="offline",
        outcome="complete",
        raw_text=_FINAL,
        final_text=_FINAL,
        timings={"ttft": 0.2, "total": 1.2, "verification": 0.4},
        citations=[
            CitationAttempt(
                source_id=IDS[0],
                claims=["Trimethoprim for 3 days is a common first choice."],
                check_one="confirmed",
                check_two="grounded",
                shown=True,
                number=1,
                title=SOURCES[0].title,
            ),
            CitationAttempt(
                source_id=IDS[1],
                claims=["Nitrofurantoin is an alternative when kidney function is adequate."],
                check_one="confirmed",
                check_two="unchecked",
                reason="no verdict for this source",
                shown=True,
                number=2,
                title=SOURCES[1].title,
            ),
            CitationAttempt(
                source_id=IDS[2],
                claims=["Send a urine culture in men and in pregnancy."],
                check_one="confirmed",
                check_two="ungrounded",
                reason="the excerpt does not support the claim",
                title=SOURCES[2].title,
            ),
        ],
    )


def withdrawn_record(audit_id: int = 4) -> AnswerRecord:
    shown = "The patient's record number is MRN "
    return AnswerRecord(
        id=audit_id,
        created="2026-01-01T09:05:00+00:00",
        question=QUESTION,
        model="offline",
        backend="offline",
        outcome="withdrawn",
        raw_text=shown + "1234567",
        resets=[
            ResetRecord(
                reason="safety",
                rule="patient_identifier",
                withdrawn=shown,
                withdrawn_chars=len(shown),
                at=0.5,
            )
        ],
    )
