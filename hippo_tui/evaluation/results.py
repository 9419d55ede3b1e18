"""One result per question (read off the answer's own events), a run's summary, and the run file.

Definitions (also in the README):
- a citation is *shown* when it passed check one and was not found ungrounded (the end event's citations);
  it is *flagged* when missing, retired or ungrounded. An answer is flagged when any of its citations is.
- precision = |shown ∩ expected| / |shown|, recall = |shown ∩ expected| / |expected|, for questions with
  ``expect_sources``. A zero denominator gives None, not a number: an answer that shows nothing has no
  precision (its recall says what it missed), a question that expects no source has no recall (its
  precision is 0 when it shows one). Means are taken over the questions that have a value.
- times come from the events' ``t`` (seconds since the answer started): time to first text is the first
  ``text`` event's, total the last event's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippo_tui.evaluation.questions import EvalQuestion
from hippo_tui.events import EndEvent, ErrorEvent, Event, StartEvent, TextEvent

RUN_VERSION = 1


class RunError(Exception):
    """A run file that cannot be read as one."""


class QuestionResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int
    question: str
    expect_sources: list[str] | None = None
    expect_abstain: bool = False
    audit_id: int | None = None
    outcome: str  # complete | withdrawn | cancelled | error
    error_kind: str | None = None  # the error event's kind ("connection", "store", …), or "start"
    error: str | None = None  # its message, when the outcome is error
    cut: bool = False
    attempted: int = 0
    confirmed: int = 0
    missing: int = 0
    retired: int = 0
    grounded: int = 0
    ungrounded: int = 0
    unchecked: int = 0
    shown: list[str] = Field(default_factory=list)  # ids of the citations the reader was shown, in order
    statements: int = 0
    backed: int = 0
    abstained: bool = False
    precision: float | None = None
    recall: float | None = None
    ttft: float | None = None  # None: no text was released
    total: float = 0.0

    @property
    def flagged(self) -> bool:
        return self.missing + self.retired + self.ungrounded > 0


def precision_recall(
    shown: Sequence[str], expected: Sequence[str] | None
) -> tuple[float | None, float | None]:
    if expected is None:
        return None, None
    hits = len(set(shown) & set(expected))
    precision = hits / len(set(shown)) if shown else None
    recall = hits / len(set(expected)) if expected else None
    return precision, recall


def result_of(q: EvalQuestion, events: Iterable[Event]) -> QuestionResult:
    """What one answer did, from its events alone (the stream must end with ``end`` or ``error``)."""
    audit_id: int | None = None
    ttft: float | None = None
    last: Event | None = None
    for e in events:
        if isinstance(e, StartEvent):
            audit_id = e.audit_id
        elif isinstance(e, TextEvent) and ttft is None:
            ttft = e.t
        last = e
    base: dict[str, Any] = {"line": q.line, "question": q.question, "expect_sources": q.expect_sources,
            "expect_abstain": q.expect_abstain, "audit_id": audit_id, "ttft": ttft}  # fmt: skip
    if isinstance(last, ErrorEvent):
        return QuestionResult(**base, outcome="error", error_kind=last.kind, error=last.message, total=last.t)
    if not isinstance(last, EndEvent):
        return QuestionResult(
            **base, outcome="error", error_kind="internal", error="the answer ended without an end event"
        )
    v, cov = last.verification, last.coverage
    shown = [c.id for c in last.citations]
    precision, recall = precision_recall(shown, q.expect_sources)
    counts = v.model_dump(
        include={"attempted", "confirmed", "missing", "retired", "grounded", "ungrounded", "unchecked"}
    )
    return QuestionResult(
        **base,
        **counts,
        outcome=last.outcome,
        cut=last.cut,
        shown=shown,
        statements=cov.statements,
        backed=cov.backed,
        abstained=cov.abstained,
        precision=precision,
        recall=recall,
        total=last.t,
    )


def percentile(values: Sequence[float], p: float) -> float | None:
    """Linear interpolation between the closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return round(xs[lo] + (xs[hi] - xs[lo]) * (k - lo), 4)


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mean(values: Iterable[float | None]) -> float | None:
    xs = [x for x in values if x is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


class Summary(BaseModel):
    """Rates are fractions (0–1); None where nothing could be measured (see the module's definitions)."""

    model_config = ConfigDict(frozen=True)

    questions: int = 0
    complete_rate: float | None = None
    withdrawn_rate: float | None = None
    error_rate: float | None = None
    flagged_rate: float | None = None  # answers with a flagged citation / answers
    citations: int = 0  # attempted, over every answer
    citation_flagged_rate: float | None = None  # flagged citations / citations
    ungrounded_rate: float | None = None  # ungrounded / citations
    unchecked_rate: float | None = None  # unchecked / citations
    coverage: float | None = None  # backed statements / statements, over every answer
    abstain_rate: float | None = None  # abstained / questions expected to abstain
    false_abstain_rate: float | None = None  # abstained / questions not expected to abstain
    precision: float | None = None
    recall: float | None = None
    ttft_p50: float | None = None
    ttft_p95: float | None = None
    total_p50: float | None = None
    total_p95: float | None = None


def summarize(results: Sequence[QuestionResult]) -> Summary:
    n = len(results)
    cited = sum(r.attempted for r in results)
    statements = sum(r.statements for r in results)
    expect_abstain = [r for r in results if r.expect_abstain]
    expect_answer = [r for r in results if not r.expect_abstain]
    ttfts = [r.ttft for r in results if r.ttft is not None]
    totals = [r.total for r in results]
    return Summary(
        questions=n,
        complete_rate=_rate(sum(r.outcome == "complete" for r in results), n),
        withdrawn_rate=_rate(sum(r.outcome == "withdrawn" for r in results), n),
        error_rate=_rate(sum(r.outcome == "error" for r in results), n),
        flagged_rate=_rate(sum(r.flagged for r in results), n),
        citations=cited,
        citation_flagged_rate=_rate(sum(r.missing + r.retired + r.ungrounded for r in results), cited),
        ungrounded_rate=_rate(sum(r.ungrounded for r in results), cited),
        unchecked_rate=_rate(sum(r.unchecked for r in results), cited),
        coverage=_rate(sum(r.backed for r in results), statements),
        abstain_rate=_rate(sum(r.abstained for r in expect_abstain), len(expect_abstain)),
        false_abstain_rate=_rate(sum(r.abstained for r in expect_answer), len(expect_answer)),
        precision=_mean(r.precision for r in results),
        recall=_mean(r.recall for r in results),
        ttft_p50=percentile(ttfts, 50),
        ttft_p95=percentile(ttfts, 95),
        total_p50=percentile(totals, 50),
        total_p95=percentile(totals, 95),
    )


class EvalRun(BaseModel):
    """What ``hippo-tui eval --json OUT`` writes, and ``--compare`` reads back."""

    version: int = RUN_VERSION
    started: str  # ISO 8601, UTC
    questions_file: str
    backend: str = ""
    model: str = ""
    prompt: str | None = None  # the --prompt file, when one was given
    prompt_sha256: str = ""  # of the system prompt in force
    total_questions: int  # in the file
    interrupted: bool = False  # stopped (ctrl+c) before every question ran
    summary: Summary
    results: list[QuestionResult]


def load_run(path: Path) -> EvalRun:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RunError(f"{path}: cannot read the run file: {e.strerror or e}") from None
    try:
        run = EvalRun.model_validate_json(text)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "the file"
        raise RunError(
            f"{path}: not a run written by hippo-tui eval --json ({where}: {err['msg']})"
        ) from None
    if run.version != RUN_VERSION:
        raise RunError(
            f"{path}: a version {run.version} run file; this hippo-tui reads version {RUN_VERSION}"
        )
    return run
