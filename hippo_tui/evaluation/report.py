"""Plain-text tables of a run and of a comparison, for a terminal or a CI log (no colour, no markup)."""

from __future__ import annotations

from collections.abc import Sequence

from hippo_tui.evaluation.compare import METRICS, Comparison, MetricChange
from hippo_tui.evaluation.results import EvalRun, QuestionResult, Summary
from hippo_tui.safe_text import clip


def value(name: str, v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.3f} s" if METRICS[name].seconds else f"{100 * v:.1f}%"


def delta(m: MetricChange) -> str:
    if m.delta is None:
        return "-"
    if METRICS[m.name].seconds:
        return f"{m.delta:+.3f} s"
    return f"{100 * m.delta:+.1f} pp"


def run_header(run: EvalRun) -> str:
    prompt = clip(run.prompt, 60, flat=True) if run.prompt else "the built-in prompt"
    done = f"{len(run.results)} of {run.total_questions}" if run.interrupted else f"{len(run.results)}"
    return (
        f"{done} questions from {clip(run.questions_file, 60, flat=True)} · {clip(run.backend, 40, flat=True)}"
        f" · model {clip(run.model, 40, flat=True)} · {prompt} (sha256 {run.prompt_sha256[:12]})"
    )


def summary_table(s: Summary) -> list[str]:
    width = max(len(m.label) for m in METRICS.values())
    lines = [f"{'metric':<{width}}  {'value':>10}", f"{'questions':<{width}}  {s.questions:>10}",
             f"{'citations':<{width}}  {s.citations:>10}"]  # fmt: skip
    data = s.model_dump()
    lines += [f"{m.label:<{width}}  {value(name, data[name]):>10}" for name, m in METRICS.items()]
    return lines


def _pr(r: QuestionResult) -> str:
    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    return f"{f(r.precision)}/{f(r.recall)}"


def results_table(results: Sequence[QuestionResult]) -> list[str]:
    """One line per question: line, outcome, citations (cited / shown / flagged), abstained, P/R, times."""
    lines = [f"{'line':>4}  {'outcome':<9}  {'cited':>5} {'shown':>5} {'flag':>4}  {'abst':<4}  "
             f"{'P/R':<9}  {'first':>7}  {'total':>7}  question"]  # fmt: skip
    for r in results:
        flagged = r.missing + r.retired + r.ungrounded
        first = f"{r.ttft:.3f}" if r.ttft is not None else "-"
        lines.append(
            f"{r.line:>4}  {r.outcome:<9}  {r.attempted:>5} {len(r.shown):>5} {flagged:>4}  "
            f"{'yes' if r.abstained else 'no':<4}  {_pr(r):<9}  {first:>7}  {r.total:>7.3f}  "
            f"{clip(r.question, 60, flat=True)}"
        )
        if r.error:
            lines.append(f"{'':>6}{r.error_kind}: {clip(r.error, 150, flat=True)}")
    return lines


def comparison_table(c: Comparison) -> list[str]:
    width = max(len(m.label) for m in METRICS.values())
    lines = [f"{'metric':<{width}}  {'A':>10}  {'B':>10}  {'change':>10}"]
    for m in c.metrics:
        mark = "  worse" if m.worse else ""
        lines.append(
            f"{METRICS[m.name].label:<{width}}  {value(m.name, m.a):>10}  {value(m.name, m.b):>10}  "
            f"{delta(m):>10}{mark}"
        )
    if not c.questions:
        lines += ["", "No question's answer changed."]
        return lines
    lines += ["", f"Questions whose answer changed ({len(c.questions)}):"]
    for q in c.questions:
        where = f"line {q.line_b if q.line_b is not None else q.line_a}"
        lines.append(f"  {where:<8}  {clip(q.question, 70, flat=True)}")
        lines.append(f"  {'':<8}  {'; '.join(clip(x, 200, flat=True) for x in q.changes)}")
    return lines
