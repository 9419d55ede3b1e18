"""Markdown list items drawn as one widget each, looking exactly as Textual's own.

Textual draws each list item as four widgets (a row, the bullet, a column, the paragraph). Every
widget costs a mount (styles, a message loop) and a place in every layout, and answers are full of
lists, so an item made of one paragraph (nearly all of them) is one widget here: the paragraph wrapped
beside its bullet, with the same widths and colours. Any other item (nested lists, code, several
paragraphs) is built as Textual builds it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets.markdown import MarkdownBlock

from hippo_tui.ui.textual_private import (
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownOrderedListItem,
    MarkdownParagraph,
    block_content,
    block_document,
    block_token,
    child_blocks,
    inline_token,
    keep_block_content,
    set_inline_token,
)
from hippo_tui.ui.widgets.paragraph import Paragraph


class _Bulleted(Visual):
    """``body`` wrapped to the width left beside ``bullet``, the bullet on its first line."""

    def __init__(self, bullet: Content, body: Content) -> None:
        self.bullet = bullet
        self.body = body
        self.indent = bullet.cell_length

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        body_width = max(width - self.indent, 0)
        pad = style.rich_style
        # The paragraph's lines fill the width left to them, as the column beside the bullet would.
        lines = [
            line.extend_cell_length(body_width, pad)
            for line in (self.body.render_strips(body_width, None, style, options) if body_width else [])
        ] or [Strip.blank(body_width, pad)]
        blank = Strip.blank(self.indent, pad)
        bullet = self.bullet.render_strips(self.indent, None, style, options) or [blank]
        strips = [Strip.join([bullet[0] if i == 0 else blank, line]) for i, line in enumerate(lines)]
        return strips if height is None else strips[:height]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.indent + self.body.get_optimal_width(rules, max(container_width - self.indent, 0))

    def get_height(self, rules: RulesMap, width: int) -> int:
        return max(1, self.body.get_height(rules, max(width - self.indent, 1)))


class ListItemLine(Paragraph):
    """A list item of one paragraph: a paragraph (so streaming and marker patches treat it as one)
    drawn beside its bullet."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {*MarkdownBlock.COMPONENT_CLASSES, "bullet"}
    DEFAULT_CSS = """
    ListItemLine { width: 1fr; height: auto; }
    ListItemLine > .bullet { color: $text-primary; }
    ListItemLine:light > .bullet { color: $text-secondary; }
    """

    def __init__(self, paragraph: MarkdownParagraph, symbol: str) -> None:
        self.symbol = symbol
        super().__init__(block_document(paragraph), block_token(paragraph), paragraph.source_range)
        token = inline_token(paragraph)
        if token is not None:
            set_inline_token(self, token)
        self.set_content(block_content(paragraph))

    def set_content(self, content: Content) -> None:
        keep_block_content(self, content)
        bullet = Content(self.symbol, spans=[Span(0, len(self.symbol), ".bullet")])
        self.update(_Bulleted(bullet, content))
        self._style_new_kinds()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """Copied text: the bullet and the paragraph, as Textual's row of widgets gives them."""
        return selection.extract(f"{self.symbol}{block_content(self).plain}"), "\n"


def _item(block: MarkdownListItem, symbol: str) -> ComposeResult:
    """One item: a single widget when it is one paragraph, else Textual's row of bullet and column."""
    blocks = child_blocks(block)
    only = blocks[0] if len(blocks) == 1 else None
    if isinstance(only, MarkdownParagraph) and type(only) in (MarkdownParagraph, Paragraph):
        yield ListItemLine(only, symbol)
        return
    bullet = MarkdownBullet()
    bullet.symbol = symbol
    yield Horizontal(bullet, Vertical(*blocks))


class BulletList(MarkdownBulletList):
    def compose(self) -> ComposeResult:
        blocks = child_blocks(self)
        for block in blocks:
            if isinstance(block, MarkdownListItem):
                yield from _item(block, block.bullet)
        blocks.clear()


class OrderedList(MarkdownOrderedList):
    def compose(self) -> ComposeResult:
        blocks = child_blocks(self)
        start = 1  # numbered as Textual numbers them
        if blocks and isinstance(blocks[0], MarkdownOrderedListItem):
            try:
                start = int(blocks[0].bullet)
            except ValueError:
                pass
        numbered = list(enumerate(blocks, start))
        size = max((len(f"{n}. ") for n, b in numbered if isinstance(b, MarkdownListItem)), default=0)
        for number, block in numbered:
            if isinstance(block, MarkdownListItem):
                yield from _item(block, f"{number}. ".rjust(size + 1))
        blocks.clear()
