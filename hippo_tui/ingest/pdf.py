"""PDF with a text layer (pypdf): one block per paragraph, each passage keeps its page number.

Sections come from the PDF's outline (bookmarks) when it has one. A PDF with no text on any page (a scan)
or one that needs a password is an error: importing it would give nothing to cite.
"""

from __future__ import annotations

import io
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError

from hippo_tui.ingest import pdf_layout, pdf_text, titles
from hippo_tui.ingest.document import BlockKind, IngestError, Parsed, SectionBuilder, clean

_BLANK = re.compile(r"\n\s*\n")
_KEPT_HYPHEN = re.compile(r"(?<=[A-Za-z])-\n")  # "beta-\nblocker" that rejoin_hyphens kept: one word
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
            title = clean(str(item.title))
            if page is not None and page >= 0 and title and not title.startswith("_"):  # "_GoBack": Word's
                starts.setdefault(page, []).append((level, title))

    try:
        visit(reader.outline, 2)  # level 1 is the document title
    except (PdfReadError, ValueError, KeyError, TypeError):
        return {}
    return starts


def _paragraphs(text: str, words: Counter[str]) -> list[tuple[str, BlockKind]]:
    """A page's text as paragraphs and table rows: line-break hyphens rejoined, lines joined (the layer
    breaks lines where the layout did) except a table's rows, a drop cap rejoined to its word."""
    text = pdf_text.rejoin_split_ligatures(pdf_text.rejoin_hyphens(text, words), words)
    out: list[tuple[str, BlockKind]] = []
    for block in _BLANK.split(_KEPT_HYPHEN.sub("-", text)):
        for part, row in pdf_text.rows_and_text(block):
            para = pdf_text.rejoin_spaced_hyphens(clean(part), words)
            if para:
                out.append((para, "row") if row else (pdf_text.drop_cap(para, words), "para"))
    return out


def _read_pages(reader: PdfReader, path: Path) -> list[pdf_layout.Page]:
    pages = []
    for index, page in enumerate(reader.pages):
        try:
            read = pdf_layout.read_page(page)
        except LimitReachedError:
            raise IngestError(path, _BOMB, page=index + 1) from None
        except (PdfReadError, ValueError, KeyError, TypeError) as e:
            raise IngestError(path, f"cannot read the page's text ({e})", page=index + 1) from None
        finally:
            _release(page)
        read.text = pdf_text.ligatures(read.text)
        pages.append(read)
    return pages


def _release(page: Any) -> None:
    """Forget the page's decompressed content: pypdf keeps it on the stream object for as long as the
    reader lives, so a file of pages with 70 MB streams each held all of them at once. The page's own
    content and its form XObjects only (fonts are shared between pages and are worth keeping)."""
    try:
        streams = _resolved_list(page.get("/Contents"))
        resources = page.get("/Resources")
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        if xobjects is not None:
            streams += list(xobjects.get_object().values())
        for stream in streams:
            stream = stream.get_object()
            if getattr(stream, "decoded_self", None) is not None:
                stream.decoded_self = None
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError):
        return


def _resolved_list(obj: Any) -> list[Any]:
    obj = obj.get_object() if obj is not None else None
    return [] if obj is None else list(obj) if isinstance(obj, list) else [obj]


def _continues(line: str) -> bool:
    """A heading's second line, or a label's unit: "system and its management", "(years)" — short, and
    starting where a heading would not (lower case, a bracket), not a sentence."""
    line = line.strip()
    return 0 < len(line) <= 60 and (line[0].islower() or line[0] == "(") and not line.endswith(".")


def _segments(text: str, heads: dict[str, int]) -> list[tuple[int, str]]:
    """A page's text cut at its heading lines: (level, heading) and (0, text between)."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    for line in text.splitlines():
        level = heads.get(pdf_layout.key(line)) if line.strip() else None
        if level is None and not pending and out and out[-1][0] and _continues(line):
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}")  # the heading's second line
            continue
        if level is None:
            pending.append(line)
            continue
        if pending:
            out.append((0, "\n".join(pending)))
            pending = []
        out.append((level, line))
    if pending:
        out.append((0, "\n".join(pending)))
    return out


def _without_title(page: str, title: str) -> str:
    """Page 1 without the lines that make up its printed title (the title is the document's, not a passage)."""
    lines = page.splitlines()
    taken = ""
    for i, line in enumerate(lines):
        taken = " ".join((taken + " " + line).split())
        if taken == title:
            return "\n".join(lines[i + 1 :])
        if not title.startswith(taken):
            break
    return page


_WORD_SECTION = re.compile(r"^Sec\d+:")  # Word's export labels pages "Sec1:3"; the page prints "3"


def _page_labels(reader: PdfReader) -> list[str | None]:
    """Each page's printed label (``/PageLabels``: "84" on the PDF's 97th page, "iv" in a foreword) where
    it differs from the page's index from 1, else None: provenance keeps both numbers."""
    try:
        labels = list(reader.page_labels) if "/PageLabels" in reader.root_object else []
    except (PdfReadError, ValueError, KeyError, TypeError, IndexError):
        labels = []
    if len(labels) != len(reader.pages):
        return [None] * len(reader.pages)
    printed = [clean(_WORD_SECTION.sub("", label)) for label in labels]
    return [label if label and label != str(i + 1) else None for i, label in enumerate(printed)]


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        title = clean(str(reader.metadata.title)) if reader.metadata and reader.metadata.title else None
        title = title and titles.tidy_metadata(title)
    except (PdfReadError, ValueError, TypeError):
        return None
    return None if title is None or titles.is_junk(title) else title


def parse(data: bytes, path: Path) -> Parsed:
    reader = _open(data, path)
    pages = _read_pages(reader, path)
    if not any(p.text.strip() for p in pages):
        raise IngestError(
            path,
            "the PDF has no text layer (an image-only scan?); run it through OCR first, then ingest that",
        )
    texts = [p.text for p in pages]
    running = pdf_text.running_lines(texts)
    texts = [pdf_text.drop_running(t, running) for t in texts]
    words = pdf_text.vocabulary(texts)
    metadata = _metadata_title(reader)
    printed = None if metadata else titles.printed_title(pages[0].lines)
    printed = printed and titles.spaced_as(pdf_text.ligatures(printed), pages[0].text)
    if printed:
        texts[0] = _without_title(texts[0], printed)
    out = SectionBuilder(metadata or printed)
    outline = _outline(reader)
    # A real outline (a few entries at least) gives the sections; else the headings as printed.
    heads = [{} for _ in pages] if sum(map(len, outline.values())) >= 3 else pdf_layout.headings(pages)
    for index, (text, label) in enumerate(zip(texts, _page_labels(reader), strict=True)):
        for level, heading in outline.get(index, []):
            out.heading(level, heading)
        for level, segment in _segments(text, heads[index]):
            if level:
                out.heading(level, segment)
                continue
            for para, kind in _paragraphs(segment, words):
                out.add(para, kind, page=index + 1, label=label)
    return Parsed(sections=out.sections(), title=out.title)
