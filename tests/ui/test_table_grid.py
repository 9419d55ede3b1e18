"""Markdown tables in an answer: one widget per table, drawn exactly as Textual's grid of cells."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from hippo_tui.events import EndEvent
from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.table_grid import TableGrid
from hippo_tui.ui.widgets.turn import Segment
from tests.ui.markdown_look import Plain, Side, shown

DOSES = (
    "| Drug | Dose | Days |\n|---|---|---|\n"
    "| Trimethoprim | 200 mg | 3 |\n| Nitrofurantoin | 100 mg | 3 |\n| Pivmecillinam | 400 mg | 3 |\n\n"
    "After the table.\n"
)
WRAPPING = (
    "| A long header that wraps | B |\n|---|:-:|\n"
    "| x **bold** `code` *it* [·1] | a much longer cell with several words in it |\n"
    "| a short row |\n\n"
)
EMPTY_CELL = "| H |\n|---|\n| |\n"


def _widgets(widget: Markdown) -> tuple[int, int]:
    return len(widget.query(TableGrid)), len(list(widget.walk_children()))


@pytest.mark.parametrize("text", [DOSES, WRAPPING, EMPTY_CELL])
@pytest.mark.parametrize("width", [20, 45, 100])
async def test_a_table_looks_exactly_as_textuals_grid_of_cells(text: str, width: int):
    ours, (tables, widgets) = await shown(Segment(), text, width, _widgets)
    theirs, _ = await shown(Plain(), text, width)
    assert ours == theirs
    # One widget for the table (Textual: the table, its grid and a widget per cell), one for the text after.
    assert tables == 1 and widgets == (2 if "After" in text else 1)


async def test_a_streamed_table_grows_in_place_and_ends_as_textual_draws_it():
    ours, (tables, _) = await shown(Segment(), DOSES, 60, _widgets, pieces=7)
    theirs, _ = await shown(Plain(), DOSES, 60)
    assert ours == theirs and tables == 1


async def test_a_table_under_a_light_theme_looks_as_textuals():
    ours, _ = await shown(Segment(), DOSES, 45, theme="textual-light")
    theirs, _ = await shown(Plain(), DOSES, 45, theme="textual-light")
    assert ours == theirs


async def test_a_marker_in_a_cell_is_patched_in_the_same_widget():
    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield AnswerPane()

    text = DOSES.replace("| 200 mg |", "| 200 mg [·1] |")
    app = Host()
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(AnswerPane)
        view = await pane.add_turn("q")
        for i in range(0, len(text), 9):
            await view.append(text[i : i + 9])
        await pilot.pause()
        table = pane.query_one(TableGrid)
        final = text.replace("[·1]", "[1]")
        await view.finish(EndEvent(text=final, citations=[], audit_id=None))
        await pilot.pause()
        assert view.source == final and pane.query_one(TableGrid) is table
        assert [c.plain for c in table.row_cells[0]] == ["Trimethoprim", "200 mg [1]", "3"]


async def test_hovering_a_cell_shows_its_whole_text_as_textuals_cells_do():
    async def hover(x: int, y: int) -> str | None:
        app = Side(Segment())
        async with app.run_test(size=(20, 30)) as pilot:
            await app.widget.update(DOSES)
            await pilot.pause()
            await pilot.hover(TableGrid, offset=(x, y))
            return app.query_one(TableGrid).tooltip

    # At 20 columns "Nitrofurantoin" is cut to "Nitro…" (third line of rows: y 6); its tooltip has it
    # whole. A keyline has none.
    assert await hover(3, 6) == "Nitrofurantoin"
    assert await hover(0, 6) is None and await hover(3, 5) is None
