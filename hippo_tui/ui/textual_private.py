"""Every use of a Textual private name (underscored module, attribute or method), in one place.

Textual gives no public API for these (checked against Textual 8.2.8, the version pinned in
pyproject.toml); a Textual upgrade that renames one breaks here, and tests/test_textual_private.py
runs each against a real app to say which. The rest of the UI goes through these names only.

Textual's Markdown block classes are loaded on first use (``__getattr__`` below): the Markdown module
(markdown-it, the highlighter) must stay out of the app's first frame, and this module loads with it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from textual._resolve import resolve
from textual.css.scalar import Scalar
from textual.geometry import Size
from textual.widget import Widget

if TYPE_CHECKING:
    from markdown_it.token import Token
    from rich.style import Style
    from textual.app import App
    from textual.canvas import Canvas, Primitive
    from textual.content import Content
    from textual.strip import Strip
    from textual.widgets import Markdown, RadioSet

    # Not re-exported by textual.widgets.markdown (8.2.8): the block kinds the answer's widgets build on.
    from textual.widgets._markdown import (
        MarkdownBlockQuote,
        MarkdownBullet,
        MarkdownBulletList,
        MarkdownListItem,
        MarkdownOrderedList,
        MarkdownOrderedListItem,
        MarkdownParagraph,
        MarkdownTable,
    )
    from textual.widgets.markdown import MarkdownBlock

__all__ = [
    "TEXTUAL_CHECKED",
    "MarkdownBlockQuote",
    "MarkdownBullet",
    "MarkdownBulletList",
    "MarkdownListItem",
    "MarkdownOrderedList",
    "MarkdownOrderedListItem",
    "MarkdownParagraph",
    "MarkdownTable",
    "app_keymap",
    "block_content",
    "block_document",
    "block_token",
    "canvas_strips",
    "child_blocks",
    "forget_arrangement",
    "forget_box_models",
    "highlight_radio_button",
    "inline_token",
    "keep_block_content",
    "layout_generation",
    "parse_blocks",
    "resolve_widths",
    "route_block_updates",
    "route_component_classes",
    "set_block_token",
    "set_inline_token",
    "set_unrendered_source",
    "styled_component_classes",
    "table_cells",
]

TEXTUAL_CHECKED = "8.2.8"
"""The Textual version every function here was checked against."""

_MARKDOWN_CLASSES = frozenset(name for name in __all__ if name.startswith("Markdown"))


def __getattr__(name: str) -> Any:
    """The Markdown block classes, imported from Textual's private module when first asked for."""
    if name in _MARKDOWN_CLASSES:
        from textual.widgets import _markdown

        return getattr(_markdown, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


W = TypeVar("W", bound=Widget)
B = TypeVar("B", bound="MarkdownBlock")


def app_keymap(app: App[Any]) -> Mapping[str, str]:
    """The keymap ``App.set_keymap`` applied (binding id -> keys, as Textual normalised them).

    Textual has a setter and no getter; the keys shown in help and hints must be the ones it binds."""
    return app._keymap


def highlight_radio_button(radio_set: RadioSet, index: int) -> None:
    """Move the radio set's highlight (the button Enter would press) to ``index``.

    RadioSet's highlight is its private ``_selected``; its public actions only step it from wherever it is."""
    radio_set._selected = index


def resolve_widths(
    wanted: Sequence[float], total: int, gutter: int, minimums: list[int]
) -> list[tuple[int, int]]:
    """(offset, width) of columns sharing ``total`` cells: Textual's own resolver, as its grid calls it
    for auto columns (expanded to the width, shrunk to the minimums), so a table drawn as one widget has
    the grid's columns. The resolver lives in the private ``textual._resolve``."""
    size = Size(total, 0)
    scalars = [Scalar.from_number(w) for w in wanted]
    return resolve(scalars, total, gutter, size, size, expand=True, shrink=True, minimums=minimums)


def canvas_strips(canvas: Canvas, primitives: Sequence[Primitive], base_style: Style) -> list[Strip]:
    """The canvas's lines as strips. ``Canvas.render`` returns a Rich renderable whose strips are the
    private ``_strips``; rendering it through Rich would lose them as strips."""
    return list(canvas.render(primitives, base_style)._strips)


def layout_generation(widget: Widget) -> tuple[int, int]:
    """Counters that change when ``widget``'s children are added or removed (its node list's ``_updates``)
    or anything inside it is relaid out (``_layout_updates``): a key for a cached height."""
    return widget._nodes._updates, widget._layout_updates


def forget_box_models(widget: Widget) -> None:
    """Drop ``widget``'s measured boxes; Textual keeps one while a relayout of it is pending, and has no
    public way to say its content changed size in place."""
    widget._box_model_cache.clear()


def forget_arrangement(widget: Widget) -> None:
    """Drop ``widget``'s arrangement of its children, so the next layout measures them again (no public
    call does only this; ``refresh(layout=True)`` waits for the relayout to be processed)."""
    widget._clear_arrangement_cache()


def set_unrendered_source(document: Markdown, text: str) -> None:
    """Set a Markdown widget's source without building its blocks (``update`` always builds them): for a
    document whose blocks are unmounted, drawn from this text when they are built again."""
    document._markdown = text


def parse_blocks(document: Markdown, tokens: Iterable[Token]) -> list[MarkdownBlock]:
    """The blocks ``document`` would build for ``tokens`` (its private ``_parse_markdown``), unmounted."""
    return list(document._parse_markdown(tokens))


def block_document(block: MarkdownBlock) -> Markdown:
    """The Markdown document a block was built for; the block need not be mounted (its private
    ``_markdown``: ``query_ancestor`` only finds a mounted one)."""
    return block._markdown


def block_token(block: MarkdownBlock) -> Token:
    """The markdown-it token that opened ``block`` (private ``_token``)."""
    return block._token


def set_block_token(block: MarkdownBlock, token: Token) -> None:
    """Give ``block`` the token of its new text, as Textual does when it updates a block in place."""
    block._token = token


def inline_token(block: MarkdownBlock) -> Token | None:
    """The inline token ``block``'s text was built from (``build_from_token`` sets it; no getter)."""
    return block._inline_token


def set_inline_token(block: MarkdownBlock, token: Token) -> None:
    """Record ``token`` as ``block``'s inline token without building its text again (``build_from_token``
    always rebuilds it)."""
    block._inline_token = token


def block_content(block: MarkdownBlock) -> Content:
    """The text ``block`` was last given by ``set_content`` (private ``_content``; no getter)."""
    return block._content


def keep_block_content(block: MarkdownBlock, content: Content) -> None:
    """Record ``content`` as ``block``'s text without drawing it (``set_content`` also draws it), for a
    block that draws its text inside something else."""
    block._content = content


def child_blocks(block: MarkdownBlock) -> list[MarkdownBlock]:
    """The blocks parsed inside ``block``, not yet composed (private ``_blocks``). The list itself: a
    block that composes them differently clears it, as Textual's ``compose`` does."""
    return block._blocks


def table_cells(table: MarkdownTable) -> tuple[list[Content], list[list[Content]]]:
    """A Markdown table's header cells and rows of cells (private ``_get_headers_and_rows``)."""
    return table._get_headers_and_rows()


def styled_component_classes(widget: Widget) -> frozenset[str]:
    """The component classes (``.em`` and so on) Textual has styled for ``widget`` so far (private
    ``_component_styles``)."""
    return frozenset(widget._component_styles)


def route_component_classes(cls: type[W], pick: Callable[[W, frozenset[str]], frozenset[str]]) -> type[W]:
    """Make Textual style, for each widget of ``cls``, only the component classes ``pick`` keeps of those
    it would style. Textual reads them from the private ``_get_component_classes``; there is no public
    per-widget hook, so this overrides it on ``cls`` (and its subclasses) only."""

    def component_classes(self: W) -> frozenset[str]:
        every: frozenset[str] = super(cls, self)._get_component_classes()
        return pick(self, every)

    cls._get_component_classes = component_classes  # type: ignore[method-assign,assignment]
    return cls


def route_block_updates(cls: type[B], take: Callable[[B, MarkdownBlock], Awaitable[bool]]) -> type[B]:
    """When Textual's Markdown streams a longer version of a block of ``cls``, offer it to ``take`` first
    (True: taken in place); otherwise Textual's own update runs. Textual hands it over through the private
    ``_update_from_block``, with no public hook, so this overrides it on ``cls`` only."""

    async def update_from_block(self: B, block: MarkdownBlock) -> None:
        if not await take(self, block):
            await super(cls, self)._update_from_block(block)  # type: ignore[misc]

    cls._update_from_block = update_from_block  # type: ignore[method-assign,assignment]
    return cls
