"""The one door model and KB text passes through on its way to the screen.

Sanitising itself lives in ``hippo_tui.safe_text``; this module only adapts it for widgets: text is
sanitised and then wrapped as ``Content`` (never parsed as markup), and Markdown is parsed with links
and images disabled so a link shows its URL instead of hiding it behind its label.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from textual.content import Content

from hippo_tui.safe_text import sanitize

__all__ = ["markdown_parser", "one_line", "safe", "safe_content", "sanitize"]


def safe(text: str) -> str:
    """Untrusted text made inert for a terminal."""
    return sanitize(text)


def one_line(text: str, limit: int | None = None) -> str:
    """Sanitised text collapsed onto one line, optionally cut to ``limit`` characters."""
    flat = " ".join(sanitize(text).split())
    if limit is not None and len(flat) > limit:
        return flat[: max(0, limit - 1)] + "…"
    return flat


def safe_content(text: str, style: str = "") -> Content:
    """Untrusted text as Content: sanitised, and never interpreted as markup."""
    return Content.styled(sanitize(text), style) if style else Content(sanitize(text))


def markdown_parser() -> MarkdownIt:
    """GFM-like Markdown without links, images or HTML: `[label](url)` stays literal, so the URL shows."""
    return MarkdownIt("gfm-like").disable(["link", "image", "html_inline", "html_block"])
