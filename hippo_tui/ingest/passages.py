"""A document's sections cut into passages of 2–5 whole sentences, each with an id that survives re-ingests.

A passage's id is a UUID derived from the document's key, its wording and how many identical passages came
before it in the document: re-ingesting the same wording gives the same id (a citation keeps resolving),
and two identical passages in one document (a repeated warning) still get two ids.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from hippo_tui.ingest.document import Block, Document, IngestError, Section
from hippo_tui.ingest.titles import collapse
from hippo_tui.provenance import with_label
from hippo_tui.store.sources import MAX_EXCERPT_CHARS
from hippo_tui.verification.markers import split_sentences

MIN_SENTENCES, MAX_SENTENCES = 2, 5
TARGET_CHARS = 450  # a passage closes once it has MIN_SENTENCES and this much text
BODY_CHARS = 2000  # a passage's body: the rest of its section, the nearest passages up to this much
# The hard ceiling of an excerpt (``kb import`` refuses excerpts over it too): a run of text without full
# stops (a PDF page with no blank lines, a row of merged cells) is cut at clause or word boundaries below it
# rather than become one huge passage that every search's snippet and every check must scan.
MAX_PASSAGE_CHARS = MAX_EXCERPT_CHARS
TITLE_SEPARATOR = " › "
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "hippo-tui:passage")


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    excerpt: str
    body: str | None
    anchor: str | None
    page: int | None


@dataclass
class _Chunk:
    units: list[tuple[str, bool]]  # (text, whether it is a sentence of a paragraph)
    page: int | None
    label: str | None = None  # the page's printed label where it differs from ``page``


def _units(block: Block) -> list[str]:
    """Sentences of a paragraph; a list item, table row or code block is one unit whatever its punctuation;
    any unit over MAX_PASSAGE_CHARS cut into pieces under it."""
    units = split_sentences(block.text) if block.kind == "para" else [block.text]
    if all(len(u) <= MAX_PASSAGE_CHARS for u in units):
        return units
    return [piece for u in units for piece in cut(u, MAX_PASSAGE_CHARS)]


def cut(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, each ending at the last "; ", ", " or space
    before the limit (a hard cut only inside a word longer than the limit)."""
    out = []
    while len(text) > limit:
        window = text[: limit + 1]
        at = max(window.rfind("; "), window.rfind(", "))
        at = at + 1 if at >= limit // 2 else window.rfind(" ")
        at = at if at > 0 else limit
        out.append(text[:at].strip())
        text = text[at:].strip()
    return [*out, text] if text else out


def _chunks(section: Section) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    current: _Chunk | None = None
    size = 0  # characters in ``current``
    for block in section.blocks:
        for unit in _units(block):
            if current is not None and (current.page != block.page or size + len(unit) >= MAX_PASSAGE_CHARS):
                chunks.append(current)  # a passage never spans two pages, nor passes the ceiling
                current = None
            if current is None:
                current, size = _Chunk([], block.page, block.label), 0
            current.units.append((unit, block.kind == "para"))
            size += len(unit) + 1  # and its separator
            if len(current.units) >= MAX_SENTENCES or (
                len(current.units) >= MIN_SENTENCES and size >= TARGET_CHARS
            ):
                chunks.append(current)
                current = None
    if current is not None:
        chunks.append(current)
    return _merge_short_tail(chunks)


def _merge_short_tail(chunks: list[_Chunk]) -> list[_Chunk]:
    """A lone last sentence joins the passage before it (same page, room left) rather than stand alone."""
    if len(chunks) >= 2:
        tail, before = chunks[-1], chunks[-2]
        room = sum(len(t) + 1 for t, _ in before.units + tail.units) < MAX_PASSAGE_CHARS
        if (
            len(tail.units) < MIN_SENTENCES
            and before.page == tail.page
            and len(before.units) < MAX_SENTENCES
            and room
        ):
            before.units += tail.units
            chunks.pop()
    return chunks


def _excerpt(chunk: _Chunk) -> str:
    """Sentences of a paragraph run on with spaces; list items and table rows keep a line each."""
    out = chunk.units[0][0]
    for (_, before), (text, sentence) in zip(chunk.units, chunk.units[1:], strict=False):
        out += (" " if before and sentence else "\n") + text
    return out


def _bodies(excerpts: list[str]) -> list[str | None]:
    """Each passage's body: the rest of its section (the other passages, nearest first up to BODY_CHARS,
    shown in document order), as the hand-written KB's body is the text around its excerpt."""
    out: list[str | None] = []
    for i in range(len(excerpts)):
        picked: list[int] = []
        size, step = 0, 1
        while size < BODY_CHARS and (i - step >= 0 or i + step < len(excerpts)):
            for j in (i - step, i + step):
                if 0 <= j < len(excerpts) and size < BODY_CHARS:
                    picked.append(j)
                    size += len(excerpts[j])
            step += 1
        out.append("\n\n".join(excerpts[j] for j in sorted(picked)) or None)
    return out


def passage_id(key: str, excerpt: str, occurrence: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{key}\n{occurrence}\n{excerpt}"))


def _section_passages(doc: Document, section: Section, seen: dict[str, int]) -> Iterator[Passage]:
    title = TITLE_SEPARATOR.join(collapse([doc.title, *section.headings]))
    chunks = _chunks(section)
    excerpts = [_excerpt(c) for c in chunks]
    for chunk, excerpt, body in zip(chunks, excerpts, _bodies(excerpts), strict=True):
        n = seen.get(excerpt, 0)
        seen[excerpt] = n + 1
        yield Passage(
            id=passage_id(doc.key, excerpt, n),
            title=title,
            excerpt=excerpt,
            body=body,
            anchor=with_label(section.anchor, chunk.label),  # the store keeps the label on the anchor
            page=chunk.page,
        )


def passages(doc: Document) -> list[Passage]:
    """Every passage of ``doc`` in document order. A document without any text is an error, not nothing."""
    seen: dict[str, int] = {}
    out = [p for section in doc.sections for p in _section_passages(doc, section, seen)]
    if not out and doc.dropped:
        raise IngestError(
            doc.path, "nothing to cite: only contents, navigation, references or text without words"
        )
    if not out:
        raise IngestError(doc.path, "no text found in the document")
    return out
