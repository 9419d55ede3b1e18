"""`hippo-tui audit`: what every answer cited and how each citation fared (list, show, stats, export).

The store is imported when a command runs (see ``_common``): registering these commands costs nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hippo_tui.commands._common import store_handler
from hippo_tui.safe_text import clip, sanitize

if TYPE_CHECKING:
    from hippo_tui.audit_stats import AuditStats
    from hippo_tui.models import AnswerRecord, CitationAttempt, GroundingRecord
    from hippo_tui.store import Store


def _record_json(a: AnswerRecord, *, ascii_only: bool) -> str:
    # Model text is untrusted: to a terminal, non-ASCII (C1 controls, bidi marks) goes out as JSON escapes.
    return json.dumps(a.model_dump(mode="json"), ensure_ascii=ascii_only)


def _print_record(a: AnswerRecord) -> None:
    print(_record_json(a, ascii_only=True))


def _citation_summary(a: AnswerRecord) -> str:
    shown = sum(c.shown for c in a.citations)
    flagged = sum(c.flagged for c in a.citations)
    ungrounded = sum(c.check_two == "ungrounded" and not c.flagged for c in a.citations)
    return f"{len(a.citations)} cited, {shown} shown, {flagged} flagged, {ungrounded} ungrounded"


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
            f"{a.id:>5}  {a.created[:19].replace('T', ' ')}  {a.outcome:<9}  {clip(a.model, 20, flat=True):<20}  "
            f"{_citation_summary(a):<30}  {clip(a.question, 60, flat=True)}"
        )
    return 0


def _check(c: CitationAttempt) -> str:
    if c.check_one != "confirmed":
        return c.check_one  # missing / retired: check two never ran
    if said := c.failed_check_two:
        return f"confirmed, {said}" + (f" ({c.element})" if c.element else "")
    return f"confirmed, {c.check_two}"


async def _show(store: Store, args: argparse.Namespace) -> int:
    from hippo_tui.store import UnknownAnswer
    from hippo_tui.verification.coverage import UNBACKED_MARK, mark_unbacked

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
    if a.error:  # on an answer that was still shown (cut at the output limit), a note rather than an error
        print(f"  {'error:' if a.outcome == 'error' else 'note: '}    {sanitize(a.error)}")
    print(f"\nquestion:\n  {sanitize(a.question)}")
    shown = mark_unbacked(a.final_text, a.coverage) if a.coverage is not None else a.final_text
    print(f"\nfinal text:\n{sanitize(shown) or '  (none)'}")
    if a.coverage is not None:
        marked = f" (unbacked ones marked{UNBACKED_MARK})" if a.coverage.unbacked else ""
        print(f"\ncoverage: {a.coverage.line}{marked}")
    if a.raw_text != a.final_text:
        print(f"\nraw text (withdrawn parts included):\n{sanitize(a.raw_text) or '  (none)'}")
    for r in a.resets:
        rule = f" ({sanitize(r.rule)})" if r.rule else ""
        print(f"\nreset at {r.at:.2f} s: {r.reason}{rule}, {r.withdrawn_chars} characters withdrawn")
        print(f"  withdrawn: {clip(r.withdrawn, 200, flat=True)}")
    print(f"\ncitations ({_citation_summary(a)}):" if a.citations else "\nno citations")
    for c in a.citations:
        number = f"[{c.number}]" if c.number is not None else "[-]"
        named = c.where or c.title  # "Document › Section, p. 3" for an ingested passage
        title = f" {sanitize(named)}" if named else ""
        print(f"  {number:<4} {'shown ' if c.shown else 'hidden'}  {_check(c):<22} {c.source_id}{title}")
        if c.reason:
            print(f"       reason: {sanitize(c.reason)}")
        for claim in c.claims:
            print(f"       claim:  {clip(claim, 160, flat=True)}")
    if a.grounding is not None:
        _print_grounding(a.grounding)
    return 0


def _print_grounding(g: GroundingRecord) -> None:
    """Which response_format step gave check two its verdicts, every step tried, and the judge's replies."""
    used = f"the {g.step} step answered" if g.step else "no step gave a usable reply"
    print(f"\ncheck two ({used}):")
    for t in g.tries:
        print(f"  {t.step:<19} {clip(t.outcome, 160, flat=True)}")
        if t.raw is not None:
            print(f"       reply:  {clip(t.raw, 400, flat=True) or '(empty)'}")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}%"


def _print_stats(stats: AuditStats) -> None:
    width = max(len(stats.by), *(len(clip(g.key, 40, flat=True)) for g in stats.groups))
    print(
        f"{stats.by:<{width}}  answers  citations  flagged  ungrounded  unchecked  answers flagged"
        "  abstained  backed"
    )
    for g in stats.groups:
        print(
            f"{clip(g.key, 40, flat=True):<{width}}  {g.answers:>7}  {g.citations:>9}  {_pct(g.flagged_pct):>7}  "
            f"{_pct(g.ungrounded_pct):>10}  {_pct(g.unchecked_pct):>9}  {_pct(g.answers_flagged_pct):>15}"
            f"  {g.abstained:>9}  {_pct(g.backed_pct):>6}"
        )
    if stats.retired_sources:
        print("\nsources most often cited while retired:")
        for r in stats.retired_sources:
            title = f"  {clip(r.title, 60, flat=True)}" if r.title else ""
            successor = f" (superseded by {sanitize(r.superseded_by)})" if r.superseded_by else ""
            print(f"  {r.citations:>4}×  in {r.answers} answers  {sanitize(r.source_id)}{title}{successor}")
    if stats.most_failed:
        print("\nanswers with the most failed citations (audit show ID):")
        for a in stats.most_failed:
            print(
                f"  {a.audit_id:>5}  {a.failed} of {a.citations} failed  {a.created[:10]}  "
                f"{clip(a.model, 20, flat=True):<20}  {clip(a.question, 60, flat=True)}"
            )


async def _stats(store: Store, args: argparse.Namespace) -> int:
    stats = await store.audit_stats(args.by, limit=args.limit)
    if args.json:
        # ASCII only: model and question text (C1 controls, bidi marks) stay inert on a terminal.
        print(json.dumps(stats.model_dump(mode="json"), ensure_ascii=True))
        return 0
    if not stats.groups:
        print("the audit record is empty", file=sys.stderr)
        return 0
    _print_stats(stats)
    return 0


async def _export(store: Store, args: argparse.Namespace) -> int:
    from hippo_tui.store import StoreError

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


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("audit", parents=[common], help="the audit record: every answer and citation attempt")
    audit = p.add_subparsers(dest="audit_command", metavar="AUDIT_COMMAND", required=True)

    c = audit.add_parser("list", parents=[common], help="recent answers, newest first")
    c.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=store_handler(_list, remote=True))

    c = audit.add_parser("show", parents=[common], help="one answer with every citation attempt")
    c.add_argument("id", type=int, metavar="ID")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=store_handler(_show, remote=True))

    c = audit.add_parser(
        "stats", parents=[common], help="per model or day: how often answers cited bad sources"
    )
    c.add_argument(
        "--by", choices=["model", "day"], default="model", help="group by model (default) or UTC day"
    )
    c.add_argument(
        "--limit", type=int, default=10, help="at most this many sources and answers listed (default 10)"
    )
    c.add_argument(
        "--json", action="store_true", help="one JSON object (groups, retired_sources, most_failed)"
    )
    c.set_defaults(func=store_handler(_stats, remote=True))

    c = audit.add_parser("export", parents=[common], help="the whole record, oldest first")
    c.add_argument("--format", choices=["jsonl"], default="jsonl", help="output format (jsonl)")
    c.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    c.set_defaults(func=store_handler(_export, remote=True))
