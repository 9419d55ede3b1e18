"""Two runs side by side: every summary metric with its change, and the questions whose answer changed.

"Worse" is per metric: a rate of something bad (flagged, ungrounded, unchecked, errors, withdrawals, false
abstentions) or a time is worse when it goes up; a rate of something good (complete, coverage, abstaining
when expected, precision, recall) is worse when it goes down. A metric either run could not measure (None)
is neither better nor worse.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from hippo_tui.evaluation.results import EvalRun, QuestionResult


@dataclass(frozen=True)
class Metric:
    label: str
    higher_is_better: bool
    seconds: bool = False  # a time (shown in s), else a rate (shown in %)


METRICS: dict[str, Metric] = {
    "complete_rate": Metric("complete", True),
    "withdrawn_rate": Metric("withdrawn", False),
    "error_rate": Metric("errors", False),
    "flagged_rate": Metric("answers flagged", False),
    "citation_flagged_rate": Metric("citations flagged", False),
    "ungrounded_rate": Metric("citations ungrounded", False),
    "unchecked_rate": Metric("citations unchecked", False),
    "coverage": Metric("statements backed", True),
    "abstain_rate": Metric("abstained when expected", True),
    "false_abstain_rate": Metric("abstained when not expected", False),
    "precision": Metric("citation precision", True),
    "recall": Metric("citation recall", True),
    "ttft_p50": Metric("first text p50", False, seconds=True),
    "ttft_p95": Metric("first text p95", False, seconds=True),
    "total_p50": Metric("total p50", False, seconds=True),
    "total_p95": Metric("total p95", False, seconds=True),
}


class MetricChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    a: float | None
    b: float | None
    delta: float | None
    worse: bool | None  # None: not measured in one of the runs


class QuestionChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    line_a: int | None
    line_b: int | None
    changes: list[str]  # "newly flagged", "lost a verified citation: <id>", "complete → withdrawn", …


class Comparison(BaseModel):
    metrics: list[MetricChange]
    questions: list[QuestionChange]


def change(name: str, a: float | None, b: float | None) -> MetricChange:
    if a is None or b is None:
        return MetricChange(name=name, a=a, b=b, delta=None, worse=None)
    delta = round(b - a, 4)
    worse = delta < 0 if METRICS[name].higher_is_better else delta > 0
    return MetricChange(name=name, a=a, b=b, delta=delta, worse=worse)


def question_changes(a: QuestionResult, b: QuestionResult) -> list[str]:
    out: list[str] = []
    if a.outcome != b.outcome:
        out.append(f"{a.outcome} → {b.outcome}")
    if b.flagged and not a.flagged:
        out.append("newly flagged")
    if b.abstained and not a.abstained:
        out.append("newly abstained")
    if a.abstained and not b.abstained:
        out.append("no longer abstains")
    lost = [sid for sid in a.shown if sid not in b.shown]
    if lost:
        out.append("lost a verified citation: " + ", ".join(lost))
    return out


def _by_question(results: Iterable[QuestionResult]) -> dict[str, QuestionResult]:
    out: dict[str, QuestionResult] = {}
    for r in results:
        out.setdefault(r.question, r)  # a repeated question compares by its first asking
    return out


def compare_runs(a: EvalRun, b: EvalRun) -> Comparison:
    sa, sb = a.summary.model_dump(), b.summary.model_dump()
    metrics = [change(name, sa[name], sb[name]) for name in METRICS]
    qa, qb = _by_question(a.results), _by_question(b.results)
    questions: list[QuestionChange] = []
    for text, ra in qa.items():
        rb = qb.get(text)
        changes = ["not in B"] if rb is None else question_changes(ra, rb)
        if changes:
            questions.append(
                QuestionChange(question=text, line_a=ra.line, line_b=rb.line if rb else None, changes=changes)
            )
    questions += [
        QuestionChange(question=t, line_a=None, line_b=r.line, changes=["not in A"])
        for t, r in qb.items()
        if t not in qa
    ]
    return Comparison(metrics=metrics, questions=questions)


def worse_metrics(comparison: Comparison, names: Iterable[str]) -> tuple[list[str], list[str]]:
    """Of the named metrics: those B is worse on, and those either run did not measure. Raises ValueError
    for a name that is not a metric."""
    by_name = {m.name: m for m in comparison.metrics}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown metric {', '.join(unknown)}; the metrics are: {', '.join(METRICS)}")
    worse = [n for n in names if by_name[n].worse]
    unmeasured = [n for n in names if by_name[n].worse is None]
    return worse, unmeasured
