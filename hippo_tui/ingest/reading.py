"""Finding documents under the paths given, reading each within the size limit, parsing it by format.

A format's parser (and its library: lxml, pypdf, python-docx) is imported only when a file of that format
is read, so commands that never ingest do not pay for them at start-up.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from hippo_tui.ingest.document import Document, IngestError, Parsed, clean
from hippo_tui.ingest.passages import passages
from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem

MAX_FILE_BYTES = 20 * 1024 * 1024  # 20 MiB: a long national guideline as PDF fits; a stray dump does not
FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
    ".pdf": "pdf",
    ".docx": "docx",
}


@dataclass(frozen=True)
class Overrides:
    """``--publisher`` and ``--updated``: they win over what a document says about itself."""

    publisher: str | None = None
    updated: date | None = None


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # .git, .obsidian, …
        for name in sorted(files):
            if not name.startswith(".") and Path(name).suffix.lower() in FORMATS:
                yield Path(root) / name


def collect(paths: Iterable[Path], *, allow_empty: bool = False) -> list[Path]:
    """Every document under ``paths`` (folders recursively; hidden entries skipped), each once, in order.

    Finding none is an error unless ``allow_empty`` (``--prune`` of a folder whose documents were all
    deleted)."""
    found: dict[Path, None] = {}
    for path in paths:
        path = path.expanduser()
        if path.is_dir():
            found.update(dict.fromkeys(p.resolve() for p in _walk(path)))
        elif path.is_file():
            if path.suffix.lower() not in FORMATS:
                known = ", ".join(sorted(FORMATS))
                raise IngestError(path, f"not a format ingest reads (it reads {known})")
            found[path.resolve()] = None
        else:
            raise IngestError(path, "no such file or folder")
    if not found and not allow_empty:
        raise IngestError(
            ", ".join(str(p) for p in paths), "no documents found (.md, .html, .txt, .pdf, .docx)"
        )
    return list(found)


def folders_of(paths: Iterable[Path]) -> list[Path]:
    """The folders among ``paths``, resolved: where a document no longer on disk is looked for."""
    return [p.expanduser().resolve() for p in paths if p.expanduser().is_dir()]


def gone(stored: Iterable[str], found: Iterable[Path]) -> list[str]:
    """The ``stored`` document keys that are not among the documents ``found`` and not on disk either."""
    seen = {str(p) for p in found}
    return sorted(key for key in stored if key not in seen and not Path(key).exists())


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise IngestError(
                path, f"{size / 2**20:.1f} MiB is over the {MAX_FILE_BYTES // 2**20} MiB limit per file"
            )
        return path.read_bytes()
    except OSError as e:
        raise IngestError(path, f"cannot read the file ({e.strerror or e})") from None


def version_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise IngestError(path, "not valid UTF-8 text (save it as UTF-8)", line=line) from None


def _parse(fmt: str, data: bytes, path: Path) -> Parsed:
    module = importlib.import_module(f"hippo_tui.ingest.{fmt}")
    if fmt == "markdown":
        return module.parse(decode(data, path), path)
    if fmt == "text":
        return module.parse(decode(data, path))
    return module.parse(data, path)


def _fallback_title(path: Path) -> str:
    return clean(path.stem.replace("_", " ").replace("-", " ")).capitalize() or path.name


def parse_document(path: Path, data: bytes, overrides: Overrides, version: str | None = None) -> Document:
    """``data`` (the bytes of ``path``; ``version`` their hash when known) parsed, overrides applied."""
    fmt = FORMATS[path.suffix.lower()]
    parsed = _parse(fmt, data, path)
    return Document(
        key=str(path),
        path=path,
        format=fmt,
        version=version or version_of(data),
        size=len(data),
        title=parsed.title or _fallback_title(path),
        sections=parsed.sections,
        publisher=overrides.publisher or parsed.publisher,
        url=parsed.url,
        updated=overrides.updated or parsed.updated,
    )


def _is_current(head: DocumentHead | None, version: str, overrides: Overrides) -> bool:
    """The stored document is this very file, and no override asks for different metadata."""
    if head is None or head.version != version:
        return False
    if overrides.publisher is not None and overrides.publisher != head.publisher:
        return False
    return overrides.updated is None or overrides.updated.isoformat() == head.updated


def skipped(path: Path, head: DocumentHead | None, overrides: Overrides) -> DocumentReport | None:
    """The skipped report of ``path`` when ``head`` (its stored version) is this very file and no override
    differs (read and hashed, not parsed); None when it must be parsed."""
    if head is None:
        return None
    version = version_of(read_bytes(path))
    if not _is_current(head, version, overrides):
        return None
    return DocumentReport(
        str(path), head.title, FORMATS[path.suffix.lower()], version, "skipped", unchanged=head.passages
    )


def parse_file(path: Path, overrides: Overrides) -> IngestItem:
    """The document at ``path`` read, parsed and cut into passages."""
    data = read_bytes(path)
    doc = parse_document(path, data, overrides)
    return IngestItem(doc, passages(doc))
