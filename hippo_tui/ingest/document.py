"""What every format parser produces: a document's sections, each a run of text blocks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Literal

from hippo_tui.ingest.titles import tidy_heading
from hippo_tui.safe_text import sanitize

BlockKind = Literal["para", "item", "row", "code"]


class IngestError(ValueError):
    """A document that cannot be ingested; the message names the file (and page or line)."""

    def __init__(self, path: Path | str, message: str, *, line: int | None = None, page: int | None = None):
        self.path, self.line, self.page = path, line, page
        where = f"page {page}: " if page is not None else f"line {line}: " if line is not None else ""
        self.reason = f"{where}{message}"  # what a run's list of failed files shows beside the name
        super().__init__(f"{path}: {self.reason}")


@dataclass(frozen=True)
class Block:
    """A paragraph, list item, table row or code block: the units passages are cut from."""

    text: str
    kind: BlockKind = "para"
    page: int | None = None  # a PDF's page index, from 1
    line: int | None = None  # where it starts in the file, for error messages
    label: str | None = None  # the page's printed label, where it differs from ``page`` ("84", "iv")


@dataclass
class Section:
    headings: tuple[str, ...]  # the heading path below the document title; () before the first heading
    anchor: str | None
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Parsed:
    """A parser's result, before the file's key, version and overrides are attached."""

    sections: list[Section]
    title: str | None = None
    publisher: str | None = None
    url: str | None = None
    updated: date | None = None
    warnings: list[str] = field(default_factory=list)  # read, but something was left out (a bad date)


def clean(text: str) -> str:
    """Document text made inert (no escape sequences or controls) with its whitespace collapsed."""
    return " ".join(sanitize(text).split())


def slug(text: str) -> str:
    """A heading's anchor the way Markdown renderers write it: lower case, words joined by '-'."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def table_rows(header: list[str], rows: list[list[str]]) -> list[str]:
    """Each data row as one self-contained line ("Drug: nitrofurantoin; Dose: 100 mg"), citable alone."""
    out = []
    for row in rows:
        cells = [c for c in row]
        if header and len(header) == len(cells):
            pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True) if c]
        else:
            pairs = [c for c in cells if c]
        if pairs:
            out.append("; ".join(pairs))
    return out


class SectionBuilder:
    """Collects headings and blocks in document order into sections with unique anchors.

    The document's first heading, when it is a level-1 heading before any text, is its title rather than a
    section (a Markdown protocol usually opens with ``# Title``); a title given by metadata wins over it.
    """

    def __init__(self, title: str | None = None) -> None:
        self.title = title
        self._stack: list[tuple[int, str]] = []
        self._sections: list[Section] = [Section((), None)]
        self._anchors: dict[str, int] = {}

    def heading(self, level: int, text: str) -> None:
        text = tidy_heading(clean(text))
        if not text:
            return
        first = not self._stack and not any(s.blocks for s in self._sections)
        if level == 1 and first and (self.title is None or text.casefold() == self.title.casefold()):
            self.title = self.title or text
            return
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        base = slug(text)
        n = self._anchors.get(base, 0)
        self._anchors[base] = n + 1
        anchor = base if n == 0 else f"{base}-{n}"
        self._sections.append(Section(tuple(t for _, t in self._stack), anchor))

    def add(
        self,
        text: str,
        kind: BlockKind = "para",
        *,
        page: int | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> None:
        text = sanitize(text).strip() if kind == "code" else clean(text)
        if text:
            self._sections[-1].blocks.append(Block(text, kind, page, line, label))

    def sections(self) -> list[Section]:
        kept = [s for s in self._sections if s.blocks]
        if kept:
            return kept
        # A page whose text is all in headings (a one-page summary set in <h1>-<h4>): the headings are the text.
        return [
            Section(s.headings[:-1], s.anchor, [Block(s.headings[-1])]) for s in self._sections if s.headings
        ]


@dataclass
class Document:
    """A read document: its key (resolved path), version (sha256 of its bytes) and sections."""

    key: str
    path: Path
    format: str
    version: str
    size: int
    title: str
    sections: list[Section]
    publisher: str | None = None
    url: str | None = None
    updated: date | None = None
    warnings: list[str] = field(default_factory=list)
    dropped: int = 0  # blocks left out as not content (contents, navigation, references)
