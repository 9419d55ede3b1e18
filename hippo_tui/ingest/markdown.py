"""Markdown (CommonMark and tables, through markdown-it-py): headings become sections, front matter metadata."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from hippo_tui.ingest import front_matter, html
from hippo_tui.ingest.document import Parsed, SectionBuilder, clean, table_rows

# The core "inline" rule is off: most paragraphs of a protocol have no inline markup at all, and for them
# the inline parser (a third of the parse) would only hand back the text. ``_inline_text`` parses the rest.
_MD = MarkdownIt("commonmark").enable("table").disable("inline")
# Characters that can open inline markup in CommonMark (escape, code, emphasis, link, image, autolink or
# HTML, entity). Text without any is its own plain text; line breaks become spaces, as softbreaks do.
_INLINE_MARKUP = re.compile(r"[\\`*_\[<&]")


# A paragraph longer than this is not parsed for inline markup (its marks are dropped instead): markdown-it
# recurses into nested emphasis and links, and 20 MB of one paragraph dense with it overflows the C stack.
INLINE_PARSE_CHARS = 100_000
# HTML in a table cell or paragraph that ends a line or an item ("<li>Shaking</li><li>Moderate</li>",
# "cumulative<br>Infusion"): dropped, it would run its words together.
_BREAKING_TAG = re.compile(r"</?(br|li|ol|ul|p|div|tr|td|th|hr|dd|dt|dl|table|blockquote|h[1-6])\b", re.I)
_MARKS = re.compile(r"[\\`*_<>]+|!?\[|\]\([^)\s]*\)|\]")


def _inline_text(token: Any) -> str:
    if _INLINE_MARKUP.search(token.content) is None:
        return token.content.replace("\n", " ")
    if len(token.content) > INLINE_PARSE_CHARS:
        return _MARKS.sub("", token.content).replace("\n", " ")
    parts = []
    for child in _MD.inline.parse(token.content, _MD, {}, []):
        if child.type in ("text", "text_special", "code_inline"):
            parts.append(child.content)
        elif child.type == "image":
            parts.append(child.content)  # its alt text
        elif child.type in ("softbreak", "hardbreak") or (
            child.type == "html_inline" and _BREAKING_TAG.match(child.content)
        ):
            parts.append(" ")
    return "".join(parts)


# markdown-it stops reading a container's content at this depth (its maxNesting), without a word.
_MAX_NESTING: int = _MD.options["maxNesting"]


def _past_nesting(tokens: list[Any]) -> bool:
    """A quote or list opened at the deepest level markdown-it reads and closed with nothing read inside:
    what it held was dropped."""
    return any(
        t.nesting == 1 and t.level >= _MAX_NESTING - 1 and after.nesting == -1
        for t, after in pairwise(tokens)
    )


def _table(tokens: list[Any], i: int) -> tuple[list[str], int]:
    """The rows of the table opening at ``tokens[i]``, and the index after it."""
    header: list[str] = []
    rows: list[list[str]] = []
    row: list[str] = []
    in_head = False
    while tokens[i].type != "table_close":
        t = tokens[i]
        if t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            row = []
        elif t.type == "inline":
            row.append(clean(_inline_text(t)))
        elif t.type == "tr_close" and in_head:
            header.extend(row)
        elif t.type == "tr_close":
            rows.append(row)
        i += 1
    return table_rows(header, rows), i + 1


def parse(text: str, path: Path) -> Parsed:
    fields, body, offset = front_matter.split(text)
    warnings: list[str] = []
    updated = front_matter.front_matter_date(fields, warnings)
    out = SectionBuilder(fields.get("title") or None)
    tokens = _MD.parse(body)
    if _past_nesting(tokens):
        warnings.append(
            f"quotes or lists nested deeper than {_MAX_NESTING} levels: the text past that depth was not read"
        )
    depth = 0  # inside a list item: its paragraphs are items
    i = 0
    while i < len(tokens):
        t = tokens[i]
        line = offset + t.map[0] + 1 if t.map else None
        if t.type == "heading_open":
            out.heading(int(t.tag[1]), _inline_text(tokens[i + 1]))
            i += 3
            continue
        if t.type == "table_open":
            rows, i = _table(tokens, i)
            for row in rows:
                out.add(row, "row", line=line)
            continue
        if t.type == "list_item_open":
            depth += 1
        elif t.type == "list_item_close":
            depth -= 1
        elif t.type == "inline":
            out.add(_inline_text(t), "item" if depth else "para", line=line)
        elif t.type == "html_block":  # e.g. a dose table written as HTML: read as the HTML reader does
            html.walk_fragment(t.content, out, line)
        elif t.type in ("fence", "code_block"):
            out.add(t.content, "code", line=line)
        i += 1
    return Parsed(
        sections=out.sections(),
        title=out.title,
        publisher=fields.get("publisher") or None,
        url=fields.get("url") or None,
        updated=updated,
        warnings=warnings,
    )
