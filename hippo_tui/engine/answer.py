"""One answer, from question to audit record: an object with a method per phase (as StreamGuard is one per stream).

begin (the audit row, ``start``) → retrieve → write (model turns; a turn's tool calls search and the model goes
on; a safety trip withdraws) → verify → ``end``. Whatever happens (complete, withdrawn, error, cancelled) the
answer's own state is enough to write its record: the conversation's ``ask`` only drives ``events`` step by step.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from hippo_tui.backends import Backend
from hippo_tui.backends.chat import RetryPolicy, TextDelta, ToolCall, ToolsRefused, TurnEnd, stream_turn
from hippo_tui.backends.errors import ModelError
from hippo_tui.config import Settings
from hippo_tui.engine.newer import with_newer
from hippo_tui.events import (
    Citation,
    Coverage,
    EndEvent,
    ErrorEvent,
    ErrorKind,
    Event,
    Outcome,
    ResetEvent,
    ResetReason,
    SourcePreview,
    SourcesEvent,
    StartEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.guard import SafetyPolicy, StreamGuard, new_canary
from hippo_tui.models import AnswerOutcome, ResetRecord, SearchHit
from hippo_tui.prompts import SEARCH_TOOL, SEARCH_TOOL_NAME, system_message, tool_error, tool_result
from hippo_tui.provenance import where
from hippo_tui.safe_text import clip, sanitize
from hippo_tui.store import Store, StoreError
from hippo_tui.verification.markers import PendingMarkers, finalize_markers

MAX_TOOL_ROUNDS = 3  # after this many searches in one answer the model must answer with what it has
STORE_ACTION = "check the data folder (HIPPO_HOME) is writable and not in use by another hippo-tui"
SAID_LIMIT = 400  # characters of an error message on screen: a server's words are untrusted, and can be long
# Passages of the best hits' own documents given to the model after the k hits: a card split into short passages
# often answers in one that ranks below another document's best (store.ranking.with_siblings).
SIBLINGS = 3
# The answerer reads search's order without the title boost (store.titles): given it, its answers cited the
# right document less often on the real corpora's held-back half.
TITLES = False
# The audit record's note on an answer that reached the output limit (kept, verified, shown as cut).
CUT_NOTE = "length: the model reached its output limit (max_tokens); the answer is what it wrote until then"


def searching(query: str) -> str:
    return f"Searching the knowledge base for “{clip(query, 60, flat=True)}”…"


def preview(hit: SearchHit) -> SourcePreview:
    return SourcePreview(
        id=hit.id,
        title=sanitize(hit.title),
        snippet=sanitize(hit.snippet),
        publisher=sanitize(hit.publisher) if hit.publisher else None,
        updated=hit.updated.isoformat() if hit.updated else None,
        where=where(hit.title, hit.provenance) if hit.provenance is not None else None,
    )


MAX_QUESTION_CHARS = 4000  # a question longer than this is not searched or sent: one input must not stall the KB


class QuestionTooLong(Exception):
    """The question is over ``MAX_QUESTION_CHARS``; the message says how long it is."""


def failure(e: Exception) -> tuple[ErrorKind, str, str, str]:
    """What to tell the reader of a failed answer, and what to record: (kind, message, action, record note)."""
    if isinstance(e, QuestionTooLong):
        return "usage", str(e), "ask a shorter question, about one thing at a time", f"usage: {e}"
    if isinstance(e, ModelError):
        return e.kind, e.message, e.action, f"{e.kind}: {e.message}"
    if isinstance(e, StoreError):
        return "store", str(e), STORE_ACTION, f"store: {e}"
    # A bug must still leave a record and tell the reader.
    return (
        "internal",
        f"internal error: {type(e).__name__}: {e}",
        "please report it with the audit id",
        (f"internal: {e!r}"),
    )


def search_args(call: ToolCall) -> tuple[str | None, str]:
    """The query of a search tool call, or None and why it cannot be run (told to the model)."""
    if call.name != SEARCH_TOOL_NAME:
        return None, f"there is no tool named '{call.name}'"
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return None, "the arguments were not valid JSON"
    query = args.get("query") if isinstance(args, dict) else None
    if not isinstance(query, str) or not query.strip():
        return None, "the 'query' argument is missing or empty"
    return query.strip(), ""


async def _relay(phase: AsyncGenerator[Event, None]) -> AsyncIterator[Event]:
    """A phase's events, and the phase closed at once when the answer stops (its HTTP stream with it)."""
    async with aclosing(phase):
        async for event in phase:
            yield event


@dataclass(frozen=True)
class AnswerInputs:
    """Everything one answer uses, fixed at its start: a reconfigure or a new prompt applies to the next one."""

    store: Store
    backend: Backend
    settings: Settings
    policy: SafetyPolicy  # without a canary: each answer adds its own
    retry: RetryPolicy
    system_prompt: str
    conversation_id: str
    history: tuple[tuple[str, str], ...] = ()  # (question, answer) of the earlier turns, oldest first
    tools_refused: bool = False  # this endpoint refused the search tool before: do not offer it
    asked_by: str | None = None  # who asked (a token's name on a server), for the record
    client: str | None = None  # which kind of front end asked ("tui", "ask", "eval", "http"...)
    slots: asyncio.Semaphore | None = None  # answers past their start at once; None: no bound


class Answer:
    """The state of one answer, kept so that any way out (end, error, cancel) can write the record.

    It reads nothing back from whoever runs it and writes nothing into it: ``turn`` (the question and its
    answer, once complete) and ``tools_refused`` are what the conversation learns from it afterwards.
    """

    def __init__(self, inputs: AnswerInputs, question: str, *, clock: Callable[[], float]) -> None:
        self.inputs = inputs
        self.question = question
        self.store, self.backend, self.settings = inputs.store, inputs.backend, inputs.settings
        self.prompt = inputs.system_prompt
        self.tools_refused = inputs.tools_refused
        self.turn: tuple[str, str] | None = None  # (question, released answer) once complete
        self._clock = clock
        self._start = clock()
        self.answer_id: int | None = None
        self.guards: list[StreamGuard] = []  # one per model turn; each keeps its raw text
        self.parts: list[str] = []  # what the current turn has released (sanitised)
        self.timings: dict[str, float] = {}
        self.done = False
        self.cut = False  # the model stopped at its output limit: kept, verified, and said so
        self.step: asyncio.Future[Event] | None = None  # the step now running (``cancel`` stops it)
        self.cancel_requested = False
        self.context: dict[str, SearchHit] = {}  # every source found so far, by id
        self.messages: list[dict[str, Any]] = []
        self.policy: SafetyPolicy = inputs.policy  # with this answer's canary once the model is prompted
        self.rounds = 0  # searches run for the model
        # The turn being written.
        self.guard: StreamGuard | None = None
        self.pending = PendingMarkers()
        self.displayed: list[str] = []
        self.turn_end: TurnEnd | None = None
        self.offered = False  # the search tool was offered in this turn

    def t(self) -> float:
        return round(self._clock() - self._start, 4)

    @property
    def raw_text(self) -> str:
        """Everything the model wrote, withdrawn turns included (joined only when needed: linear)."""
        return "\n\n".join(r for r in (g.raw for g in self.guards) if r)

    @property
    def released(self) -> str:
        return "".join(self.parts)

    # -- the phases ---------------------------------------------------------------------------

    async def events(self) -> AsyncGenerator[Event, None]:
        """Every event of the answer, ``start`` first and ``end`` or ``error`` last."""
        try:
            async for event in _relay(self._begin()):
                yield event
            # The start (its record) comes at once; the work after it waits for a slot where the engine
            # bounds how many answers run at once (a server under a burst of questions).
            async with self.inputs.slots or contextlib.nullcontext():
                for phase in (self._retrieve, self._write, self._verify):
                    async for event in _relay(phase()):
                        yield event
                    if self.done:  # withdrawn while writing
                        return
        except Exception as e:  # every failure ends the answer with its error event and its record
            yield await self._error(e)
        finally:
            if not self.done and self.answer_id is not None:
                # Cancelled (Esc) or abandoned: the row is written even though this task is being cancelled.
                self.done = True
                self.timings["total"] = self.t()
                await asyncio.shield(self._finish_quietly("cancelled", final_text=self.plain_text()))

    async def _begin(self) -> AsyncGenerator[Event, None]:
        backend = self.backend
        begin = asyncio.ensure_future(
            self.store.begin_answer(
                question=self.question,
                model=backend.model,
                backend=backend.label,
                conversation_id=self.inputs.conversation_id,
                asked_by=self.inputs.asked_by,
                client=self.inputs.client,
            )
        )
        try:
            self.answer_id = await asyncio.shield(begin)
        except asyncio.CancelledError:
            # Cancelled while the row was being written: it exists (or will in a moment), so take its id and let
            # the way out record it as cancelled, never leave it "in flight".
            self.answer_id = await begin
            raise
        yield StartEvent(
            audit_id=self.answer_id,
            question=sanitize(self.question),
            backend=backend.label,
            model=backend.model,
            conversation_id=self.inputs.conversation_id,
            t=self.t(),
        )
        if backend.recorder is not None:
            backend.recorder.note(question=self.question)

    async def _retrieve(self) -> AsyncGenerator[Event, None]:
        if len(self.question) > MAX_QUESTION_CHARS:
            raise QuestionTooLong(
                f"the question is {len(self.question):,} characters long; the longest is {MAX_QUESTION_CHARS:,}"
            )
        yield ThinkingEvent(text=searching(self.question), phase="searching", t=self.t())
        hits = await self.store.search(self.question, self.settings.retrieval_k, SIBLINGS, TITLES)
        unmentioned = await self.store.unmentioned(self.question)
        self.timings["retrieval"] = self.t()
        self.context = {h.id: h for h in hits}
        yield SourcesEvent(sources=[preview(h) for h in hits], query=sanitize(self.question), t=self.t())
        self._prompt_model(hits, unmentioned)

    def _prompt_model(self, hits: list[SearchHit], unmentioned: list[str]) -> None:
        """The first messages (system prompt with a fresh canary and the sources, earlier turns, the question),
        and the safety policy that watches for that canary."""
        canary = new_canary()
        self.policy = self.inputs.policy.with_canary(canary)
        self.messages = [{"role": "system", "content": system_message(self.prompt, canary, hits, unmentioned)}]
        turns = self.settings.history_turns
        for q, a in self.inputs.history[-turns:] if turns else []:
            self.messages += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        self.messages.append({"role": "user", "content": self.question})

    async def _write(self) -> AsyncGenerator[Event, None]:
        """Model turns until one answers: tool calls search and go on; a safety trip withdraws everything."""
        while True:
            async for event in _relay(self._turn()):
                yield event
            guard, end = self._guard(), self.turn_end
            if not guard.tripped and end is not None and end.tool_calls:
                if self.offered:
                    async for event in _relay(self._look_up(end)):
                        yield event
                    continue
                # Calls to a tool it was not offered (rounds used up, or refused) are not run: asking again
                # would loop forever on a model that always calls. What it wrote is the answer, if anything.
                if not guard.raw.strip():
                    raise ModelError(
                        "bad_response",
                        f"the model kept calling {SEARCH_TOOL_NAME} when told to answer, and wrote nothing",
                        "ask again, or use a model that follows tool instructions",
                    )
            if not guard.tripped:
                self._check_finish(end)
                tail = guard.finish()
                if tail and not guard.tripped:
                    yield self._text(tail)
            if guard.tripped:
                async for event in _relay(self._withdraw(guard.tripped)):
                    yield event
            return

    async def _turn(self) -> AsyncGenerator[Event, None]:
        """One model turn streamed through a fresh guard; ``turn_end`` says how it finished."""
        writing = "Writing the answer…" if self.rounds == 0 else "Continuing the answer with what it found…"
        yield ThinkingEvent(text=writing, phase="writing", t=self.t())
        guard = self.guard = StreamGuard(self.policy, mode=self.settings.hold)
        self.guards.append(guard)
        self.pending, self.displayed, self.parts, self.turn_end = PendingMarkers(), [], [], None
        self.offered = self.rounds < MAX_TOOL_ROUNDS and not self.tools_refused
        turn = stream_turn(
            self.backend.client,
            model=self.backend.model,
            messages=self.messages,
            tools=[SEARCH_TOOL] if self.offered else None,
            base_url=self.backend.base_url,
            retry=self.inputs.retry,
            max_tokens=self.settings.max_tokens,
        )
        async with aclosing(turn):  # a trip stops reading: close the HTTP stream now, not at GC
            async for item in turn:
                if isinstance(item, TurnEnd):
                    self.turn_end = item
                    break
                if isinstance(item, ToolsRefused):
                    self.tools_refused = True
                    note = "The model takes no tools here: answering from the sources found first"
                    yield ThinkingEvent(
                        text=f"{note} ({clip(item.message, SAID_LIMIT)})", phase="writing", t=self.t()
                    )
                    continue
                assert isinstance(item, TextDelta)
                out = guard.feed(item.text)
                if guard.tripped:
                    break
                if out:
                    yield self._text(out)
        if self.turn_end is not None and self.turn_end.ttft is not None:
            self.timings.setdefault("model_ttft", round(self.turn_end.ttft, 4))
        self.offered = self.offered and not self.tools_refused  # refused in this turn: it went on without

    def _guard(self) -> StreamGuard:
        assert self.guard is not None, "a turn has run"
        return self.guard

    def _text(self, out: str) -> TextEvent:
        """A released piece of the current turn, with its display form and the pending numbers so far."""
        self.timings.setdefault("ttft", self.t())
        display = self.pending.feed(out)
        self.parts.append(out)
        self.displayed.append(display)
        held = self._guard().held
        return TextEvent(
            delta=out, display=display, held=held, numbers=dict(self.pending.numbers), t=self.t()
        )

    def _check_finish(self, end: TurnEnd | None) -> None:
        """The turn's finish reason: an answer that cannot stand is an error; one at the output limit is cut."""
        if end is None or end.finish_reason is None:
            raise ModelError(
                "stream_cut",
                f"the model's stream ended mid-answer ({self.backend.base_url})",
                "ask again; the partial answer is kept in the audit record",
            )
        if end.finish_reason == "content_filter":
            raise ModelError(
                "content_filter",
                "the server's content filter stopped the answer",
                "rephrase the question, or use another model",
            )
        if not self._guard().raw.strip():
            if end.finish_reason == "length":
                raise ModelError(
                    "length",
                    "the model reached its output limit before writing any answer (finish_reason length)",
                    "raise max_tokens, or ask a narrower question",
                )
            raise ModelError(
                "bad_response",
                "the model ended its answer without writing anything",
                "ask again, or try another model",
            )
        self.cut = end.finish_reason == "length"

    async def _look_up(self, end: TurnEnd) -> AsyncGenerator[Event, None]:
        """Run the turn's search calls (its text, if any, is withdrawn first) and hand the results back."""
        guard = self._guard()
        if guard.raw.strip():
            yield await self._reset("tool_call", None)
        self.messages.append(
            {
                "role": "assistant",
                "content": guard.raw or None,
                "tool_calls": [c.as_message() for c in end.tool_calls],
            }
        )
        for call in end.tool_calls:
            query, error = search_args(call)
            if query is None:
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_error(error)})
                continue
            yield ThinkingEvent(text=searching(query), phase="searching", t=self.t())
            found = await self.store.search(query, self.settings.retrieval_k, SIBLINGS, TITLES)
            added = [h for h in found if h.id not in self.context]
            self.context.update((h.id, h) for h in added)
            yield SourcesEvent(sources=[preview(h) for h in added], query=sanitize(query), t=self.t())
            unmentioned = await self.store.unmentioned(query)
            self.messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": tool_result(query, found, unmentioned)}
            )
        self.rounds += 1

    async def _withdraw(self, rule: str) -> AsyncGenerator[Event, None]:
        yield await self._reset("safety", rule)
        self.done = True
        self.timings["total"] = self.t()
        await self._record_unshown(f"answer withdrawn (safety rule {rule})")
        await self._record("withdrawn")
        yield self._end("withdrawn")

    async def _verify(self) -> AsyncGenerator[Event, None]:
        # Imported here: the checks and both judges are not needed before an answer's text is out.
        from hippo_tui.verification.checks import verify

        yield ThinkingEvent(text="Checking citations…", phase="checking", t=self.t())
        v_start = self.t()
        result = await verify(
            self.released,
            store=self.store,
            client=self.backend.client,
            model=self.backend.model,
            limit=self.settings.grounding_timeout,
            clock=self._clock,
        )
        self.timings["verification"] = round(self.t() - v_start, 4)
        self.timings["total"] = self.t()
        self.done = True
        if result.attempts:
            await self.store.record_citations(self._id(), result.attempts, grounding=result.grounding)
        await self._record(
            "complete", final_text=result.text, error=CUT_NOTE if self.cut else None, coverage=result.coverage
        )
        self.turn = (self.question, self.released)
        yield self._end(
            "complete",
            text=result.text,
            citations=with_newer(result.citations, self.context),
            verification=result.summary,
            coverage=result.coverage,
        )

    # -- ends and records ---------------------------------------------------------------------

    def plain_text(self) -> str:
        """What had been released, markers removed (none was checked): the text of a cancel or an error."""
        return finalize_markers(self.released, {})

    def _end(
        self,
        outcome: Outcome,
        *,
        text: str = "",
        citations: list[Citation] | None = None,
        verification: VerificationSummary | None = None,
        coverage: Coverage | None = None,
    ) -> EndEvent:
        return EndEvent(
            text=text,
            citations=citations or [],
            verification=verification or VerificationSummary(),
            coverage=coverage or Coverage(),
            audit_id=self.answer_id,
            outcome=outcome,
            backend=self.backend.label,
            model=self.backend.model,
            cut=self.cut and outcome == "complete",
            t=self.t(),
        )

    def cancelled(self) -> EndEvent:
        return self._end("cancelled", text=self.plain_text())

    async def _error(self, e: Exception) -> ErrorEvent:
        """The one way a failure ends an answer: its record written as far as the store allows, then the event."""
        kind, message, action, note = failure(e)
        self.done = True
        await self._finish_quietly("error", error=note)
        return ErrorEvent(
            kind=kind,
            message=clip(message.strip(), SAID_LIMIT),
            action=clip(action.strip(), SAID_LIMIT),
            partial_text=self.plain_text(),
            audit_id=self.answer_id,
            t=self.t(),
        )

    def _id(self) -> int:
        assert self.answer_id is not None, "the answer's record was begun"
        return self.answer_id

    async def _reset(self, reason: ResetReason, rule: str | None) -> ResetEvent:
        withdrawn, at = self.released, self.t()
        record = ResetRecord(
            reason=reason, rule=rule, withdrawn=withdrawn, withdrawn_chars=len(withdrawn), at=at
        )
        await self.store.record_reset(self._id(), record)
        self.parts = []
        if reason == "safety":
            note = f"Withdrawn: the answer matched the safety rule “{rule}”."
        else:
            note = "Withdrawn while the assistant looks something up…"
        return ResetEvent(
            reason=reason,
            rule=rule,
            withdrawn=withdrawn,
            withdrawn_display="".join(self.displayed),
            note=note,
            t=at,
        )

    async def _record(
        self,
        outcome: AnswerOutcome,
        *,
        final_text: str = "",
        error: str | None = None,
        coverage: Coverage | None = None,
    ) -> None:
        await self.store.finish_answer(
            self._id(),
            raw_text=self.raw_text,
            final_text=final_text,
            outcome=outcome,
            timings=self.timings,
            error=error,
            coverage=coverage,
        )

    async def _record_unshown(self, reason: str) -> None:
        """Keep the citation attempts of an answer nobody is shown (never drop a citation silently)."""
        if not self.guards:
            return
        from hippo_tui.verification.checks import unshown_attempts  # as in _verify

        guard = self.guards[-1]  # the turn that was withdrawn, cancelled or cut; earlier ones were superseded
        attempts = await unshown_attempts(guard.released + guard.held_text, store=self.store, reason=reason)
        if attempts:
            await self.store.record_citations(self._id(), attempts)

    async def _finish_quietly(
        self, outcome: AnswerOutcome, *, error: str | None = None, final_text: str = ""
    ) -> None:
        if self.answer_id is None:
            return
        reason = {"cancelled": "answer cancelled", "error": "answer failed"}.get(outcome)
        try:
            if reason is not None:
                await self._record_unshown(reason)
        except StoreError:
            pass  # the record of the answer itself matters more: still try to write it
        try:
            await self._record(outcome, error=error, final_text=final_text)
        except StoreError:
            pass  # the database failing is what is being reported already
