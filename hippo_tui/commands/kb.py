"""`hippo-tui kb`: import, export, list, show, search, retire and stats over the knowledge base.

The store is imported when a command runs (see ``_common``): registering these commands costs nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hippo_tui.commands._common import is_tty, print_json, store_handler
from hippo_tui.safe_text import one_line, sanitize

if TYPE_CHECKING:
    from hippo_tui.models import Source
    from hippo_tui.store import Store
    from hippo_tui.store.base import Listed


def _clean(text: str | None) -> str:
    return sanitize(text or "")


def _name(text: str | None) -> str:
    """A title, file name or snippet kept on its one line (a name holding a newline cannot forge a line)."""
    return one_line(text or "")


class TtyProgress:
    """A one-line progress bar on stderr, redrawn with \\r; silent when stderr is not a terminal."""

    WIDTH = 30

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} ({100 * done // total}%)")
        self.stream.flush()
        self._drawn = True

    def note(self, text: str) -> None:
        """A line of status before the bar starts (drawn over by it)."""
        if self.enabled:
            self.stream.write(f"\r{text}")
            self.stream.flush()
            self._drawn = True

    def end(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()


async def _import(store: Store, args: argparse.Namespace) -> int:
    path: Path = args.file
    progress = TtyProgress(f"importing {path.name}")
    progress.note(f"checking {path.name}…")  # validation comes first and takes a while on a large file
    try:
        n = await store.import_jsonl(path, progress=progress)
    finally:
        progress.end()
    if args.name:
        await store.set_kb_name(args.name)
    print(f"imported {n} sources from {_name(str(path))} into '{_name(store.kb_name)}'")
    return 0


async def _export(store: Store, args: argparse.Namespace) -> int:
    from hippo_tui.store import StoreError

    if args.output is None:
        n = await store.export_jsonl(sys.stdout)
    else:
        try:
            with args.output.open("w", encoding="utf-8") as out:
                n = await store.export_jsonl(out)
        except OSError as e:
            raise StoreError(f"{args.output}: cannot write the export: {e.strerror or e}") from None
        print(f"exported {n} sources to {_name(str(args.output))}", file=sys.stderr)
    return 0


def _source_line(s: Listed) -> str:
    return f"{s.id}  {s.status:<7}  {_name(s.title)}"


TTY_LIST_LIMIT = 50  # sources `kb list` prints to a terminal when no --limit is given


def _list_limit(args: argparse.Namespace) -> int | None:
    """--limit as given (0: all); unset, a page on a terminal and everything into a pipe or a file."""
    if args.limit is not None:
        return args.limit or None
    return TTY_LIST_LIMIT if is_tty(sys.stdout) else None


async def _list(store: Store, args: argparse.Namespace) -> int:
    if (args.limit is not None and args.limit < 0) or args.offset < 0:
        raise ValueError("--limit and --offset take a number of sources, 0 or more")
    status = None if args.status == "all" else args.status
    limit = _list_limit(args)
    if args.json:
        for s in await store.list_sources(status=status, limit=limit, offset=args.offset):
            print_json(s.model_dump(mode="json", exclude_none=True))
        return 0
    # The rows, not the records: printing a line of each needs no pydantic model (a third of the command).
    sources = await store.list_rows(status=status, limit=limit, offset=args.offset)
    for row in sources:
        print(_source_line(row))
    total = await store.count(status)
    shown = f"{args.offset + 1}-{args.offset + len(sources)} of {total}" if sources else f"none of {total}"
    more = args.offset + len(sources) < total
    hint = f"; --offset {args.offset + len(sources)} for the next, --limit 0 for all" if more else ""
    print(f"sources {shown}{hint}", file=sys.stderr)
    return 0


async def _show(store: Store, args: argparse.Namespace) -> int:
    from hippo_tui.provenance import where
    from hippo_tui.store import NotFound

    src = await store.get(args.id)
    if src is None:
        raise NotFound(f"{store.path}: no source with id {args.id!r}")
    if args.json:
        print_json(src.model_dump(mode="json", exclude_none=True))
        return 0
    print(_name(src.title))
    print(f"  id:        {src.id}")
    print(f"  status:    {src.status}")
    for label, value in (("publisher", src.publisher), ("url", src.url), ("updated", src.updated)):
        if value:
            print(f"  {label + ':':<10} {_name(str(value))}")
    _print_provenance(src)
    if src.status == "retired":
        print(f"  retired:   {_name(src.retired_reason) or '(no reason given)'}")
        if src.superseded_by:
            succ = await store.get(src.superseded_by)
            title = f" ({_name(where(succ.title, succ.provenance))})" if succ else " (missing)"
            print(f"  superseded by {src.superseded_by}{title}")
    print()
    print(_clean(src.excerpt))
    if src.body:
        print()
        print(_clean(src.body))
    return 0


def _print_provenance(src: Source) -> None:
    """Where an ingested passage comes from: document › section, page, and which version of the file."""
    from hippo_tui.provenance import origin, page_text

    p = src.provenance
    if p is None:
        return
    print(f"  {'document:':<10} {_name(origin(p))}")
    if p.page is not None:
        print(f"  {'page:':<10} {page_text(p)}")
    print(f"  {'version:':<10} {_clean(p.version[:12])} (ingested {_clean(p.ingested)})")


async def _search(store: Store, args: argparse.Namespace) -> int:
    # The rows, not the records: printing them needs no pydantic model (a third of the command's start).
    hits = await store.search_rows(args.query, k=args.k)
    if args.json:
        from hippo_tui.provenance import where

        for h in hits:
            hit = h.hit()
            print_json(
                {"where": where(hit.title, hit.provenance), **hit.model_dump(mode="json", exclude_none=True)}
            )
        return 0
    if not hits:
        print("no active source matches", file=sys.stderr)
        return 0
    for rank, h in enumerate(hits, start=1):
        print(f"{rank}. {_name(h.title)}  [{h.id}]  score {h.score:.2f}")
        print(f"   {_name(h.snippet)}")
    return 0


async def _retire(store: Store, args: argparse.Namespace) -> int:
    src = await store.retire(args.id, args.reason, superseded_by=args.superseded_by)
    succ = f", superseded by {src.superseded_by}" if src.superseded_by else ""
    print(f"retired {src.id} ({_name(src.title)}){succ}")
    return 0


async def _stats(store: Store, args: argparse.Namespace) -> int:
    stats = await store.kb_stats()
    if args.json:
        print_json(stats)
        return 0
    width = max(len(k) for k in stats) + 1
    for key, value in stats.items():
        print(f"{key + ':':<{width}} {_clean(str(value))}")
    return 0


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("kb", parents=[common], help="the knowledge base: import, search, retire, …")
    kb = p.add_subparsers(dest="kb_command", metavar="KB_COMMAND", required=True)

    c = kb.add_parser("import", parents=[common], help="import (upsert by id) a JSONL file; all or nothing")
    c.add_argument("file", type=Path, metavar="FILE")
    c.add_argument("--name", help="rename the knowledge base (shown in the app's status line)")
    c.set_defaults(func=store_handler(_import))

    c = kb.add_parser("export", parents=[common], help="write every source as JSONL")
    c.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    c.set_defaults(func=store_handler(_export))

    c = kb.add_parser("list", parents=[common], help="list sources by title")
    c.add_argument("--status", choices=["active", "retired", "all"], default="all")
    c.add_argument(
        "--limit",
        type=int,
        help=f"at most this many, 0 for all (default: {TTY_LIST_LIMIT} to a terminal, all to a pipe)",
    )
    c.add_argument("--offset", type=int, default=0, help="skip this many first (for the next page)")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=store_handler(_list))

    c = kb.add_parser("show", parents=[common], help="one source in full")
    c.add_argument("id", metavar="ID")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=store_handler(_show, remote=True))

    c = kb.add_parser("search", parents=[common], help="full-text search over active sources")
    c.add_argument("query", metavar="QUERY")
    c.add_argument("-k", type=int, default=5, help="how many results (default 5)")
    c.add_argument("--json", action="store_true", help="one JSON object per line")
    c.set_defaults(func=store_handler(_search, remote=True))

    c = kb.add_parser("retire", parents=[common], help="retire a source (it stops being citable)")
    c.add_argument("id", metavar="ID")
    c.add_argument("--reason", required=True, help="why it was withdrawn")
    c.add_argument("--superseded-by", metavar="ID", help="the active source that replaces it")
    c.set_defaults(func=store_handler(_retire))

    from hippo_tui.commands import ingest

    ingest.register(kb, common)

    c = kb.add_parser("stats", parents=[common], help="counts and name of the knowledge base")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=store_handler(_stats))
