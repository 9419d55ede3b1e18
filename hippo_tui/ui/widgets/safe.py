"""The one door model and KB text passes through on its way to the screen.

Sanitising itself lives in ``hippo_tui.safe_text``; this module only adapts it for widgets: text is
sanitised and then wrapped as ``Content`` (never parsed as markup), and Markdown is parsed with links
and images disabled so a link shows its URL instead of hiding it behind its label.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from textual.content import Content, Span

from hippo_tui.safe_text import clip, sanitize

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["MARK_STYLE", "markdown_parser", "marked_line", "one_line", "safe", "safe_content", "sanitize"]

# The store wraps matched search terms in « and » (models.SearchHit.snippet). A missing » (a snippet cut
# mid-term) closes at the end of the text.
_MARKED = re.compile(r"«([^«»]*)(?:»|$)")
# Text styles, not colours: a match stays visible in 16 colours, a high-contrast theme and NO_COLOR.
MARK_STYLE = "bold underline"


def safe(text: str) -> str:
    """Untrusted text made inert for a terminal."""
    return sanitize(text)


def one_line(text: str, limit: int | None = None) -> str:
    """Sanitised text collapsed onto one line, optionally cut to ``limit`` characters."""
    return clip(text, limit, flat=True)


def marked_line(text: str, limit: int | None = None, *, style: str = MARK_STYLE) -> Content:
    """A search snippet on one line with its « » marks drawn as ``style`` spans, without the guillemets.

    Sanitised like ``one_line``; ``limit`` counts the visible characters, so a cut never splits a mark's
    guillemets from its text. Never parsed as markup.
    """
    flat = " ".join(sanitize(text).split())
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    at = 0
    for match in _MARKED.finditer(flat):
        plain.append(flat[pos : match.start()])
        at += match.start() - pos
        term = match.group(1)
        if term:
            spans.append((at, at + len(term)))
        plain.append(term)
        at += len(term)
        pos = match.end()
    plain.append(flat[pos:].replace("»", ""))
    visible = "".join(plain)
    if limit is not None and len(visible) > limit:
        visible = visible[: max(0, limit - 1)] + "…"
        end = len(visible) - 1
        spans = [(a, min(b, end)) for a, b in spans if a < end]
    return Content(visible, spans=[Span(a, b, style) for a, b in spans if b > a])


def safe_content(text: str, style: str = "") -> Content:
    """Untrusted text as Content: sanitised, and never interpreted as markup."""
    return Content.styled(sanitize(text), style) if style else Content(sanitize(text))


@functools.cache
def markdown_parser() -> MarkdownIt:
    """GFM-like Markdown without links, images or HTML: `[label](url)` stays literal, so the URL shows.

    Reference definitions (`[x]: http://…` on a line of their own) are off too: parsed, they would vanish
    from the answer, taking their URL with them.

    One parser, shared: Textual asks its factory for a parser on every streamed append and the end's
    patch parses each changed block, and building one (its rules, linkify's patterns) cost about as
    much as the parse itself. A parse keeps no state in the parser; nobody may reconfigure it.
    """
    from markdown_it import MarkdownIt  # with the first answer, not at start

    return MarkdownIt("gfm-like").disable(["link", "image", "html_inline", "html_block", "reference"])
