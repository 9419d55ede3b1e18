"""Small PDF and Word files for the ingest tests, made here rather than by hand.

``pdf_bytes`` writes a real PDF (Helvetica text on each page, an optional outline) by hand-assembling its
objects, so the text layer is exactly the text given; pypdf only adds the outline and encryption.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


# Ligature glyphs drawn through codes 1-5 of the font, mapped back to U+FB00-FB04 by its ToUnicode CMap
# (what a typeset PDF does); pypdf then reads the ligature characters back.
_LIGATURE_CODES = {chr(0xFB00 + i): chr(1 + i) for i in range(5)}
_TO_UNICODE = (
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lig def /CMapType 2 def\n"
    "1 begincodespacerange <00> <FF> endcodespacerange\n5 beginbfchar\n"
    + "".join(f"<{1 + i:02X}> <{0xFB00 + i:04X}>\n" for i in range(5))
    + "endbfchar\n1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap "
    "defineresource pop end end"
)


def _content(paragraphs: Sequence[str]) -> bytes:
    """One paragraph per text line, a blank line between paragraphs (what a text layer reads back). A
    paragraph's own newlines are line breaks inside it; one starting with "# " is drawn at 20 pt (a title),
    "## " at 15 pt (a heading)."""
    lines = ["BT", "/F1 11 Tf", "14 TL", "72 760 Td"]
    for para in paragraphs:
        marks = len(para) - len(para.lstrip("#"))
        big = marks in (1, 2) and para[marks : marks + 1] == " "
        if big:
            lines.append("/F1 20 Tf 28 TL" if marks == 1 else "/F1 15 Tf 20 TL")
            para = para[marks + 1 :]
        for line in para.split("\n"):
            text = "".join(_LIGATURE_CODES.get(c, c) for c in line)
            lines.append(f"({_escape(text)}) Tj T*")
        lines.append("T*" if not big else "T* /F1 11 Tf 14 TL")
    lines.append("ET")
    return "\n".join(lines).encode("latin-1")


def _raw_pdf(pages: Sequence[Sequence[str]], title: str | None) -> bytes:
    n = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{4 + 2 * i} 0 R".encode() for i in range(n))
        + b"] /Count %d >>" % n,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode %d 0 R >>"
        % (4 + 2 * n),
    ]
    for i, paragraphs in enumerate(pages):
        stream = _content(paragraphs) if paragraphs else b""
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    cmap = _TO_UNICODE.encode()
    objects.append(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
    if title is not None:
        objects.append(f"<< /Title ({_escape(title)}) >>".encode("latin-1"))
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    info = b" /Info %d 0 R" % len(objects) if title is not None else b""
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    )
    return out.getvalue()


def pdf_bytes(
    pages: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    outline: Sequence[tuple[str, int]] = (),
    password: str | None = None,
) -> bytes:
    """A PDF whose page i holds ``pages[i]`` (paragraphs; an empty page has no text at all)."""
    raw = _raw_pdf(pages, title)
    if not outline and password is None:
        return raw
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw)))
    for heading, page in outline:
        writer.add_outline_item(title=heading, page_number=page)
    if password is not None:
        writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def write_docx(path: Path, title: str, blocks: Sequence[tuple[str, str]]) -> Path:
    """A .docx with a Title paragraph, then (style, text) paragraphs; style "table" is a "|"-separated row."""
    import docx

    document = docx.Document()
    document.add_paragraph(title, style="Title")
    rows: list[list[str]] = []
    for style, text in [*blocks, ("end", "")]:
        if style == "table":
            rows.append(text.split("|"))
            continue
        if rows:
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = cell
            rows = []
        if style != "end":
            document.add_paragraph(text, style=style)
    document.save(str(path))
    return path


def docx_with_part(path: Path, document_xml: str) -> Path:
    """A real .docx (python-docx's template) whose ``word/document.xml`` is replaced by ``document_xml``."""
    write_docx(path, "Template", [])
    parts = {}
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    parts["word/document.xml"] = document_xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path
