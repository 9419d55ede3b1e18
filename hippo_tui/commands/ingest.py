"""`hippo-tui kb ingest PATH...` and `hippo-tui kb docs`: documents in as passages, and what came in.

Reading and parsing (the slow part, in a worker thread) finishes before the store is written; then one
transaction writes every document's changes. A file that cannot be read is listed at the end with its
reason and the others go in (exit EXIT_SOME_FAILED); ``--strict`` writes nothing when any file fails.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.commands._common import EXIT_USAGE, print_json, store_handler
from hippo_tui.safe_text import one_line, sanitize

if TYPE_CHECKING:  # the store and the parsers load when a command runs: `hippo-tui --help` stays fast
    from hippo_tui.ingest.finding import Found
    from hippo_tui.ingest.run import Outcome
    from hippo_tui.ingest.versions import DocumentReport
    from hippo_tui.store import Store

EXIT_SOME_FAILED = 7  # the readable files went in; at least one file could not be read (listed at the end)


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date (YYYY-MM-DD)") from None


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A Rich progress bar on a terminal's stderr; nothing otherwise (the summary line says it all)."""
    if not sys.stderr.isatty() or total < 2:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("reading documents"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("read", total=total)
        yield lambda: bar.advance(task)


def _default_name(paths: list[Path]) -> str:
    first = paths[0].expanduser().resolve()
    return sanitize(first.name if first.is_dir() else first.stem) or "documents"


async def _ingest(store: Store, args: argparse.Namespace) -> int:
    import asyncio

    from hippo_tui.commands._common import settings_from_args
    from hippo_tui.ingest.finding import find
    from hippo_tui.ingest.limits import Limits
    from hippo_tui.ingest.reading import Overrides, folders_of
    from hippo_tui.ingest.report import demo_to_replace
    from hippo_tui.ingest.run import run_ingest

    settings = settings_from_args(args)
    limits = Limits(settings.ingest_memory_mb, settings.ingest_seconds, settings.ingest_unpacked_mb)

    found = await asyncio.to_thread(lambda: find(args.paths, allow_empty=args.prune))
    now = datetime.now(UTC)
    retire = [] if args.keep_demo else await demo_to_replace(store, now.date())
    name = args.name or (_default_name(args.paths) if retire else None)
    overrides = Overrides(publisher=args.publisher, updated=args.updated)
    with _progress(len(found.paths)) as tick:
        outcome = await run_ingest(
            store,
            found.paths,
            overrides=overrides,
            when=now,
            dry_run=args.dry_run,
            strict=args.strict,
            retire=retire,
            kb_name=name,
            tick=tick,
            folders=folders_of(args.paths),
            prune=args.prune,
            limits=limits,
            manifests=found.manifests,
        )
    demo_retired = len(retire) if outcome.reports and not (args.strict and outcome.failures) else 0
    _print_reports(outcome, found, args, demo_retired=demo_retired, kb_name=name or store.kb_name)
    if not outcome.failures:
        return 0
    return EXIT_USAGE if args.strict else EXIT_SOME_FAILED


def _shown_path(key: str) -> str:
    try:
        return str(Path(key).relative_to(Path.cwd()))
    except ValueError:
        return key


def _print_json(
    outcome: Outcome, found: Found, args: argparse.Namespace, *, demo_retired: int, kb_name: str
) -> None:
    from hippo_tui.ingest.report import report_json

    print_json(report_json(outcome, found, dry_run=args.dry_run, demo_retired=demo_retired, kb_name=kb_name))


def _print_reports(
    outcome: Outcome, found: Found, args: argparse.Namespace, *, demo_retired: int, kb_name: str
) -> None:
    if args.json:
        _print_json(outcome, found, args, demo_retired=demo_retired, kb_name=kb_name)
        return
    from hippo_tui.ingest.report import totals as count_totals

    reports = outcome.reports
    totals = count_totals(reports)
    for r in reports:
        shown, title = one_line(_shown_path(r.key)), one_line(r.title)
        if r.status == "missing":
            print(f"missing   {shown}: no longer on disk; its {r.unchanged} passages stay citable  ({title})")
            continue
        counts = " · ".join(f"{k} {v}" for k, v in r.counts().items())
        print(f"{r.status:<9} {shown}: {counts}  ({title})")
    if reports:
        _print_summary(reports, totals, args, kb_name)
    if demo_retired:
        verb = "would retire" if args.dry_run else "retired"
        print(f"{verb} the {demo_retired} demo sources (--keep-demo keeps them)", file=sys.stderr)
    _print_left_out(outcome, found, args)


def _print_left_out(outcome: Outcome, found: Found, args: argparse.Namespace) -> None:
    """Warnings, files of formats not read, and last the files that failed with their reasons."""
    for warning in found.warnings + outcome.warnings:
        print(f"warning: {one_line(_shown_path(warning))}", file=sys.stderr)
    if found.unknown:
        kinds = ", ".join(f"{one_line(ext)} {n}" for ext, n in found.unknown.most_common())
        total = sum(found.unknown.values())
        print(f"not read: {total} file{'s' if total != 1 else ''} of formats ingest does not read ({kinds})",
              file=sys.stderr)  # fmt: skip
    if not outcome.failures:
        return
    n = len(outcome.failures)
    head = f"{n} file{'s' if n != 1 else ''} could not be read"
    tail = (
        "; nothing was imported (--strict)"
        if args.strict
        else "; the others went in"
        if outcome.written
        else ""
    )
    print(f"{head}{tail}:", file=sys.stderr)
    for f in outcome.failures:
        print(f"  {one_line(_shown_path(f.key))}: {one_line(f.reason)}", file=sys.stderr)


def _print_summary(
    reports: list[DocumentReport], totals: dict[str, int], args: argparse.Namespace, kb_name: str
) -> None:
    n = {
        s: sum(r.status == s for r in reports)
        for s in ("new", "revised", "reread", "skipped", "removed", "missing")
    }
    head = "dry run, nothing written: would ingest" if args.dry_run else "ingested"
    removed = f", {n['removed']} removed" if n["removed"] else ""
    print(
        f"{head} {len(reports) - n['missing']} documents into '{sanitize(kb_name)}' ({n['new']} new, "
        f"{n['revised']} revised, {n['skipped'] + n['reread']} unchanged{removed}): "
        + ", ".join(f"{v} {k}" for k, v in totals.items())
        + " passages",
        file=sys.stderr,
    )
    if n["missing"]:
        gone = "1 document is" if n["missing"] == 1 else f"{n['missing']} documents are"
        print(f"{gone} no longer on disk: --prune retires their passages", file=sys.stderr)


async def _docs(store: Store, args: argparse.Namespace) -> int:

    docs = await store.list_documents()
    if args.json:
        for d in docs:
            print_json(d.__dict__)
        return 0
    from hippo_tui.ingest.versions import REMOVED_VERSION

    def version(v: str) -> str:
        return "removed (file gone)" if v == REMOVED_VERSION else f"version {v[:12]}"

    for d in docs:
        versions = f"{len(d.versions)} version{'s' if len(d.versions) != 1 else ''}"
        print(f"{one_line(d.title)}  [{d.format}]  {one_line(_shown_path(d.key))}")
        print(
            f"  {version(d.version)} of {d.ingested} ({versions}); {d.active} active, {d.retired} retired passages"
        )
        for v in d.versions[1:]:
            counts = ", ".join(f"{k} {v[k]}" for k in ("added", "unchanged", "revised", "removed"))
            print(f"    before: {version(v['version'])} of {v['ingested']}: {counts}")
    print(f"{len(docs)} documents", file=sys.stderr)
    return 0


def _ingest_here_or_on_server(args: argparse.Namespace) -> int:
    """Into the data folder's store, or with --server (an editor's token) uploaded to that server."""
    from hippo_tui.commands._common import settings_from_args

    settings = settings_from_args(args)
    if not settings.server:
        return store_handler(_ingest)(args)
    import asyncio

    from hippo_tui.commands.ingest_upload import upload

    return asyncio.run(upload(settings.server, settings.token, args))


def register(kb: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """The `ingest` and `docs` sub-commands of `kb`."""
    c = kb.add_parser(
        "ingest",
        parents=[common],
        help="documents (Markdown, HTML, text, Word, PDF) in as passages; a file that fails is listed",
    )
    c.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="files, or folders read recursively")
    c.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    c.add_argument("--publisher", help="the publisher of every document (over what a document says)")
    c.add_argument("--updated", type=_date, metavar="YYYY-MM-DD", help="the date every document was updated")
    c.add_argument("--name", help="rename the knowledge base (shown in the app's status line)")
    c.add_argument("--keep-demo", action="store_true", help="keep the bundled demo sources citable alongside")
    c.add_argument(
        "--prune",
        action="store_true",
        help="retire the passages of documents under the given folders whose files are gone",
    )
    c.add_argument(
        "--strict", action="store_true", help="all or nothing: import nothing if any file cannot be read"
    )
    c.add_argument("--json", action="store_true", help="the report as one JSON object")
    c.set_defaults(func=_ingest_here_or_on_server)

    c = kb.add_parser("docs", parents=[common], help="ingested documents with their versions")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=store_handler(_docs))
