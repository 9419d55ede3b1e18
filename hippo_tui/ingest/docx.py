"""Word .docx (python-docx): "Heading N" paragraphs become sections, tables become rows, in body order."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from hippo_tui.ingest.document import IngestError, Parsed, SectionBuilder, clean, table_rows


def _heading_level(style: str) -> int | None:
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        tail = style.removeprefix("Heading ").strip()
        return int(tail) + 1 if tail.isdigit() else None  # Heading 1 sits under the document's title
    return None


def _table(table: Table) -> list[str]:
    rows = [[clean(cell.text) for cell in row.cells] for row in table.rows]
    if len(rows) < 2:
        return table_rows([], rows)
    return table_rows(rows[0], rows[1:])


def parse(data: bytes, path: Path) -> Parsed:
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as e:
        raise IngestError(path, f"not a readable Word document ({e})") from None
    title = clean(document.core_properties.title or "") or None
    out = SectionBuilder(title)
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in _table(block):
                out.add(row, "row")
            continue
        assert isinstance(block, Paragraph)
        style = block.style.name if block.style is not None else ""
        level = _heading_level(style or "")
        if level is not None:
            out.heading(level, block.text)
        else:
            out.add(block.text, "item" if (style or "").startswith("List") else "para")
    return Parsed(sections=out.sections(), title=out.title)
