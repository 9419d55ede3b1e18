"""`hippo-tui audit`: what every answer cited and how each citation fared (list, show, stats, export)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from hippo_tui.commands.kb import StoreCommand, run_with_store
from hippo_tui.models import AnswerRecord, CitationAttempt, GroundingRecord
from hippo_tui.safe_text import sanitize
from hippo_tui.store import Store, StoreError, UnknownAnswer
from hippo_tui.store.audit import AUDIT_STATS_COLUMNS


def _one_line(text: str, width: int) -> str:
    flat = " ".join(sanitize(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _record_json(a: AnswerRecord, *, ascii_only: bool) -> str:
    # Model text is untrusted: to a terminal, non-ASCII (C1 controls, bidi marks) goes out as JSON escapes.
    return json.dumps(a.model_dump(mode="json"), ensure_ascii=ascii_only)


def _print_record(a: AnswerRecord) -> None:
    print(_record_json(a, ascii_only=True))


def _citation_summary(a: AnswerRecord) -> str:
    shown = sum(c.shown for c in a.citations)
    flagged = sum(c.check_one != "confirmed" or c.check_two == "ungrounded" for c in a.citations)
    return f"{len(a.citations)} cited, {shown} shown, {flagged} flagged"


async def _list(store: Store, args: argparse.Namespace) -> int:
    answers = await store.list_answers(limit=args.limit)
    if args.json:
        for a in answers:
            _print_record(a)
        return 0
    if not answers:
        print("the audit record is empty", file=sys.stderr)
        return 0
    for a in answers:
        print(
            f"{a.id:>5}  {a.created[:19].replace('T', ' ')}  {a.outcome:<9}  {_one_line(a.model, 20):<20}  "
            f"{_citation_summary(a):<30}  {_one_line(a.question, 60)}"
        )
    return 0


def _check(c: CitationAttempt) -> str:
    if c.check_one != "confirmed":
        return c.check_one  # missing / retired: check two never ran
    return f"confirmed, {c.check_two}"


async def _show(store: Store, args: argparse.Namespace) -> int:
    a = await store.get_answer(args.id)
    if a is None:
        raise UnknownAnswer(f"{store.path}: no answer with id {args.id} in the audit record")
    if args.json:
        _print_record(a)
        return 0
    print(f"answer {a.id}  {a.created}  {a.outcome}")
    print(f"  model:    {sanitize(a.model)} ({sanitize(a.backend)})")
    if a.conversation_id:
        print(f"  conversation: {sanitize(a.conversation_id)}")
    if a.timings:
        print("  timings:  " + ", ".join(f"{k} {v:.3f} s" for k, v in a.timings.items()))
    if a.error:
        print(f"  error:    {sanitize(a.error)}")
    print(f"\nquestion:\n  {sanitize(a.question)}")
    print(f"\nfinal text:\n{sanitize(a.final_text) or '  (none)'}")
    if a.raw_text != a.final_text:
        print(f"\nraw text (withdrawn parts included):\n{sanitize(a.raw_text) or '  (none)'}")
    for r in a.resets:
        rule = f" ({sanitize(r.rule)})" if r.rule else ""
        print(f"\nreset at {r.at:.2f} s: {r.reason}{rule}, {r.withdrawn_chars} characters withdrawn")
        print(f"  withdrawn: {_one_line(r.withdrawn, 200)}")
    print(f"\ncitations ({_citation_summary(a)}):" if a.citations else "\nno citations")
    for c in a.citations:
        number = f"[{c.number}]" if c.number is not None else "[-]"
        title = f" {sanitize(c.title)}" if c.title else ""
        print(f"  {number:<4} {'shown ' if c.shown else 'hidden'}  {_check(c):<22} {c.source_id}{title}")
        if c.reason:
            print(f"       reason: {sanitize(c.reason)}")
        for claim in c.claims:
            print(f"       claim:  {_one_line(claim, 160)}")
    if a.grounding is not None:
        _print_grounding(a.grounding)
    return 0


def _print_grounding(g: GroundingRecord) -> None:
    """Which response_format step gave check two its verdicts, every step tried, and the judge's replies."""
    used = f"the {g.step} step answered" if g.step else "no step gave a usable reply"
    print(f"\ncheck two ({used}):")
    for t in g.tries:
        print(f"  {t.step:<19} {_one_line(t.outcome, 160)}")
        if t.raw is not None:
            print(f"       reply:  {_one_line(t.raw, 400) or '(empty)'}")


# The table leaves out "shown": the flagged% column says what matters of it.
_STATS_COLUMNS = tuple(c for c in AUDIT_STATS_COLUMNS if c != "shown")


async def _stats(store: Store, args: argparse.Namespace) -> int:
    rows = await store.audit_stats()
    if args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=True))
        return 0
    if not rows:
        print("the audit record is empty", file=sys.stderr)
        return 0
    width = max(len("model"), *(len(sanitize(str(r["model"]))) for r in rows))
    print(f"{'model':<{width}}  " + "  ".join(f"{c:>10}" for c in _STATS_COLUMNS) + "  flagged%")
    for r in rows:
        cited = int(r["citations"])
        flagged = int(r["missing"]) + int(r["retired"]) + int(r["ungrounded"])
        pct = f"{100 * flagged / cited:7.1f}%" if cited else "      -"
        cells = "  ".join(f"{r[c]:>10}" for c in _STATS_COLUMNS)
        print(f"{sanitize(str(r['model'])):<{width}}  {cells}  {pct}")
    return 0


async def _export(store: Store, args: argparse.Namespace) -> int:
    answers = await store.list_answers(limit=None)

    def write(out: TextIO) -> None:
        for a in reversed(answers):  # oldest first, like a log
            out.write(_record_json(a, ascii_only=out.isatty()) + "\n")

    if args.output is None:
        write(sys.stdout)
    else:
        try:
            with args.output.open("w", encoding="utf-8") as out:
                write(out)
        except OSError as e:
            raise StoreError(f"{args.output}: cannot write the export: {e.strerror or e}") from None
        print(f"exported {len(answers)} answers to {sanitize(str(args.output))}", file=sys.stderr)
    return 0


def _handler(command: StoreCommand) -> Callable[[argparse.Namespace], int]:
    return lambda args: run_with_store(args, command)


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("audit", parents=[common], help="the audit record: every answer and citation attempt")
    audit = p.add_subparsers(dest="audit_command", metavar="AUDIT_COMMAND", required=True)

    c = audit.add_parser("list", parents=[common], help="recent answers, newest first")
    c.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=_handler(_list))

    c = audit.add_parser("show", parents=[common], help="one answer with every citation attempt")
    c.add_argument("id", type=int, metavar="ID")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_handler(_show))

    c = audit.add_parser("stats", parents=[common], help="per model: how often it cited bad sources")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=_handler(_stats))

    c = audit.add_parser("export", parents=[common], help="the whole record, oldest first")
    c.add_argument("--format", choices=["jsonl"], default="jsonl", help="output format (jsonl)")
    c.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    c.set_defaults(func=_handler(_export))
