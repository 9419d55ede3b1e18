"""The answer engine: one question in, the event stream of one answer out. Headless; no front end here.

For each question: thinking → FTS retrieval → sources → the model (system prompt with the guard's canary and
the sources) → deltas through the StreamGuard → text. A tool call after text in the same turn withdraws
that turn's text (reset), searches, adds sources, and the model goes on. A safety trip withdraws everything
and ends the answer as withdrawn. At the end of the stream: finish() → verification → end. Every answer
gets its audit row, whatever happens to it: complete, withdrawn, error or cancelled.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_tui.backends import Backend, open_backend
from hippo_tui.backends.chat import RetryPolicy, TextDelta, ToolCall, ToolsRefused, TurnEnd, stream_turn
from hippo_tui.backends.errors import ModelError
from hippo_tui.citations import PendingMarkers, finalize_markers
from hippo_tui.config import Settings
from hippo_tui.engine.protocol import EngineInfo
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
)
from hippo_tui.guard import SafetyPolicy, StreamGuard, new_canary
from hippo_tui.models import AnswerOutcome, AnswerRecord, ResetRecord, SearchHit
from hippo_tui.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    SEARCH_TOOL,
    SEARCH_TOOL_NAME,
    system_message,
    tool_error,
    tool_result,
)
from hippo_tui.safe_text import sanitize
from hippo_tui.store import DEMO_KB, Store, StoreError
from hippo_tui.verify import unshown_attempts, verify

MAX_TOOL_ROUNDS = 3  # after this many searches in one answer the model must answer with what it has
STORE_ACTION = "check the data folder (HIPPO_HOME) is writable and not in use by another hippo-tui"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(sanitize(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _said(text: str, limit: int = 400) -> str:
    """An error message for the screen: a server's words are untrusted text, and can be long."""
    text = sanitize(text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def searching(query: str) -> str:
    return f"Searching the knowledge base for “{_short(query)}”…"


def preview(hit: SearchHit) -> SourcePreview:
    return SourcePreview(
        id=hit.id,
        title=sanitize(hit.title),
        snippet=sanitize(hit.snippet),
        publisher=sanitize(hit.publisher) if hit.publisher else None,
        updated=hit.updated.isoformat() if hit.updated else None,
    )


def kb_db_path(settings: Settings, kb: Path) -> Path:
    """A database of its own for a user's JSONL knowledge base, inside the data folder."""
    resolved = kb.expanduser().resolve()
    slug = re.sub(r"[^a-z0-9]+", "-", resolved.stem.lower()).strip("-")[:40] or "kb"
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    return settings.data_dir() / f"kb-{slug}-{digest}.db"


async def open_store(settings: Settings) -> Store:
    if settings.kb is not None:
        return await Store.open(kb_db_path(settings, settings.kb), seed=settings.kb)
    return await Store.open(settings.db_path(), seed=DEMO_KB)


@dataclass
class _Run:
    """The state of one answer, kept so that any way out (end, error, cancel) can write the record."""

    question: str
    answer_id: int | None = None
    guards: list[StreamGuard] = field(default_factory=list)  # one per model turn; each keeps its raw text
    parts: list[str] = field(default_factory=list)  # what the current turn has released (sanitised)
    timings: dict[str, float] = field(default_factory=dict)
    done: bool = False
    step: asyncio.Future[Event] | None = None  # the step of the answer now running (``cancel`` stops it)
    cancel_requested: bool = False

    @property
    def raw_text(self) -> str:
        """Everything the model wrote, withdrawn turns included (joined only when needed: linear)."""
        return "\n\n".join(r for r in (g.raw for g in self.guards) if r)

    @property
    def released(self) -> str:
        return "".join(self.parts)


class Engine:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        backend: Backend,
        *,
        clock: Callable[[], float],
        owns_store: bool,
    ) -> None:
        self.settings = settings
        self.store = store
        self._backend = backend
        self._clock = clock
        self._owns_store = owns_store
        self.default_system_prompt: str = settings.system_prompt or DEFAULT_SYSTEM_PROMPT
        self.system_prompt: str = self.default_system_prompt
        self.retry = RetryPolicy()
        self._tools_refused = False  # this server refused the search tool once: stop offering it
        self._history: list[tuple[str, str]] = []
        self._conversation_id = uuid.uuid4().hex
        self._policy_path = settings.policy
        self._first_record = settings.record
        self._recordings = 0
        self._running: _Run | None = None
        safety_policy(self._policy_path, "probe")  # fail at start, not mid-answer, on a bad policy file

    @classmethod
    async def create(
        cls, settings: Settings, *, store: Store | None = None, clock: Callable[[], float] = time.monotonic
    ) -> Engine:
        backend = open_backend(settings)
        owns = store is None
        try:
            if store is None:
                store = await open_store(settings)
            return cls(settings, store, backend, clock=clock, owns_store=owns)
        except BaseException:
            await backend.aclose()
            if owns and store is not None:
                await store.close()
            raise

    # -- what the UI reads --------------------------------------------------------------------

    @property
    def backend_label(self) -> str:
        return self._backend.label

    @property
    def model(self) -> str:
        return self._backend.model

    @property
    def backend(self) -> Backend:
        return self._backend

    async def info(self) -> EngineInfo:
        return EngineInfo(
            backend=self._backend.label,
            model=self._backend.model,
            base_url=self._backend.base_url,
            kb_name=self.store.kb_name,
            kb_size=await self.store.count(),
        )

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        return await self.store.get_answer(audit_id)

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        return await self.store.list_answers(limit=limit)

    def new_conversation(self) -> None:
        self._history.clear()
        self._conversation_id = uuid.uuid4().hex

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        """Switch model or endpoint; applies to the next question. Unset arguments keep their value."""
        update: dict[str, Any] = {
            k: v for k, v in (("base_url", base_url), ("model", model)) if v is not None
        }
        if api_key is not None:
            update["api_key"] = api_key
        if backend is not None:
            update["backend"] = backend
        elif base_url is not None:
            update["backend"] = "openai"
        if self._first_record is not None:
            # A cassette holds one backend's session: the new backend records next to the first one.
            self._recordings += 1
            first = self._first_record
            update["record"] = first.with_name(f"{first.stem}.{self._recordings}{first.suffix}")
        settings = Settings.model_validate({**self.settings.model_dump(), **update})
        new = open_backend(settings)
        self._tools_refused = False  # a new endpoint or model may take tools
        old, self._backend, self.settings = self._backend, new, settings
        await old.aclose()

    async def close(self) -> None:
        await self._backend.aclose()
        if self._owns_store:
            await self.store.close()

    # -- one answer ---------------------------------------------------------------------------

    async def ask(self, question: str) -> AsyncGenerator[Event, None]:
        """Each step of the answer runs as a task of its own, so that ``cancel`` can stop it wherever it waits
        (the model's stream, retrieval, verification) and the answer still ends with its ``cancelled`` event."""
        run = _Run(question)
        start = self._clock()
        self._running = run
        inner = self._ask(run, start)
        try:
            while not run.cancel_requested:  # cancelled between steps: closing ``inner`` writes the record
                run.step = asyncio.ensure_future(anext(inner))
                try:
                    event = await run.step
                except StopAsyncIteration:
                    return
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if not run.cancel_requested or (task is not None and task.cancelling()):
                        raise  # the front end's own task is being cancelled: nothing to send
                    break
                yield event
                if isinstance(event, EndEvent | ErrorEvent):
                    return
            await inner.aclose()
            yield self._cancelled(run, round(self._clock() - start, 4))
        finally:
            if self._running is run:
                self._running = None
            await inner.aclose()

    async def cancel(self) -> None:
        run = self._running
        if run is None:
            return
        run.cancel_requested = True
        if run.step is not None and not run.step.done():
            run.step.cancel()

    def _cancelled(self, run: _Run, at: float) -> EndEvent:
        return EndEvent(
            text=finalize_markers(run.released, {}),
            citations=[],
            audit_id=run.answer_id,
            outcome="cancelled",
            backend=self._backend.label,
            model=self._backend.model,
            t=at,
        )

    async def _ask(self, run: _Run, start: float) -> AsyncGenerator[Event, None]:
        backend, settings, prompt = self._backend, self.settings, self.system_prompt
        question = run.question

        def t() -> float:
            return round(self._clock() - start, 4)

        try:
            try:
                run.answer_id = await self.store.begin_answer(
                    question=question,
                    model=backend.model,
                    backend=backend.label,
                    conversation_id=self._conversation_id,
                )
            except StoreError as e:
                run.done = True
                yield ErrorEvent(kind="store", message=_said(str(e)), action=STORE_ACTION, t=t())
                return
            yield StartEvent(
                audit_id=run.answer_id,
                question=sanitize(question),
                backend=backend.label,
                model=backend.model,
                conversation_id=self._conversation_id,
                t=t(),
            )
            if backend.recorder is not None:
                backend.recorder.note(question=question)

            yield ThinkingEvent(text=searching(question), phase="searching", t=t())
            hits = await self.store.search(question, settings.retrieval_k)
            run.timings["retrieval"] = t()
            context: dict[str, SearchHit] = {h.id: h for h in hits}
            yield SourcesEvent(sources=[preview(h) for h in hits], query=sanitize(question), t=t())

            canary = new_canary()
            policy = safety_policy(self._policy_path, canary)
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": system_message(prompt, canary, hits)},
            ]
            for q, a in self._history[-settings.history_turns :] if settings.history_turns else []:
                messages += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
            messages.append({"role": "user", "content": question})

            rounds = 0
            while True:
                writing = (
                    "Writing the answer…" if rounds == 0 else "Continuing the answer with what it found…"
                )
                yield ThinkingEvent(text=writing, phase="writing", t=t())
                guard = StreamGuard(policy, mode=settings.hold)
                pending = PendingMarkers()
                displayed: list[str] = []
                run.parts = []
                run.guards.append(guard)
                end: TurnEnd | None = None
                offered = rounds < MAX_TOOL_ROUNDS and not self._tools_refused
                turn = stream_turn(
                    backend.client,
                    model=backend.model,
                    messages=messages,
                    tools=[SEARCH_TOOL] if offered else None,
                    base_url=backend.base_url,
                    retry=self.retry,
                    max_tokens=settings.max_tokens,
                )
                async with aclosing(turn):  # a trip stops reading: close the HTTP stream now, not at GC
                    async for item in turn:
                        if isinstance(item, TurnEnd):
                            end = item
                            break
                        if isinstance(item, ToolsRefused):
                            self._tools_refused = True
                            note = "The model takes no tools here: answering from the sources found first"
                            yield ThinkingEvent(
                                text=f"{note} ({_said(item.message)})", phase="writing", t=t()
                            )
                            continue
                        assert isinstance(item, TextDelta)
                        out = guard.feed(item.text)
                        if guard.tripped:
                            break
                        if out:
                            run.timings.setdefault("ttft", t())
                            display = pending.feed(out)
                            run.parts.append(out)
                            displayed.append(display)
                            yield TextEvent(
                                delta=out, display=display, held=guard.held, numbers=dict(pending.numbers), t=t()
                            )
                if end is not None and end.ttft is not None:
                    run.timings.setdefault("model_ttft", round(end.ttft, 4))
                offered = offered and not self._tools_refused  # refused in this turn: it went on without

                if not guard.tripped and end is not None and end.tool_calls and not offered:
                    # Calls to a tool it was not offered (rounds used up, or refused) are not run: asking again
                    # would loop forever on a model that always calls. What it wrote is the answer, if anything.
                    if not guard.raw.strip():
                        raise ModelError(
                            "bad_response",
                            f"the model kept calling {SEARCH_TOOL_NAME} when told to answer, and wrote nothing",
                            "ask again, or use a model that follows tool instructions",
                        )
                elif not guard.tripped and end is not None and end.tool_calls:
                    if guard.raw.strip():
                        yield await self._reset(run, "tool_call", None, "".join(displayed), t())
                    messages.append(
                        {
                            "role": "assistant",
                            "content": guard.raw or None,
                            "tool_calls": [c.as_message() for c in end.tool_calls],
                        }
                    )
                    for call in end.tool_calls:
                        query, error = _search_args(call)
                        if query is None:
                            messages.append(
                                {"role": "tool", "tool_call_id": call.id, "content": tool_error(error)}
                            )
                            continue
                        yield ThinkingEvent(text=searching(query), phase="searching", t=t())
                        found = await self.store.search(query, settings.retrieval_k)
                        added = [h for h in found if h.id not in context]
                        context.update((h.id, h) for h in added)
                        yield SourcesEvent(sources=[preview(h) for h in added], query=sanitize(query), t=t())
                        messages.append(
                            {"role": "tool", "tool_call_id": call.id, "content": tool_result(query, found)}
                        )
                    rounds += 1
                    continue

                if not guard.tripped:
                    if end is None or end.finish_reason is None:
                        raise ModelError(
                            "stream_cut",
                            f"the model's stream ended mid-answer ({backend.base_url})",
                            "ask again; the partial answer is kept in the audit record",
                        )
                    if end.finish_reason == "length":
                        raise ModelError(
                            "length",
                            "the model stopped: it reached its output limit (finish_reason length)",
                            "ask a narrower question, or raise the server's max tokens",
                        )
                    if end.finish_reason == "content_filter":
                        raise ModelError(
                            "content_filter",
                            "the server's content filter stopped the answer",
                            "rephrase the question, or use another model",
                        )
                    if not guard.raw.strip():
                        raise ModelError(
                            "bad_response",
                            "the model ended its answer without writing anything",
                            "ask again, or try another model",
                        )
                    tail = guard.finish()
                    if tail and not guard.tripped:
                        display = pending.feed(tail)
                        run.parts.append(tail)
                        displayed.append(display)
                        run.timings.setdefault("ttft", t())
                        yield TextEvent(
                            delta=tail, display=display, held=guard.held, numbers=dict(pending.numbers), t=t()
                        )

                if guard.tripped:
                    rule = guard.tripped
                    yield await self._reset(run, "safety", rule, "".join(displayed), t())
                    run.done = True
                    run.timings["total"] = t()
                    await self._record_unshown(run, f"answer withdrawn (safety rule {rule})")
                    await self._finish(run, "withdrawn", final_text="")
                    yield EndEvent(
                        text="",
                        citations=[],
                        audit_id=run.answer_id,
                        outcome="withdrawn",
                        backend=backend.label,
                        model=backend.model,
                        t=t(),
                    )
                    return
                break

            yield ThinkingEvent(text="Checking citations…", phase="checking", t=t())
            v_start = t()
            result = await verify(
                run.released,
                store=self.store,
                client=backend.client,
                model=backend.model,
                limit=settings.grounding_timeout,
                clock=self._clock,
            )
            run.timings["verification"] = round(t() - v_start, 4)
            run.timings["total"] = t()
            run.done = True
            if result.attempts:
                await self.store.record_citations(
                    run.answer_id, result.attempts, grounding=result.grounding
                )
            await self._finish(run, "complete", final_text=result.text)
            self._history.append((question, run.released))
            yield EndEvent(
                text=result.text,
                citations=result.citations,
                audit_id=run.answer_id,
                outcome="complete",
                verification=result.summary,
                backend=backend.label,
                model=backend.model,
                t=t(),
            )
        except ModelError as e:
            run.done = True
            await self._finish_quietly(run, "error", error=f"{e.kind}: {e.message}")
            yield ErrorEvent(
                kind=e.kind,
                message=_said(e.message),
                action=_said(e.action),
                partial_text=finalize_markers(run.released, {}),
                audit_id=run.answer_id,
                t=t(),
            )
        except StoreError as e:
            run.done = True
            await self._finish_quietly(run, "error", error=f"store: {e}")
            yield ErrorEvent(
                kind="store",
                message=_said(str(e)),
                action=STORE_ACTION,
                partial_text=finalize_markers(run.released, {}),
                audit_id=run.answer_id,
                t=t(),
            )
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as e:  # a bug must still leave a record and tell the reader
            run.done = True
            await self._finish_quietly(run, "error", error=f"internal: {e!r}")
            yield ErrorEvent(
                kind="internal",
                message=_said(f"internal error: {type(e).__name__}: {e}"),
                action="please report it with the audit id",
                partial_text=finalize_markers(run.released, {}),
                audit_id=run.answer_id,
                t=t(),
            )
        finally:
            if not run.done and run.answer_id is not None:
                # Cancelled (Esc) or abandoned: the row is written even though this task is being cancelled.
                run.done = True
                run.timings["total"] = t()
                await asyncio.shield(
                    self._finish_quietly(run, "cancelled", error=None, final_text=finalize_markers(run.released, {}))
                )

    async def _reset(self, run: _Run, reason: str, rule: str | None, displayed: str, at: float) -> ResetEvent:
        withdrawn = run.released
        record = ResetRecord(
            reason=reason, rule=rule, withdrawn=withdrawn, withdrawn_chars=len(withdrawn), at=at
        )
        await self.store.record_reset(run.answer_id, record)
        run.parts = []
        if reason == "safety":
            note = f"Withdrawn: the answer matched the safety rule “{rule}”."
        else:
            note = "Withdrawn while the assistant looks something up…"
        return ResetEvent(
            reason=reason,  # type: ignore[arg-type]
            rule=rule,
            withdrawn=withdrawn,
            withdrawn_display=displayed,
            note=note,
            t=at,
        )

    async def _finish(
        self, run: _Run, outcome: AnswerOutcome, *, final_text: str = "", error: str | None = None
    ):
        await self.store.finish_answer(
            run.answer_id,
            raw_text=run.raw_text,
            final_text=final_text,
            outcome=outcome,
            timings=run.timings,
            error=error,
        )

    async def _record_unshown(self, run: _Run, reason: str) -> None:
        """Keep the citation attempts of an answer nobody is shown (never drop a citation silently)."""
        if not run.guards:
            return
        guard = run.guards[-1]  # the turn that was withdrawn, cancelled or cut; earlier ones were superseded
        attempts = await unshown_attempts(guard.released + guard.held_text, store=self.store, reason=reason)
        if attempts:
            await self.store.record_citations(run.answer_id, attempts)

    async def _finish_quietly(
        self, run: _Run, outcome: AnswerOutcome, *, error: str | None, final_text: str = ""
    ) -> None:
        if run.answer_id is None:
            return
        reason = {"cancelled": "answer cancelled", "error": "answer failed"}.get(outcome)
        try:
            if reason is not None:
                await self._record_unshown(run, reason)
        except StoreError:
            pass  # the record of the answer itself matters more: still try to write it
        try:
            await self._finish(run, outcome, error=error, final_text=final_text)
        except StoreError:
            pass  # the database failing is what is being reported already


def safety_policy(path: Path | None, canary: str) -> SafetyPolicy:
    return SafetyPolicy.from_toml(path, canary) if path is not None else SafetyPolicy.default(canary)


def _search_args(call: ToolCall) -> tuple[str | None, str]:
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
