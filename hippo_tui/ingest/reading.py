"""Finding documents under the paths given, reading each within the size limit, parsing it by format.

A format's parser (and its library: lxml, pypdf, python-docx) is imported only when a file of that format
is read, so commands that never ingest do not pay for them at start-up.
"""

from __future__ import annotations

import codecs
import hashlib
import importlib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from hippo_tui.ingest.content import keep_content
from hippo_tui.ingest.document import Document, IngestError, Parsed, clean
from hippo_tui.ingest.passages import passages
from hippo_tui.ingest.titles import is_junk
from hippo_tui.ingest.versions import DocumentHead, DocumentReport, IngestItem

MAX_FILE_BYTES = 20 * 1024 * 1024  # 20 MiB: a long national guideline as PDF fits; a stray dump does not
FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".qmd": "markdown",  # Quarto
    ".rmd": "markdown",  # R Markdown
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
    ".pdf": "pdf",
    ".docx": "docx",
}


@dataclass(frozen=True)
class Overrides:
    """``--publisher`` and ``--updated``, and a folder's ``hippo-kb.toml``: they win over what a document
    says about itself."""

    publisher: str | None = None
    updated: date | None = None
    title: str | None = None
    url: str | None = None


def collect(paths: Iterable[Path], *, allow_empty: bool = False) -> list[Path]:
    """Every document under ``paths`` (see ``finding.find``); what was skipped is not reported."""
    from hippo_tui.ingest.finding import find

    return find(paths, allow_empty=allow_empty).paths


def folders_of(paths: Iterable[Path]) -> list[Path]:
    """The folders among ``paths``, resolved: where a document no longer on disk is looked for."""
    return [p.expanduser().resolve() for p in paths if p.expanduser().is_dir()]


def gone(stored: Iterable[str], found: Iterable[Path]) -> list[str]:
    """The ``stored`` document keys that are not among the documents ``found`` and not on disk either."""
    seen = {str(p) for p in found}
    return sorted(key for key in stored if key not in seen and not _maybe_on_disk(key))


def _maybe_on_disk(key: str) -> bool:
    try:
        return Path(key).exists()
    except OSError:  # inside a folder that cannot be read (PermissionError): not known to be gone
        return True


def read_bytes(path: Path) -> bytes:
    """The file's bytes, read only if it is a regular file (a FIFO or device is never read: it can block or
    never end) within the size limit, both checked on the opened file itself."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise IngestError(path, "not a regular file (a pipe, socket or device); not read")
            if info.st_size > MAX_FILE_BYTES:
                raise IngestError(
                    path,
                    f"{info.st_size / 2**20:.1f} MiB is over the {MAX_FILE_BYTES // 2**20} MiB limit per file",
                )
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise IngestError(path, f"cannot read the file ({e.strerror or e})") from None
    if len(data) > MAX_FILE_BYTES:  # it grew since it was measured
        raise IngestError(path, f"over the {MAX_FILE_BYTES // 2**20} MiB limit per file")
    return data


def version_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Longest first: a UTF-32 little-endian BOM starts with the UTF-16 one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip


def decode(data: bytes, path: Path, warnings: list[str] | None = None) -> str:
    """Text by its byte-order mark, else UTF-8, else Windows-1252 (else Latin-1): a Western European file saved by an older editor reads as it was written. A file with NUL
    bytes and no BOM is binary, not text."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as e:
                raise IngestError(
                    path, f"not valid {codec.upper()} text despite its byte-order mark ({e.reason})"
                ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if b"\0" in data:
            line = data.count(b"\n", 0, e.start) + 1
            raise IngestError(path, "not text (binary data)", line=line) from None
    if warnings is not None:
        warnings.append("not UTF-8: read as Windows-1252 (Western European)")
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:  # one of the five bytes cp1252 leaves undefined: Latin-1 reads every byte
        return data.decode("latin-1")


# A ".txt" note written in Markdown (a "# Title" line, "## Section" lines) is read as Markdown.
_MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)


def _parse(fmt: str, data: bytes, path: Path) -> Parsed:
    if fmt not in ("markdown", "text"):
        return importlib.import_module(f"hippo_tui.ingest.{fmt}").parse(data, path)
    warnings: list[str] = []
    text = decode(data, path, warnings)
    if fmt == "text" and _MARKDOWN_HEADING.search(text):
        fmt = "markdown"
    module = importlib.import_module(f"hippo_tui.ingest.{fmt}")
    parsed: Parsed = module.parse(text, path) if fmt == "markdown" else module.parse(text)
    parsed.warnings[:0] = warnings
    return parsed


def _fallback_title(path: Path) -> str:
    """The file name tidied ("cystitis_protocol-v2" -> "Cystitis protocol v2"); its own capitals are kept."""
    words = clean(path.stem.replace("_", " ").replace("-", " "))
    return (words[:1].upper() + words[1:]) or path.name


def parse_document(path: Path, data: bytes, overrides: Overrides, version: str | None = None) -> Document:
    """``data`` (the bytes of ``path``; ``version`` their hash when known) parsed, overrides applied."""
    fmt = FORMATS[path.suffix.lower()]
    parsed = _parse(fmt, data, path)
    sections, dropped = keep_content(parsed.sections)
    return Document(
        key=str(path),
        path=path,
        format=fmt,
        version=version or version_of(data),
        size=len(data),
        title=overrides.title
        or (parsed.title if parsed.title and not is_junk(parsed.title) else _fallback_title(path)),
        sections=sections,
        publisher=overrides.publisher or parsed.publisher,
        url=overrides.url or parsed.url,
        updated=overrides.updated or parsed.updated,
        warnings=parsed.warnings,
        dropped=dropped,
    )


def _is_current(head: DocumentHead | None, version: str, overrides: Overrides) -> bool:
    """The stored document is this very file, and no override asks for different metadata."""
    if head is None or head.version != version:
        return False
    if overrides.publisher is not None and overrides.publisher != head.publisher:
        return False
    if overrides.title is not None and overrides.title != head.title:
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


# Bytes per character of text below which a file is worth a warning: a PDF or Word file is mostly fonts,
# images and compression (a text PDF gives a character per 5-20 bytes), an HTML page mostly markup.
_LOW_YIELD = {"pdf": 200, "docx": 200, "html": 60, "markdown": 8, "text": 8}
_LOW_YIELD_MIN_BYTES = 64 * 1024


def parse_file(path: Path, overrides: Overrides) -> IngestItem:
    """The document at ``path`` read, parsed and cut into passages; a warning when it yields far less text
    than its size suggests (scanned pages among text ones, text in images, a page that is mostly script)."""
    data = read_bytes(path)
    doc = parse_document(path, data, overrides)
    items = passages(doc)
    chars = sum(len(p.excerpt) for p in items)
    if len(data) >= _LOW_YIELD_MIN_BYTES and chars * _LOW_YIELD[doc.format] < len(data):
        doc.warnings.append(
            f"only {chars:,} characters of text from {len(data) / 1024:,.0f} KB: pages as images, or text the "
            "reader could not find?"
        )
    return IngestItem(doc, items)
