"""`hippo-tui eval` at run time: loaded when the command runs (the parser is in ``eval``)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

from hippo_tui.backends.cassette import Cassette, CassetteError
from hippo_tui.commands._common import EXIT_MODEL, EXIT_OK, EXIT_STORE, EXIT_USAGE, settings_from_args
from hippo_tui.commands.eval_progress import Progress
from hippo_tui.commands.eval_stop import stop_on_esc, stop_on_sigint
from hippo_tui.config import Settings
from hippo_tui.engine.protocol import AnswerEngine
from hippo_tui.evaluation import (
    DEMO_QUESTIONS,
    EvalQuestion,
    EvalRun,
    QuestionResult,
    QuestionsError,
    RunError,
    compare_runs,
    load_questions,
    load_run,
    run_questions,
    summarize,
    worse_metrics,
)
from hippo_tui.evaluation.report import comparison_table, results_table, run_header, summary_table
from hippo_tui.safe_text import clip
from hippo_tui.store import StoreError

EXIT_WORSE = 1  # --compare: B is worse than A on a --fail-on metric
EXIT_INTERRUPTED = 130
_NOT_MODEL_ERRORS = ("start", "store", "usage", "internal")


class UsageError(Exception):
    pass


def run(args: argparse.Namespace) -> int:
    try:
        if args.compare:
            if args.questions is not None:
                raise UsageError("--compare A.json B.json takes no question file")
            return _compare(args)
        if args.fail_on:
            raise UsageError("--fail-on goes with --compare A.json B.json")
        if args.pairs is not None:
            raise UsageError(f"one question file, not two (for a judge: eval judge {args.pairs})")
        return _evaluate(args)
    except (UsageError, QuestionsError, RunError, CassetteError) as e:
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_USAGE


# -- compare ----------------------------------------------------------------------------------------


def _compare(args: argparse.Namespace) -> int:
    a, b = (load_run(p) for p in args.compare)
    names = [n.strip() for n in (args.fail_on or "").split(",") if n.strip()]
    comparison = compare_runs(a, b)
    try:
        worse, unmeasured = worse_metrics(comparison, names)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(f"A: {run_header(a)}\nB: {run_header(b)}\n")
    print("\n".join(comparison_table(comparison)))
    if args.json_out:
        _write(args.json_out, comparison.model_dump_json(indent=1))
    if unmeasured:
        raise UsageError(f"--fail-on {', '.join(unmeasured)}: not measured in both runs")
    if worse:
        print(f"hippo-tui: B is worse than A on {', '.join(worse)}", file=sys.stderr)
        return EXIT_WORSE
    return EXIT_OK


# -- a run ------------------------------------------------------------------------------------------


def _questions_path(args: argparse.Namespace, settings: Settings) -> Path:
    if args.questions is not None:
        return args.questions
    if settings.kb is not None:
        raise UsageError(
            "give the question file for your knowledge base: hippo-tui eval QUESTIONS.jsonl --kb …"
        )
    return DEMO_QUESTIONS


def _settings(args: argparse.Namespace, settings: Settings) -> Settings:
    update: dict[str, object] = {"record": None, "replay": None}
    if args.prompt is not None:
        try:
            prompt = args.prompt.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{args.prompt}: cannot read the prompt file: {e}") from None
        if not prompt.strip():
            raise UsageError(f"{args.prompt}: the prompt file is empty")
        update["system_prompt"] = prompt
    # The offline model's pace imitates streaming for a reader; a measurement has no reader to wait for.
    if "offline_tokens_per_second" not in settings.model_fields_set:
        update["offline_tokens_per_second"] = 0.0
    if settings.replay is not None and "backend" not in settings.model_fields_set:
        update["backend"] = "replay"
    return Settings.model_validate({**settings.model_dump(), **update})


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "question"


def cassette_name(q: EvalQuestion) -> str:
    return f"q{q.line:03d}-{_slug(q.question)}.jsonl"


def replay_map(folder: Path, questions: list[EvalQuestion]) -> dict[int, Path]:
    """Each question's cassette in ``folder``, found by the question it recorded (file names may change)."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: with eval, --replay is a folder of cassettes written by eval --record")
    by_question: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        question = Cassette.load(path).question
        if question is not None:
            by_question.setdefault(question.strip(), []).append(path)
    found: dict[int, Path] = {}
    missing: list[str] = []
    for q in questions:
        paths = by_question.get(q.question)
        if paths:
            found[q.line] = paths.pop(0) if len(paths) > 1 else paths[0]
        else:
            missing.append(f"line {q.line}: {clip(q.question, 80, flat=True)}")
    if missing:
        raise UsageError(
            f"{folder}: no cassette for " + "; ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        )
    return found


def _write(path: Path, text: str) -> None:
    """Replace the file whole (a reader, or a run stopped mid-write, never sees half of it)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None


class _Plan:
    """Everything a run needs, checked before the first question is asked."""

    def __init__(self, args: argparse.Namespace) -> None:
        given = settings_from_args(args)
        self.settings = _settings(args, given)
        self.path = _questions_path(args, given)
        self.questions = load_questions(self.path)
        self.record: Path | None = given.record
        if self.record is not None and self.record.exists() and not self.record.is_dir():
            raise UsageError(f"{self.record}: with eval, --record is a folder (one cassette per question)")
        self.replay = replay_map(given.replay, self.questions) if given.replay is not None else None
        self.prompt = str(args.prompt) if args.prompt is not None else None
        self.concurrency: int = args.concurrency
        self.out: Path | None = args.json_out

    def settings_for(self, q: EvalQuestion | None, *, record: bool = True) -> Settings:
        update: dict[str, object] = {}
        if q is not None and self.replay is not None:
            update["replay"] = self.replay[q.line]
        if q is not None and record and self.record is not None:
            update["record"] = self.record / cassette_name(q)
        return self.settings.model_copy(update=update)


def _evaluate(args: argparse.Namespace) -> int:
    plan = _Plan(args)
    return asyncio.run(_evaluate_async(plan))


async def _open(settings: Settings) -> AnswerEngine:
    from hippo_tui.engine import Engine  # late: `hippo-tui --help` stays fast
    from hippo_tui.guard import PolicyError

    try:
        return await Engine.create(settings, client="eval")
    except PolicyError as e:
        raise UsageError(str(e)) from None


async def _evaluate_async(plan: _Plan) -> int:
    try:
        probe = await _open(plan.settings_for(plan.questions[0], record=False))
    except StoreError as e:
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_STORE
    try:
        info = await probe.info()
        sha = hashlib.sha256(probe.default_system_prompt.encode()).hexdigest()
    finally:
        await probe.close()
    started = datetime.now(UTC).isoformat(timespec="seconds")

    def snapshot(results: list[QuestionResult], interrupted: bool) -> EvalRun:
        return EvalRun(started=started, questions_file=str(plan.path), backend=info.backend, model=info.model,
                       prompt=plan.prompt, prompt_sha256=sha, total_questions=len(plan.questions),
                       interrupted=interrupted, summary=summarize(results), results=results)  # fmt: skip

    done: list[QuestionResult] = []
    progress = Progress(sys.stderr, len(plan.questions))

    def on_result(r: QuestionResult) -> None:
        done.append(r)
        progress.advance(r)
        if plan.out is not None:  # after every question: a run that dies keeps what it measured
            _write(plan.out, snapshot(sorted(done, key=lambda x: x.line), True).model_dump_json(indent=1))

    async def open_engine(q: EvalQuestion) -> AnswerEngine:
        return await _open(plan.settings_for(q))

    if plan.out is not None:  # an OUT that cannot be written fails now, before any question is asked
        _write(plan.out, snapshot([], True).model_dump_json(indent=1))

    stop = asyncio.Event()

    def stopping() -> None:
        if not stop.is_set():
            progress.note("Stopping: the answers being written are cancelled (ctrl+c again to quit at once)…")
            stop.set()

    with progress, stop_on_sigint(stopping), stop_on_esc(stopping):
        results = await run_questions(
            plan.questions, open_engine, concurrency=plan.concurrency, stop=stop, on_result=on_result
        )
    run = snapshot(results, interrupted=len(results) < len(plan.questions))
    if plan.out is not None:
        _write(plan.out, run.model_dump_json(indent=1))
    _print_run(run)
    return _exit_code(run)


def _print_run(run: EvalRun) -> None:
    print("\n".join(results_table(run.results)))
    print()
    print(run_header(run))
    print("\n".join(summary_table(run.summary)))
    if run.interrupted:
        print(f"\nStopped: {len(run.results)} of {run.total_questions} questions ran.")


def _exit_code(run: EvalRun) -> int:
    if run.interrupted:
        return EXIT_INTERRUPTED
    model_errors = [r for r in run.results if r.outcome == "error" and r.error_kind not in _NOT_MODEL_ERRORS]
    if run.results and len(model_errors) == len(run.results):
        return EXIT_MODEL
    if run.results and all(r.error_kind == "store" for r in run.results):
        return EXIT_STORE
    return EXIT_OK
