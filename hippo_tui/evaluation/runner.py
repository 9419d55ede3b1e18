"""Running a question set through engines: each question on an engine of its own, N at a time, stoppable.

An engine per question, with one conversation on it: no earlier turn leaks into a question, and a cassette
holds one engine's session (``--record DIR`` writes one per question). A stop cancels each conversation's
running answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence

from hippo_tui.engine.protocol import AnswerEngine, Conversation
from hippo_tui.evaluation.questions import EvalQuestion
from hippo_tui.evaluation.results import QuestionResult, result_of
from hippo_tui.events import EndEvent, Event
from hippo_tui.safe_text import clip

EngineOpener = Callable[[EvalQuestion], Awaitable[AnswerEngine]]


async def _cancel_when(stop: asyncio.Event, conversation: Conversation) -> None:
    await stop.wait()
    await conversation.cancel()


async def ask_one(q: EvalQuestion, open_engine: EngineOpener, stop: asyncio.Event) -> QuestionResult | None:
    """The question's result; None when ``stop`` cut its answer short (it is recorded as cancelled in the
    audit record, and left out of the run's results)."""
    try:
        engine = await open_engine(q)
    except (
        Exception
    ) as e:  # a question that cannot start (its cassette, the store) is a result; the run goes on
        return QuestionResult(
            line=q.line,
            question=q.question,
            expect_sources=q.expect_sources,
            expect_abstain=q.expect_abstain,
            outcome="error",
            error_kind="start",
            error=clip(str(e), 300, flat=True),
        )
    events: list[Event] = []
    try:
        conversation = await engine.open_conversation()
        watcher = asyncio.create_task(_cancel_when(stop, conversation))
        try:
            async for event in conversation.ask(q.question):
                events.append(event)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
    finally:
        await engine.close()
    last = events[-1] if events else None
    if stop.is_set() and isinstance(last, EndEvent) and last.outcome == "cancelled":
        return None
    return result_of(q, events)


async def run_questions(
    questions: Sequence[EvalQuestion],
    open_engine: EngineOpener,
    *,
    concurrency: int = 1,
    stop: asyncio.Event | None = None,
    on_result: Callable[[QuestionResult], None] | None = None,
) -> list[QuestionResult]:
    """The results of the questions that ran, in the file's order. Setting ``stop`` starts no new question
    and cancels the ones being answered; what finished before is returned."""
    stop = stop or asyncio.Event()
    results: dict[int, QuestionResult] = {}
    queue = iter(enumerate(questions))  # shared by the workers: taking the next one never awaits

    async def worker() -> None:
        for i, q in queue:
            if stop.is_set():
                return
            r = await ask_one(q, open_engine, stop)
            if r is None:
                return
            results[i] = r
            if on_result is not None:
                on_result(r)

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(questions))))))
    return [results[i] for i in sorted(results)]
