"""`POST /v1/kb/ingest` (editors): uploaded files into the knowledge base through the same pipeline as
`kb ingest` (parsing in worker processes under the data folder's ingest limits, one transaction, versions
and retired passages), answered with the JSON `kb ingest --json` prints, documents named as uploaded.

The body is ``multipart/form-data``: one ``files`` part per file (its file name the document's name,
folders allowed), and optional ``dry_run``, ``strict``, ``keep_demo`` fields ("true"/"false"). One ingest
runs at a time; answers go on meanwhile (the parse holds no lock; the write is one transaction).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile

from hippo_tui.ingest.reading import FORMATS
from hippo_tui.server.auth import require
from hippo_tui.server.errors import ApiError
from hippo_tui.server.state import ServerState, state
from hippo_tui.server.uploads import BadName, Kept, keep, safe_name, settle

router = APIRouter(prefix="/v1")
MAX_FILES = 500  # in one upload
FLAGS = ("dry_run", "strict", "keep_demo")
_one_at_a_time = asyncio.Lock()


def _flag(value: Any, name: str) -> bool:
    if value is None:
        return False
    if isinstance(value, str) and value.lower() in ("true", "1", "yes", "false", "0", "no", ""):
        return value.lower() in ("true", "1", "yes")
    raise ApiError(422, "invalid", f"{name}: must be true or false")


async def _files(request: Request) -> tuple[list[tuple[str, UploadFile]], dict[str, bool]]:
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise ApiError(415, "invalid", "send the files as multipart/form-data, one 'files' part each")
    form = await request.form(max_files=MAX_FILES, max_fields=len(FLAGS), max_part_size=64)
    unknown = sorted({k for k in form if k not in (*FLAGS, "files")})
    if unknown:
        raise ApiError(422, "invalid", f"{unknown[0][:40]!r}: not a field of an upload (files, {', '.join(FLAGS)})")
    files: list[tuple[str, UploadFile]] = []
    for part in form.getlist("files"):
        if not isinstance(part, UploadFile):
            raise ApiError(422, "invalid", "files: each part must be a file")
        files.append((part.filename or "", part))
    if not files:
        raise ApiError(422, "invalid", "files: no file was sent")
    return files, {f: _flag(form.get(f), f) for f in FLAGS}


def _extension(name: PurePosixPath) -> str:
    return name.suffix.lower() or "(no extension)"  # as kb ingest's folder walk names it


def _names(files: list[tuple[str, UploadFile]]) -> list[PurePosixPath]:
    names = []
    for raw, _ in files:
        try:
            names.append(safe_name(raw))
        except BadName as e:
            raise ApiError(422, "invalid", f"files: {e}") from None
    seen = [str(n).casefold() for n in names]
    twice = next((n for n in names if seen.count(str(n).casefold()) > 1), None)
    if twice is not None:
        raise ApiError(422, "invalid", f"files: {twice} was sent twice")
    return names


@router.post("/kb/ingest")
async def ingest(request: Request) -> dict[str, Any]:
    s = state(request)
    require(s.user(request).edits_kb, "ingest documents (editors only)")
    try:
        files, flags = await _files(request)
        return await _ingest(s, files, flags)
    finally:
        await request.close()  # the spooled upload files, now rather than when collected


async def _ingest(s: ServerState, files: list[tuple[str, UploadFile]], flags: dict[str, bool]) -> dict[str, Any]:
    names = _names(files)
    # A file of a format ingest does not read is counted, as a folder walk counts it, and not kept.
    unread = Counter(_extension(n) for n in names if _extension(n) not in FORMATS)
    chosen = [(n, f) for n, (_, f) in zip(names, files, strict=True) if _extension(n) in FORMATS]
    if not chosen:
        raise ApiError(422, "invalid", f"files: none is of a format ingest reads ({', '.join(sorted(FORMATS))})")
    folder = (s.engine.settings.data_dir() / "uploads" / s.engine.store.path.stem).resolve()  # per store
    async with _one_at_a_time:
        kept: list[Kept] = []
        accepted: set[Path] = set()
        try:
            for name, upload in chosen:
                chunks = iter(lambda u=upload: u.file.read(1 << 16), b"")  # type: ignore[misc]
                kept.append(await asyncio.to_thread(keep, folder, name, chunks))
            report, accepted = await _run(s, [k.path for k in kept], flags, unread)
        except BadName as e:
            raise ApiError(422, "invalid", f"files: {e}") from None
        finally:
            await asyncio.to_thread(settle, kept, accepted)
    return _as_uploaded(report, folder)


async def _run(
    s: ServerState, paths: list[Path], flags: dict[str, bool], unread: Counter[str]
) -> tuple[dict[str, Any], set[Path]]:
    """``kb ingest`` of the kept files: its JSON report, and the files that went in (or would have)."""
    from hippo_tui.ingest.document import IngestError
    from hippo_tui.ingest.finding import find
    from hippo_tui.ingest.limits import Limits
    from hippo_tui.ingest.reading import Overrides
    from hippo_tui.ingest.report import demo_to_replace, report_json
    from hippo_tui.ingest.run import run_ingest

    store, settings = s.engine.store, s.engine.settings
    limits = Limits(settings.ingest_memory_mb, settings.ingest_seconds, settings.ingest_unpacked_mb)
    try:
        found = await asyncio.to_thread(find, paths)
    except IngestError as e:  # not a regular file after all
        raise ApiError(422, "invalid", f"files: {e.reason}") from None
    found.unknown.update(unread)
    now = datetime.now(UTC)
    retire = [] if flags["keep_demo"] else await demo_to_replace(store, now.date())
    name = "documents" if retire else None
    outcome = await run_ingest(store, found.paths, overrides=Overrides(), when=now, dry_run=flags["dry_run"],
                               strict=flags["strict"], retire=retire, kb_name=name, limits=limits,
                               manifests=found.manifests)  # fmt: skip
    demo_retired = len(retire) if outcome.reports and not (flags["strict"] and outcome.failures) else 0
    report = report_json(outcome, found, dry_run=flags["dry_run"], demo_retired=demo_retired,
                         kb_name=name or store.kb_name)  # fmt: skip
    failed = {f.key for f in outcome.failures}
    accepted = {p for p in found.paths if str(p) not in failed} if outcome.written else set()
    return report, accepted


def _as_uploaded(report: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The report with the server's folder taken out of every name: documents as the editor sent them."""
    prefix = str(folder) + "/"

    def name(text: str) -> str:
        return text.replace(prefix, "")

    for key in ("documents", "failed"):
        for row in report[key]:
            row["document"] = name(row["document"])
    report["warnings"] = [name(w) for w in report["warnings"]]
    return report
