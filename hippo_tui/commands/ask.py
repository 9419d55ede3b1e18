"""`hippo-tui ask "QUESTION"`: one answer, headless.

Human-readable by default: the answer, its numbered citations with titles, and a one-line verification
summary. ``--json`` prints every event as one JSON line (``events.to_json``); the last line is ``end`` or
``error``. Exit codes are the ones in ``hippo_tui.cli``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from hippo_tui.backends import CassetteError
from hippo_tui.backends.cassette import Cassette
from hippo_tui.cli import EXIT_MODEL, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_WITHDRAWN, settings_from_args
from hippo_tui.config import Settings
from hippo_tui.events import EndEvent, ErrorEvent, ResetEvent, VerificationSummary, to_json
from hippo_tui.store import StoreError


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "ask",
        parents=[common],
        help="answer one question headless (text, or --json events)",
        description="Answer one question without the app. Exit codes: 0 answered, 1 withdrawn, "
        "2 usage or configuration, 3 model or server error, 4 knowledge base or audit database error.",
    )
    p.add_argument("question", nargs="?", help="the question (with --replay: defaults to the recorded one)")
    p.add_argument("--json", action="store_true", help="print every event as one JSON line")
    p.set_defaults(func=run)


def summary_line(v: VerificationSummary) -> str:
    if not v.attempted:
        return "Verification: no citations."
    parts = [f"{v.attempted} cited", f"{v.confirmed} confirmed"]
    for name in ("missing", "retired", "grounded", "ungrounded", "unchecked"):
        n = getattr(v, name)
        if n:
            parts.append(f"{n} {name}")
    line = "Verification: " + ", ".join(parts) + f" ({v.seconds:.1f} s)."
    return f"{line} {v.note}." if v.note else line


def _exit_code(event: EndEvent | ErrorEvent | None) -> int:
    if isinstance(event, EndEvent):
        return EXIT_OK if event.outcome == "complete" else EXIT_WITHDRAWN
    if isinstance(event, ErrorEvent):
        return {"store": EXIT_STORE, "usage": EXIT_USAGE}.get(event.kind, EXIT_MODEL)
    return EXIT_MODEL


async def answer(settings: Settings, question: str, *, as_json: bool, out: TextIO, err: TextIO) -> int:
    # Imported late: `hippo-tui --help` stays fast.
    from hippo_tui.engine import Engine
    from hippo_tui.guard import PolicyError

    try:
        engine = await Engine.create(settings)
    except StoreError as e:
        print(f"hippo-tui: {e}", file=err)
        return EXIT_STORE
    except (CassetteError, PolicyError) as e:
        print(f"hippo-tui: {e}", file=err)
        return EXIT_USAGE
    last: EndEvent | ErrorEvent | None = None
    note = ""
    try:
        async for event in engine.ask(question):
            if as_json:
                print(to_json(event), file=out, flush=True)
            if isinstance(event, ResetEvent) and event.reason == "safety":
                note = event.note
            if isinstance(event, EndEvent | ErrorEvent):
                last = event
    finally:
        await engine.close()
    if not as_json:
        _print_human(last, note, out, err)
    return _exit_code(last)


def _print_human(last: EndEvent | ErrorEvent | None, note: str, out: TextIO, err: TextIO) -> None:
    if isinstance(last, EndEvent):
        if last.outcome == "withdrawn":
            print(note or "The answer was withdrawn.", file=out)
            return
        print(last.text.strip(), file=out)
        if last.citations:
            print(file=out)
            for c in last.citations:
                mark = "" if c.grounding == "grounded" else " (unchecked)"
                print(f"[{c.number}] {c.title}{mark}", file=out)
        print(file=out)
        print(summary_line(last.verification), file=out)
    elif isinstance(last, ErrorEvent):
        if last.partial_text:
            print(last.partial_text.strip(), file=out)
        print(f"hippo-tui: {last.message}", file=err)
        if last.action:
            print(f"  → {last.action}", file=err)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    question = args.question
    if not question and settings.replay is not None:
        try:
            question = Cassette.load(settings.replay).question
        except CassetteError as e:
            print(f"hippo-tui: {e}", file=sys.stderr)
            return EXIT_USAGE
    if not question or not question.strip():
        print(
            'hippo-tui ask: give a question, e.g. hippo-tui ask "first-line drug for hypertension?"',
            file=sys.stderr,
        )
        return EXIT_USAGE
    return asyncio.run(answer(settings, question.strip(), as_json=args.json, out=sys.stdout, err=sys.stderr))
