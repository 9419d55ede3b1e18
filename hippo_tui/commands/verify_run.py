"""What `hippo-tui verify FILE` does once its arguments are parsed: read the answer, run both checks, record
them, print the report (readable, or ``--json``). Exit codes: ``hippo_tui.commands.verify``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from hippo_tui.commands._common import EXIT_FLAGGED, EXIT_NOT_ALL_CHECKED

if TYPE_CHECKING:
    from hippo_tui.config import Settings
    from hippo_tui.engine import Checked
    from hippo_tui.models import CitationAttempt
    from hippo_tui.verification.answer_files import AnswerToCheck


def _read(path: str) -> tuple[bytes, str]:
    from hippo_tui.verification.answer_files import MAX_BYTES, AnswerFileError

    if path == "-":
        return sys.stdin.buffer.read(MAX_BYTES + 1), "standard input"
    try:
        with open(path, "rb") as f:
            return f.read(MAX_BYTES + 1), path
    except OSError as e:
        raise AnswerFileError(f"{path}: {e.strerror or e}") from None


def run(args: argparse.Namespace) -> int:
    from hippo_tui.commands._common import EXIT_USAGE, settings_from_args
    from hippo_tui.safe_text import sanitize
    from hippo_tui.verification.answer_files import AnswerFileError, decode, read_answer

    settings = settings_from_args(args)
    try:
        data, name = _read(args.file)
        answer = read_answer(decode(data, name), name, turn=args.turn)
    except AnswerFileError as e:
        print(f"hippo-tui: {sanitize(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(_check(settings, answer, name, as_json=args.json, out=sys.stdout, err=sys.stderr))


async def _check(
    settings: Settings, answer: AnswerToCheck, name: str, *, as_json: bool, out: TextIO, err: TextIO
) -> int:
    from hippo_tui.backends import CassetteError
    from hippo_tui.commands._common import EXIT_MODEL, EXIT_STORE, EXIT_USAGE
    from hippo_tui.engine import open_engine
    from hippo_tui.engine.remote_errors import RemoteError
    from hippo_tui.guard import PolicyError
    from hippo_tui.safe_text import sanitize
    from hippo_tui.store import StoreError

    try:
        engine = await open_engine(settings, client="verify")
    except RemoteError as e:
        print(f"hippo-tui: {sanitize(e.message)}\n  → {e.action}", file=err)
        return EXIT_MODEL
    except (CassetteError, PolicyError) as e:
        print(f"hippo-tui: {sanitize(str(e))}", file=err)
        return EXIT_USAGE
    except StoreError as e:
        print(f"hippo-tui: {sanitize(str(e))}", file=err)
        return EXIT_STORE
    try:
        checked = await engine.verify(answer.text, question=answer.question or f"(hippo-tui verify {name})")
    except StoreError as e:
        print(f"hippo-tui: {sanitize(str(e))}", file=err)
        return EXIT_STORE
    except RemoteError as e:
        print(f"hippo-tui: {sanitize(e.message)}\n  → {e.action}", file=err)
        return EXIT_MODEL
    finally:
        await engine.close()
    report = Report(answer=answer, name=name, result=checked)
    print(json.dumps(report.as_json(), ensure_ascii=True) if as_json else report.human(), file=out)
    return report.exit_code()


def _status(a: CitationAttempt) -> str:
    if a.check_one == "missing":
        return "FLAGGED: no such source"
    if a.check_one == "retired":
        return "FLAGGED: retired"
    if said := a.failed_check_two:
        return said.upper()
    return {"grounded": "passed", "ungrounded": "UNGROUNDED", "unchecked": "unchecked"}[a.check_two]


@dataclass
class Report:
    """What the check found, for a person (``human``) or a script (``as_json``), and the exit code."""

    answer: AnswerToCheck
    name: str
    result: Checked

    @property
    def judge(self) -> str:
        return self.result.judge

    @property
    def audit_id(self) -> int:
        return self.result.audit_id

    def failed(self) -> list[CitationAttempt]:
        return [a for a in self.result.attempts if a.check_one != "confirmed" or a.check_two == "ungrounded"]

    def passed(self) -> list[CitationAttempt]:
        return [a for a in self.result.attempts if a.check_one == "confirmed" and a.check_two == "grounded"]

    def exit_code(self) -> int:
        if self.failed():
            return EXIT_FLAGGED
        if (
            not self.result.attempts
            or len(self.passed()) < len(self.result.attempts)
            or self.answer.unresolved
        ):
            return EXIT_NOT_ALL_CHECKED
        return 0

    def verdict(self) -> str:
        return {0: "passed", EXIT_FLAGGED: "failed", EXIT_NOT_ALL_CHECKED: "not all checked"}[
            self.exit_code()
        ]

    def as_json(self) -> dict[str, Any]:
        keys = ("check_one", "check_two", "verdict", "element", "shown", "claims", "reason", "number", "title",
                "where")  # fmt: skip
        citations = [{"id": a.source_id, **{k: getattr(a, k) for k in keys}} for a in self.result.attempts]
        summary = {
            **self.result.summary.model_dump(),
            "result": self.verdict(),
            "passed": len(self.passed()),
            "unresolved_numbers": self.answer.unresolved,
            "input": self.answer.form,
            "turn": self.answer.turn,
            "judge": self.judge,
            "grounding_step": self.result.grounding_step,
            "audit_id": self.audit_id,
            "coverage": self.result.coverage.model_dump(mode="json"),
        }
        return {"citations": citations, "summary": summary, "text": self.result.text}

    def human(self) -> str:
        from hippo_tui.safe_text import sanitize

        a = self.answer
        which = f", answer {a.turn} of {a.turns}" if a.turn is not None else ""
        lines = [f"{sanitize(self.name)} ({a.form}{which}); judge: {sanitize(self.judge)}", ""]
        for c in self.result.attempts:
            lines += _citation_lines(c)
        if not self.result.attempts:
            lines += [
                "Nothing in it was checked: it cites no knowledge-base source (no [source-id] markers).",
                "Read every statement in it as unverified.",
                "",
            ]
        if a.unresolved:
            numbers = ", ".join(f"[{n}]" for n in a.unresolved)
            lines += [
                f"Not checked: {numbers} name no source id (the input has no source list for them).",
                "",
            ]
        from hippo_tui.verification.coverage import UNBACKED_MARK, mark_unbacked

        coverage = self.result.coverage
        marked = mark_unbacked(self.result.text, coverage)
        lines += [
            "Text as checked (citations that passed numbered, the others removed; "
            f"statements no passed citation backs marked{UNBACKED_MARK}):",
            "",
        ]
        lines += [f"  {line}" for line in sanitize(marked).strip().splitlines()] + [""]
        lines.append(self._result_line())
        lines.append(f"Coverage: {coverage.line}.")
        lines.append(f"Audit record {self.audit_id}: hippo-tui audit show {self.audit_id}")
        return "\n".join(lines)

    def _result_line(self) -> str:
        attempts, summary = self.result.attempts, self.result.summary
        if not attempts:
            return f"Result: {self.verdict()}: the answer cites nothing."
        parts = [f"{len(self.passed())} of {len(attempts)} citations passed"]
        for label, n in (
            ("flagged", summary.missing + summary.retired),
            ("ungrounded", summary.ungrounded),
            ("unchecked", summary.unchecked),
        ):
            if n:
                parts.append(f"{n} {label}")
        note = f" {summary.note}." if summary.note else ""
        return f"Result: {self.verdict()}: " + ", ".join(parts) + f".{note}"


def _citation_lines(c: CitationAttempt) -> list[str]:
    from hippo_tui.safe_text import sanitize

    number = f"[{c.number}]" if c.number is not None else "[-]"
    two = c.check_two if c.check_one == "confirmed" else "not run"
    lines = [
        # "Document › Section, p. 84 (PDF p. 97)" for an ingested passage, as the app and audit show it
        f"{number:<5} {sanitize(c.where or c.title or '(no such source)')}",
        f"      result     {_status(c)}",
        f"      source     {c.source_id}",
        f"      check one  {c.check_one}",
        f"      check two  {two}",
    ]
    if c.reason:
        lines.append(f"      reason     {sanitize(c.reason)}")
    lines += [f"      claim      {' '.join(sanitize(claim).split())}" for claim in c.claims]
    return [*lines, ""]
