"""`hippo-tui kb ingest --server URL PATH...`: the documents found here, exactly as `kb ingest` finds them
(regular files of the formats it reads; no links out, no hidden folders), uploaded to the server's
`POST /v1/kb/ingest` (an editor's token) and ingested there; its report printed as `kb ingest` prints one.

A file is named by its path under the folder given (folder name included), or by its own name when named
itself: uploading the same folder again revises those documents on the server.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from hippo_tui.commands._common import EXIT_MODEL, EXIT_OK, EXIT_USAGE, print_error, print_json
from hippo_tui.safe_text import one_line

EXIT_SOME_FAILED = 7  # as `kb ingest`: the readable files went in, at least one could not be read
LOCAL_ONLY = ("publisher", "updated", "name", "prune")  # options that need the data folder itself
UPLOAD_TIMEOUT = 600.0  # seconds: the server parses every file before it answers


def upload_name(path: Path, roots: list[Path]) -> str:
    """``path``'s name on the server: under the folder given, with that folder's own name first."""
    resolved = path.resolve()
    for root in roots:
        if resolved.is_relative_to(root):
            return (Path(root.name) / resolved.relative_to(root)).as_posix()
    return path.name


async def upload(url: str, token: str | None, args: argparse.Namespace) -> int:
    from hippo_tui.engine.remote import RemoteEngine
    from hippo_tui.engine.remote_errors import RemoteError
    from hippo_tui.ingest.document import IngestError
    from hippo_tui.ingest.finding import find

    given = [o for o in LOCAL_ONLY if getattr(args, o, None)]
    if given:
        print_error(f"--{given[0]} needs the data folder itself: run it where the server's data folder is")
        return EXIT_USAGE
    try:
        found = find(args.paths)
    except IngestError as e:
        print_error(f"{e.path}: {e.reason}")
        return EXIT_USAGE
    roots = [p.expanduser().resolve() for p in args.paths if p.is_dir()]
    flags = {"dry_run": str(args.dry_run).lower(), "strict": str(args.strict).lower(),
             "keep_demo": str(args.keep_demo).lower()}  # fmt: skip
    try:
        engine = await RemoteEngine.connect(url, token, client="http")
        try:
            with ExitStack() as files:
                parts = [("files", (upload_name(p, roots), files.enter_context(p.open("rb")))) for p in found.paths]
                report = await engine.call("POST", "/v1/kb/ingest", files=parts, data=flags,
                                           timeout=UPLOAD_TIMEOUT)  # fmt: skip
        finally:
            await engine.close()
    except RemoteError as e:
        print_error(f"{e.message}\n  → {e.action}")
        return EXIT_USAGE if e.kind in ("not_found", "usage", "auth") else EXIT_MODEL
    except OSError as e:
        print_error(f"{e.filename}: cannot be read ({e.strerror})")
        return EXIT_USAGE
    report["warnings"] = [one_line(w) for w in found.warnings] + report["warnings"]
    for ext, n in found.unknown.items():  # found here, never sent
        report["not_read_formats"][ext] = report["not_read_formats"].get(ext, 0) + n
    _print(report, args)
    if not report["failed"]:
        return EXIT_OK
    return EXIT_USAGE if args.strict else EXIT_SOME_FAILED


def _print(report: dict[str, Any], args: argparse.Namespace) -> None:
    if args.json:
        print_json(report)
        return
    for d in report["documents"]:
        counts = " · ".join(f"{k} {d[k]}" for k in ("added", "unchanged", "revised", "removed"))
        print(f"{one_line(d['status']):<9} {one_line(d['document'])}: {counts}  ({one_line(d['title'])})")
    head = "dry run, nothing written: would ingest" if report["dry_run"] else "ingested"
    totals = ", ".join(f"{v} {k}" for k, v in report["totals"].items())
    print(f"{head} {len(report['documents'])} documents into '{one_line(report['kb'])}' on the server: "
          f"{totals} passages", file=sys.stderr)  # fmt: skip
    for w in report["warnings"]:
        print(f"warning: {one_line(w)}", file=sys.stderr)
    if report["not_read_formats"]:
        kinds = ", ".join(f"{one_line(k)} {v}" for k, v in report["not_read_formats"].items())
        print(f"not read: files of formats ingest does not read ({kinds})", file=sys.stderr)
    if report["failed"]:
        tail = "; nothing was imported (--strict)" if args.strict else "; the others went in" if report["written"] else ""
        print(f"{len(report['failed'])} files could not be read{tail}:", file=sys.stderr)
        for f in report["failed"]:
            print(f"  {one_line(f['document'])}: {one_line(f['reason'])}", file=sys.stderr)
