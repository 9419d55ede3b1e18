"""Markdown tables drawn as one widget, looking exactly as Textual's own.

Textual draws a table as a grid container of one widget per cell, its keylines drawn around them: a
table of four rows and three columns is fourteen widgets, each mounted (styles, a message loop) and
visited by every layout. Here the table is one widget: the same column widths (Textual's own resolver,
with the grid's rules: auto columns, expanded to the width, shrunk to each column's longest word), the
same row heights, keylines drawn with Textual's own canvas, cell text wrapped and cut with an ellipsis
as the cells do.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.canvas import Canvas, Rectangle
from textual.color import Color
from textual.content import Content
from textual.css.styles import RulesMap
from textual.events import MouseMove
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets.markdown import MarkdownBlock

from hippo_tui.ui.textual_private import (
    MarkdownTable,
    block_token,
    canvas_strips,
    child_blocks,
    resolve_widths,
    route_block_updates,
    set_block_token,
    table_cells,
)

# What Textual's cells have: a cell of padding either side, text cut with an ellipsis.
_PAD = 1
_CELL_RULES: RulesMap = {"text_overflow": "ellipsis"}


class _Grid(Visual):
    """The cells in rows of ``columns`` (placed one after another, as the grid places its cells), the
    first row the header's."""

    def __init__(self, headers: list[Content], rows: list[list[Content]], line: Color, header: Style):
        self.columns = max(1, len(headers))
        self.cells = [*headers, *(cell for row in rows for cell in row)]
        self.headers = len(headers)
        self.line = line
        self.header = header
        self._layout: tuple[int, list[tuple[int, int]], list[int]] | None = None

    def _measure(self, width: int) -> tuple[list[tuple[int, int]], list[int]]:
        """Column offsets and widths, row heights: measured once per width (a layout asks twice)."""
        if self._layout is None or self._layout[0] != width:
            widths = self._widths(width)
            self._layout = (width, widths, self._heights(widths))
        return self._layout[1], self._layout[2]

    def _widths(self, width: int) -> list[tuple[int, int]]:
        """(offset, width) of each column inside the keylines: Textual's resolver, as the grid calls it."""
        inner = max(width - 2, 0)
        wanted = [0.0] * self.columns
        least = [1] * self.columns
        for i, cell in enumerate(self.cells):
            column = i % self.columns
            wanted[column] = max(wanted[column], cell.get_optimal_width(_CELL_RULES, inner) + 2 * _PAD)
            least[column] = max(least[column], cell.get_minimal_width(_CELL_RULES) + 2 * _PAD)
        return resolve_widths(wanted, inner, 1, least)

    def _heights(self, widths: list[tuple[int, int]]) -> list[int]:
        heights: list[int] = []
        for i, cell in enumerate(self.cells):
            row, column = divmod(i, self.columns)
            if row == len(heights):
                heights.append(0)
            text_width = widths[column][1] - 2 * _PAD
            heights[row] = max(
                heights[row], cell.get_height(_CELL_RULES, text_width) if text_width > 0 else 0
            )
        return heights

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def cell_at(self, width: int, x: int, y: int) -> Content | None:
        """The cell drawn at ``x``, ``y`` (keylines belong to no cell)."""
        widths, heights = self._measure(width)
        column = next((c for c, (at, w) in enumerate(widths) if at + 1 <= x < at + 1 + w), None)
        top = 1
        for row, height in enumerate(heights):
            if top <= y < top + height:
                i = row * self.columns + (column if column is not None else len(self.cells))
                return self.cells[i] if column is not None and i < len(self.cells) else None
            top += height + 1
        return None

    def get_height(self, rules: RulesMap, width: int) -> int:
        _, heights = self._measure(width)
        return sum(heights) + len(heights) + 1

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        widths, heights = self._measure(width)
        tops = [1 + sum(heights[:r]) + r for r in range(len(heights))]
        total = sum(heights) + len(heights) + 1
        canvas = Canvas(width, total)
        boxes = [
            Rectangle(
                Offset(widths[i % self.columns][0], tops[i // self.columns] - 1),
                widths[i % self.columns][1] + 2,
                heights[i // self.columns] + 2,
                self.line,
                "thin",
            )
            for i in range(len(self.cells))
        ]
        lines = canvas_strips(canvas, boxes, style.rich_style)
        for i, cell in enumerate(self.cells):
            row, column = divmod(i, self.columns)
            x, w = widths[column]
            cell_style = style + self.header if i < self.headers else style
            text = (
                cell.render_strips(w - 2 * _PAD, None, cell_style, _with_rules(options))
                if w > 2 * _PAD
                else []
            )
            text = text[: heights[row]]
            # Header cells sit at the bottom of their row (content-align: left bottom), the others at the top.
            first = heights[row] - len(text) if i < self.headers else 0
            pad = Strip.blank(_PAD, cell_style.rich_style)
            for n in range(heights[row]):
                body = text[n - first] if 0 <= n - first < len(text) else Strip([])
                body = body.extend_cell_length(w - 2 * _PAD, cell_style.rich_style)
                piece = Strip.join([pad, body, pad]).crop(0, w)
                y = tops[row] + n
                line = lines[y]
                lines[y] = Strip.join([line.crop(0, x + 1), piece, line.crop(x + 1 + w, width)])
        lines = [line.crop(0, width) for line in lines]
        return lines if height is None else lines[:height]


def _with_rules(options: RenderOptions) -> RenderOptions:
    return RenderOptions(options.get_style, _CELL_RULES, None, options.selection_style, options.post_style)


class TableGrid(MarkdownTable):
    """A Markdown table in one widget (see the module's note)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {*MarkdownBlock.COMPONENT_CLASSES, "header", "lines"}
    DEFAULT_CSS = """
    TableGrid { height: auto; }
    TableGrid > .header { color: $primary; }
    TableGrid > .lines { color: $foreground 20%; }
    """
    header_cells: list[Content]  # set by compose (on mount) and by a streamed longer table
    row_cells: list[list[Content]]

    def compose(self) -> ComposeResult:
        self.header_cells, self.row_cells = table_cells(self)
        self._grid = None
        child_blocks(self).clear()
        return iter(())

    _grid: _Grid | None = None

    def render(self) -> _Grid:
        # The grid inside the table blends its keylines over the table's own background.
        line = self.background_colors[1] + self.get_component_styles("lines").color
        header = self.get_visual_style("header", partial=True)
        grid = self._grid
        if grid is None or (grid.line, grid.header) != (line, header):  # new rows, or a new theme
            grid = self._grid = _Grid(self.header_cells, self.row_cells, line, header)
        return grid

    def on_mouse_move(self, event: MouseMove) -> None:
        """Each cell's whole text as its tooltip, as Textual's cells have (a cut cell ends in an ellipsis)."""
        offset = event.get_content_offset(self)
        cell = self.render().cell_at(self.content_size.width, *offset) if offset is not None else None
        self.tooltip = cell.plain if cell is not None and cell.plain else None

    async def take_block(self, block: MarkdownBlock) -> bool:
        """A streamed table grows in place; False: not a table (Textual replaces this one with it)."""
        if not isinstance(block, MarkdownTable):
            return False
        self.header_cells, self.row_cells = table_cells(block)
        set_block_token(self, block_token(block))
        self._grid = None
        self.refresh(layout=True)
        return True

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """Copied text: the cells' text, a row per line, as Textual's cells give it."""
        rows = [self.header_cells, *self.row_cells]
        return selection.extract("\n".join(" ".join(c.plain for c in row) for row in rows)), "\n"


route_block_updates(TableGrid, TableGrid.take_block)
