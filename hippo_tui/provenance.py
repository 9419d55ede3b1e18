"""Where a passage comes from, as one line a front end, ``kb show`` or an export can print.

Plain Python (no Textual): the sidebar and the audit panel call ``where`` once the UI shows provenance.
"""

from __future__ import annotations

from hippo_tui.models import Provenance
from hippo_tui.safe_text import sanitize


def _one_line(text: str) -> str:
    return " ".join(sanitize(text).split())


def where(title: str, provenance: Provenance | None) -> str:
    """ "Document › Section › Subsection, p. 3": the source's title with its PDF page, when it has one.

    An ingested passage's title is already its document and section path, so only the page is added; a
    hand-written source (no provenance) is its title alone.
    """
    line = _one_line(title)
    if provenance is not None and provenance.page is not None:
        line += f", p. {provenance.page}"
    return line


def origin(provenance: Provenance | None) -> str | None:
    """The document and anchor a passage was ingested from ("/srv/guidance/uti.md#dosing"), or None."""
    if provenance is None:
        return None
    anchor = f"#{provenance.section}" if provenance.section else ""
    return _one_line(provenance.document + anchor)
