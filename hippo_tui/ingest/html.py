"""HTML (lxml's libxml2 parser, forgiving of real-world markup): main content only.

Navigation, headers, footers, asides, forms, scripts and styles are dropped before any text is read; when
the page marks its main content (``<main>``, ``role="main"``, ``<article>``) only that is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lxml.html
from lxml import etree

from hippo_tui.ingest import front_matter
from hippo_tui.ingest.document import IngestError, Parsed, SectionBuilder, clean, table_rows

_DROP = (
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "button",
    "iframe", "svg", "select", "dialog",
)  # fmt: skip
_DROP_ROLES = ("navigation", "banner", "contentinfo", "search", "complementary")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = ("p", "pre", "dt", "dd", "caption", "figcaption", "blockquote", "address", "summary")
_LISTS = ("ul", "ol", "dl")
# Elements that make their parent a container to walk rather than one paragraph of text.
_BLOCKISH = frozenset(
    (*_HEADINGS, *_BLOCKS, *_LISTS, "li", "table", "div", "section", "article", "main", "br")
)


# No network, no entity expansion from a DTD, libxml2's default depth and size caps (no huge_tree).
_PARSER = lxml.html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True)


def _text(el: Any) -> str:
    return clean(el.text_content())


def _main(root: Any) -> Any:
    for xpath in ("//main", "//*[@role='main']", "//article"):
        found = root.xpath(xpath)
        if found:
            return found[0]
    body = root.find("body")
    return body if body is not None else root


def _drop_chrome(root: Any) -> None:
    roles = " or ".join(f"@role='{r}'" for r in _DROP_ROLES)
    names = " or ".join(f"self::{t}" for t in _DROP)
    for el in root.xpath(f"//*[{names} or {roles} or @hidden or @aria-hidden='true']"):
        el.drop_tree()


def _table(el: Any) -> list[str]:
    header: list[str] = []
    rows: list[list[str]] = []
    for tr in el.iter("tr"):
        cells = [c for c in tr if c.tag in ("th", "td")]
        texts = [_text(c) for c in cells]
        if not header and not rows and cells and all(c.tag == "th" for c in cells):
            header = texts
        else:
            rows.append(texts)
    return table_rows(header, rows)


def _has_blocks(el: Any) -> bool:
    return any(isinstance(d.tag, str) and d.tag.lower() in _BLOCKISH for d in el.iterdescendants())


def _walk(el: Any, out: SectionBuilder) -> None:
    """Headings, paragraphs, list items and table rows of ``el`` in document order."""
    for child in el:
        if not isinstance(child.tag, str):
            continue  # comments and processing instructions
        tag, line = child.tag.lower(), child.sourceline
        if tag in _HEADINGS:
            out.heading(_HEADINGS[tag], _text(child))
        elif tag == "table":
            for row in _table(child):
                out.add(row, "row", line=line)
        elif tag == "pre":
            out.add(child.text_content(), "code", line=line)
        elif tag == "li":
            nested = [c for c in child if isinstance(c.tag, str) and c.tag.lower() in _LISTS]
            for c in nested:
                child.remove(c)
            out.add(_text(child), "item", line=line)
            for c in nested:
                _walk(c, out)
        elif tag in _BLOCKS or not _has_blocks(child):
            out.add(_text(child), "para", line=line)
        else:
            if child.text and child.text.strip():  # text directly in a <div> before its blocks
                out.add(child.text, "para", line=line)
            _walk(child, out)
        if child.tail and child.tail.strip():
            out.add(child.tail, "para", line=line)


def _meta(root: Any, *names: str) -> str | None:
    for name in names:
        for attr in ("name", "property"):
            found = root.xpath(f"//meta[@{attr}=$n]/@content", n=name)
            if found and found[0].strip():
                return clean(found[0])
    return None


def parse(data: bytes, path: Path) -> Parsed:
    try:
        root = lxml.html.document_fromstring(data, parser=_PARSER)
    except (etree.ParserError, ValueError) as e:
        raise IngestError(path, f"not readable HTML ({e})") from None
    title_el = root.find(".//title")
    page_title = _text(title_el) if title_el is not None else None
    updated = _meta(root, "dcterms.modified", "last-modified", "article:modified_time", "date")
    canonical = root.xpath("//link[@rel='canonical']/@href")
    publisher = _meta(root, "dcterms.publisher", "publisher", "og:site_name")
    _drop_chrome(root)
    out = SectionBuilder()
    _walk(_main(root), out)
    warnings: list[str] = []
    if any("Excessive depth" in e.message for e in _PARSER.error_log):
        # libxml2 stops building the tree there (its guard against stack exhaustion): say what was lost.
        warnings.append("nested deeper than 256 levels: the text past that depth was not read")
    return Parsed(
        sections=out.sections(),
        title=out.title or page_title or None,
        publisher=publisher,
        url=clean(canonical[0]) if canonical else None,
        updated=front_matter.parse_date(updated, warnings, what="the page's modified date")
        if updated
        else None,
        warnings=warnings,
    )


def walk_fragment(markup: str, out: SectionBuilder, line: int | None) -> None:
    """Read HTML embedded in another format (a Markdown HTML block) into ``out`` as a page's body is read."""
    if not markup.strip():
        return
    # Leading newlines make libxml2's source lines those of the enclosing document.
    padded = "\n" * ((line or 1) - 1) + markup
    try:
        root = lxml.html.document_fromstring(f"<html><body>{padded}</body></html>", parser=_PARSER)
    except (etree.ParserError, ValueError):
        return  # nothing parseable, e.g. a lone comment
    _drop_chrome(root)
    body = root.find("body")
    _walk(body if body is not None else root, out)
