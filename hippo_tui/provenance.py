"""Where a passage comes from, as one line a front end, ``kb show`` or an export can print.

Plain Python (no Textual): the sidebar and the audit panel call ``where`` once the UI shows provenance.

A PDF page has two numbers when the PDF has printed page labels: the label a reader sees on the page
("84", "iv") and the PDF's own page index (97, what a viewer's "go to page" and ``#page=`` take). The
stored ``page`` is the index; a label that differs from it rides on the stored section anchor after
``LABEL_MARK`` ("dosing@label=84"), so no stored field is added for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippo_tui.safe_text import sanitize

if TYPE_CHECKING:
    from hippo_tui.models import Provenance

LABEL_MARK = "@label="  # never in an anchor (slugs are [a-z0-9-])


def _one_line(text: str) -> str:
    return " ".join(sanitize(text).split())


def with_label(anchor: str | None, label: str | None) -> str | None:
    """The stored section: ``anchor`` with the printed page ``label`` appended when there is one."""
    return anchor if not label else f"{anchor or ''}{LABEL_MARK}{label}"


def split_label(section: str | None) -> tuple[str | None, str | None]:
    """(the section's anchor, the printed page label) from a stored section."""
    if section is None or LABEL_MARK not in section:
        return section, None
    anchor, _, label = section.partition(LABEL_MARK)
    return anchor or None, label or None


def page_text(provenance: Provenance | None) -> str | None:
    """ "84 (PDF p. 97)" where the printed label differs from the PDF's page index, "97" where not."""
    if provenance is None or provenance.page is None:
        return None
    label = split_label(provenance.section)[1]
    return f"{_one_line(label)} (PDF p. {provenance.page})" if label else str(provenance.page)


def where(title: str, provenance: Provenance | None) -> str:
    """ "Document › Section › Subsection, p. 84 (PDF p. 97)": the source's title with its PDF page.

    An ingested passage's title is already its document and section path, so only the page is added; a
    hand-written source (no provenance) is its title alone.
    """
    line = _one_line(title)
    page = page_text(provenance)
    return f"{line}, p. {page}" if page else line


def origin(provenance: Provenance | None) -> str | None:
    """The document and anchor a passage was ingested from ("/srv/guidance/uti.md#dosing"), or None."""
    if provenance is None:
        return None
    section = split_label(provenance.section)[0]
    anchor = f"#{section}" if section else ""
    return _one_line(provenance.document + anchor)
