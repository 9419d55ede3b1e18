"""PDF with a text layer (pypdf): one block per paragraph, each passage keeps its page number.

Sections come from the PDF's outline (bookmarks) when it has one. A PDF with no text on any page (a scan)
or one that needs a password is an error: importing it would give nothing to cite.
"""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError

from hippo_tui.ingest.document import IngestError, Parsed, SectionBuilder, clean

_BLANK = re.compile(r"\n\s*\n")
# pypdf logs what it repaired in a damaged file; the error we raise (or nothing) is what a user needs.
logging.getLogger("pypdf").setLevel(logging.ERROR)


_BOMB = "a stream decompresses past the PDF reader's 75 MB limit"  # pypdf's own cap per stream
_ENCRYPTED = "the PDF is encrypted (it needs a password); save an unprotected copy and ingest that"


def _open(data: bytes, path: Path) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        # An empty user password opens a PDF that is only protected against editing: that one is readable.
        locked = reader.is_encrypted and not reader.decrypt("")
        if not locked:
            len(reader.pages)  # reading the page tree finds most damage up front
    except (FileNotDecryptedError, DependencyError):
        locked = True
    except LimitReachedError:
        raise IngestError(path, _BOMB) from None
    except (PdfReadError, ValueError, KeyError, TypeError) as e:
        raise IngestError(path, f"not a readable PDF ({e})") from None
    if locked:
        raise IngestError(path, _ENCRYPTED)
    return reader


def _outline(reader: PdfReader) -> dict[int, list[tuple[int, str]]]:
    """page index -> the (level, title) outline entries that start on it, in order."""
    starts: dict[int, list[tuple[int, str]]] = {}

    def visit(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                visit(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except (PdfReadError, ValueError, KeyError, TypeError, AttributeError):
                continue
            if page is not None and page >= 0:
                starts.setdefault(page, []).append((level, str(item.title)))

    try:
        visit(reader.outline, 2)  # level 1 is the document title
    except (PdfReadError, ValueError, KeyError, TypeError):
        return {}
    return starts


def _paragraphs(text: str) -> list[str]:
    """A page's text as paragraphs: lines joined (the layer breaks lines where the layout did)."""
    return [clean(p.replace("-\n", "-").replace("\n", " ")) for p in _BLANK.split(text) if p.strip()]


def parse(data: bytes, path: Path) -> Parsed:
    reader = _open(data, path)
    info_title = None
    try:
        info_title = clean(str(reader.metadata.title)) if reader.metadata and reader.metadata.title else None
    except (PdfReadError, ValueError, TypeError):
        pass
    out = SectionBuilder(info_title or None)
    outline = _outline(reader)
    found_text = False
    for index, page in enumerate(reader.pages):
        for level, title in outline.get(index, []):
            out.heading(level, title)
        try:
            text = page.extract_text() or ""
        except LimitReachedError:
            raise IngestError(path, _BOMB, page=index + 1) from None
        except (PdfReadError, ValueError, KeyError, TypeError) as e:
            raise IngestError(path, f"cannot read the page's text ({e})", page=index + 1) from None
        for para in _paragraphs(text):
            found_text = True
            out.add(para, "para", page=index + 1)
    if not found_text:
        raise IngestError(
            path,
            "the PDF has no text layer (an image-only scan?); run it through OCR first, then ingest that",
        )
    return Parsed(sections=out.sections(), title=out.title)
