"""`hippo-tui kb ingest PATH...` and `hippo-tui kb docs`: documents in as passages, and what came in.

Reading and parsing (the slow part, in a worker thread) finishes before the store is written; then one
transaction writes every document's changes. Any bad file stops the run before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.commands._common import print_json, store_handler
from hippo_tui.safe_text import sanitize

if TYPE_CHECKING:  # the store and the parsers load when a command runs: `hippo-tui --help` stays fast
    from hippo_tui.ingest.versions import DocumentReport
    from hippo_tui.store import Store


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


async def _demo_to_replace(store: Store, today: date) -> list[tuple[str, str]]:
    """The bundled demo's sources, when this is the first ingest into the demo KB: the clinic's documents
    replace them (retired, so an old answer citing one is flagged, not left pointing at nothing)."""
    if store.kb_name != "demo" or await store.list_documents():
        return []
    import asyncio  # not at the top: registering the sub-command must not load the event loop

    from hippo_tui.store import DEMO_KB
    from hippo_tui.store.sources import parse_jsonl

    demo_ids = {s.id for s in await asyncio.to_thread(parse_jsonl, DEMO_KB)}
    reason = f"the demo knowledge base was replaced by ingested documents on {today.isoformat()}"
    active = await store.list_sources(status="active")
    return [(s.id, reason) for s in active if s.id in demo_ids and s.provenance is None]


def _default_name(paths: list[Path]) -> str:
    first = paths[0].expanduser().resolve()
    return sanitize(first.name if first.is_dir() else first.stem) or "documents"


async def _ingest(store: Store, args: argparse.Namespace) -> int:
    import asyncio

    from hippo_tui.ingest.reading import Overrides, collect, folders_of
    from hippo_tui.ingest.run import ingest_paths

    paths = await asyncio.to_thread(lambda: collect(args.paths, allow_empty=args.prune))
    now = datetime.now(UTC)
    retire = [] if args.keep_demo else await _demo_to_replace(store, now.date())
    name = args.name or (_default_name(args.paths) if retire else None)
    overrides = Overrides(publisher=args.publisher, updated=args.updated)
    with _progress(len(paths)) as tick:
        reports = await ingest_paths(
            store,
            paths,
            overrides=overrides,
            when=now,
            dry_run=args.dry_run,
            retire=retire,
            kb_name=name,
            tick=tick,
            folders=folders_of(args.paths),
            prune=args.prune,
        )
    _print_reports(reports, args, demo_retired=len(retire), kb_name=name or store.kb_name)
    return 0


def _shown_path(key: str) -> str:
    try:
        return str(Path(key).relative_to(Path.cwd()))
    except ValueError:
        return key


def _totals(reports: list[DocumentReport]) -> dict[str, int]:
    keys = ("added", "unchanged", "revised", "removed")
    ingested = [r for r in reports if r.status != "missing"]  # a missing document's passages were not read
    return {k: sum(r.counts()[k] for r in ingested) for k in keys}


def _print_reports(
    reports: list[DocumentReport], args: argparse.Namespace, *, demo_retired: int, kb_name: str
) -> None:

    totals = _totals(reports)
    if args.json:
        docs = [{"document": r.key, "title": r.title, "format": r.format, "version": r.version,
                 "status": r.status, **r.counts()} for r in reports]  # fmt: skip
        print_json({"dry_run": args.dry_run, "kb": kb_name, "documents": docs, "totals": totals,
                    "demo_retired": demo_retired})  # fmt: skip
        return
    for r in reports:
        shown, title = sanitize(_shown_path(r.key)), sanitize(r.title)
        if r.status == "missing":
            print(f"missing   {shown}: no longer on disk; its {r.unchanged} passages stay citable  ({title})")
            continue
        counts = " · ".join(f"{k} {v}" for k, v in r.counts().items())
        print(f"{r.status:<9} {shown}: {counts}  ({title})")
    _print_summary(reports, totals, args, kb_name)
    if demo_retired:
        verb = "would retire" if args.dry_run else "retired"
        print(f"{verb} the {demo_retired} demo sources (--keep-demo keeps them)", file=sys.stderr)


def _print_summary(
    reports: list[DocumentReport], totals: dict[str, int], args: argparse.Namespace, kb_name: str
) -> None:
    n = {s: sum(r.status == s for r in reports) for s in ("new", "revised", "skipped", "removed", "missing")}
    head = "dry run, nothing written: would ingest" if args.dry_run else "ingested"
    removed = f", {n['removed']} removed" if n["removed"] else ""
    print(
        f"{head} {len(reports) - n['missing']} documents into '{sanitize(kb_name)}' ({n['new']} new, "
        f"{n['revised']} revised, {n['skipped']} unchanged{removed}): "
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
        print(f"{sanitize(d.title)}  [{d.format}]  {sanitize(_shown_path(d.key))}")
        print(
            f"  {version(d.version)} of {d.ingested} ({versions}); {d.active} active, {d.retired} retired passages"
        )
        for v in d.versions[1:]:
            counts = ", ".join(f"{k} {v[k]}" for k in ("added", "unchanged", "revised", "removed"))
            print(f"    before: {version(v['version'])} of {v['ingested']}: {counts}")
    print(f"{len(docs)} documents", file=sys.stderr)
    return 0


def register(kb: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """The `ingest` and `docs` sub-commands of `kb`."""
    c = kb.add_parser(
        "ingest",
        parents=[common],
        help="documents (Markdown, HTML, text, Word, PDF) in as passages; all or nothing",
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
    c.add_argument("--json", action="store_true", help="the report as one JSON object")
    c.set_defaults(func=store_handler(_ingest))

    c = kb.add_parser("docs", parents=[common], help="ingested documents with their versions")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=store_handler(_docs))
