"""What a Markdown widget shows, cell by cell, to compare ours against Textual's own drawing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from hippo_tui.ui.widgets.safe import markdown_parser
from tests.support.textual_internals import screen_strips

Cell = tuple[str, Any, Any, bool, bool]


class Plain(Markdown):
    """Textual's Markdown with an answer segment's spacing and parser, to compare against."""

    DEFAULT_CSS = "Plain { margin: 0; padding: 0 1 0 0; }"

    def __init__(self) -> None:
        super().__init__(parser_factory=markdown_parser)


class Side(App[None]):
    def __init__(self, widget: Markdown) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


def cells(app: App) -> list[list[Cell]]:
    """Every cell on screen as a reader sees it: its character, colours, bold and italic (a blank's
    foreground colour does not show)."""
    rows = []
    for strip in screen_strips(app):
        row: list[Cell] = []
        for segment in strip:
            style = segment.style
            for ch in segment.text:
                if style is None:
                    row.append((ch, None, None, False, False))
                else:
                    color = None if ch == " " and not style.underline else style.color
                    row.append((ch, color, style.bgcolor, bool(style.bold), bool(style.italic)))
        rows.append(row)
    return rows


async def shown(
    widget: Markdown,
    text: str,
    width: int,
    inspect: Callable[[Markdown], Any] = lambda _: None,
    *,
    pieces: int = 0,
    theme: str = "textual-dark",
) -> tuple[list[list[Cell]], Any]:
    """The screen showing ``text`` in ``widget`` (set at once, or appended ``pieces`` characters at a
    time as streaming does), and what ``inspect`` finds in the widget then."""
    app = Side(widget)
    app.theme = theme
    async with app.run_test(size=(width, 40)) as pilot:
        if pieces:
            for i in range(0, len(text), pieces):
                await widget.append(text[i : i + pieces])
        else:
            await widget.update(text)
        await pilot.pause()
        return cells(app), inspect(widget)
