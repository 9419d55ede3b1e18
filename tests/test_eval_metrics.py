"""The eval metrics on their own: precision and recall with zero denominators, percentiles, "worse" per metric,
times from the events' own clock, and the engine's audit statistics through the protocol."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.engine.protocol import AnswerEngine
from hippo_tui.evaluation import EvalQuestion, EvalRun, compare_runs, run_questions, summarize, worse_metrics
from hippo_tui.evaluation.results import QuestionResult, percentile, precision_recall
from hippo_tui.events import Event, TextEvent

CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"


def test_precision_and_recall() -> None:
    assert precision_recall(["a", "b"], ["a", "c", "d"]) == (0.5, 1 / 3)
    assert precision_recall([], ["a"]) == (None, 0.0)  # nothing shown: no precision; recall says the miss
    assert precision_recall(["a"], []) == (0.0, None)  # expected none: citing one costs precision
    assert precision_recall([], []) == (None, None)
    assert precision_recall(["a"], None) == (None, None)  # not judged on its sources


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0], 95) == 3.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([float(x) for x in range(1, 21)], 95) == 19.05


def _result(line: int, **kw: object) -> QuestionResult:
    return QuestionResult.model_validate({"line": line, "question": f"q{line}", "outcome": "complete", **kw})


def _run(results: list[QuestionResult]) -> EvalRun:
    return EvalRun(started="2026-12-01T00:00:00+00:00", questions_file="q.jsonl", total_questions=len(results),
                   summary=summarize(results), results=results)  # fmt: skip


def test_summary_rates_and_what_counts_as_worse() -> None:
    a = _run(
        [_result(1, attempted=2, confirmed=2, grounded=2, shown=["x", "y"]), _result(2, expect_abstain=True)]
    )
    b = _run([
        _result(1, attempted=2, confirmed=2, grounded=1, ungrounded=1, shown=["x"]),
        _result(2, expect_abstain=True, outcome="withdrawn"),
    ])  # fmt: skip
    assert (b.summary.flagged_rate, b.summary.ungrounded_rate, b.summary.withdrawn_rate) == (0.5, 0.5, 0.5)
    c = compare_runs(a, b)
    worse, unmeasured = worse_metrics(
        c, ["flagged_rate", "ungrounded_rate", "complete_rate", "unchecked_rate"]
    )
    assert worse == ["flagged_rate", "ungrounded_rate", "complete_rate"] and unmeasured == []
    # No question had expected sources: precision and recall were not measured, so neither run is worse.
    assert worse_metrics(c, ["precision", "recall"]) == ([], ["precision", "recall"])
    changes = {q.question: q.changes for q in c.questions}
    assert changes == {"q1": ["newly flagged", "lost a verified citation: y"], "q2": ["complete → withdrawn"]}
    with pytest.raises(ValueError, match="unknown metric speed"):
        worse_metrics(c, ["speed"])


async def test_times_come_from_the_events_own_clock(hippo_home: Path) -> None:
    """With a clock that ticks once per reading, the times are exact and the same on every run."""

    async def one_run() -> list[tuple[float | None, float]]:
        ticks = itertools.count()

        async def open_engine(q: EvalQuestion) -> AnswerEngine:
            settings = Settings(home=hippo_home, offline_tokens_per_second=0)
            return await Engine.create(settings, clock=lambda: float(next(ticks)))

        qs = [EvalQuestion(question="How long should uncomplicated cystitis in women be treated?", line=1)]
        results = await run_questions(qs, open_engine)
        return [(r.ttft, r.total) for r in results]

    first, second = await one_run(), await one_run()
    assert first == second and first[0][0] is not None and 0 < first[0][0] < first[0][1]


class _StopOnFirstText:
    """A real engine (and its one conversation) whose first released text sets ``stop``: the run is stopped
    mid-answer, at a known point."""

    def __init__(self, engine: Engine, stop: asyncio.Event) -> None:
        self.engine, self.stop = engine, stop

    async def open_conversation(self, **kw: Any) -> _StopOnFirstText:
        self.conversation = await self.engine.open_conversation(**kw)
        return self

    async def ask(self, question: str) -> AsyncIterator[Event]:
        async for event in self.conversation.ask(question):
            if isinstance(event, TextEvent):
                self.stop.set()
            yield event

    async def cancel(self) -> None:
        await self.conversation.cancel()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


async def test_stop_cancels_the_answer_being_written_and_keeps_the_finished_ones(hippo_home: Path) -> None:
    stop = asyncio.Event()
    opened: list[int] = []

    async def open_engine(q: EvalQuestion) -> AnswerEngine:
        opened.append(q.line)
        engine = await Engine.create(
            Settings(home=hippo_home, offline_tokens_per_second=0 if q.line == 1 else 5)
        )
        return engine if q.line == 1 else _StopOnFirstText(engine, stop)  # type: ignore[return-value]

    qs = [EvalQuestion(question="How is hypertension diagnosed?", line=n) for n in (1, 2, 3)]
    results = await run_questions(qs, open_engine, stop=stop)
    assert [r.line for r in results] == [1] and opened == [1, 2]  # the third never started
    engine = await Engine.create(Settings(home=hippo_home))
    try:
        answers = await engine.list_answers()
        stats = await engine.audit_stats("model")
    finally:
        await engine.close()
    assert [a.outcome for a in answers] == ["cancelled", "complete"]  # the stopped one is in the record
    assert [(g.key, g.answers, g.citations) for g in stats.groups] == [("offline", 2, 1)]
