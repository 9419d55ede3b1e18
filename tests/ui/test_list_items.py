"""Markdown lists in an answer: one widget per item, drawn exactly as Textual's own Markdown draws them."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from hippo_tui.events import EndEvent
from hippo_tui.ui.textual_private import block_content
from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.list_items import ListItemLine
from hippo_tui.ui.widgets.turn import Segment
from tests.ui.markdown_look import Plain, shown

LISTS = (
    "Intro [·1].\n\n"
    "- Trimethoprim **200 mg** twice daily for 3 days, an item long enough to wrap over two lines"
    " or more at this width, with `code` and *emphasis* [·2]\n"
    "- Nitrofurantoin\n"
    "-\n\n"
    "1. first\n"
    "2. second [·3]\n\n"
    "8. from eight\n"
    "9. nine\n"
    "10. ten\n\n"
    "- outer\n"
    "  - nested one\n"
    "  - nested two\n\n"
    "- an item\n\n  of two paragraphs\n\n"
    "Outro.\n"
)


def _counts(widget: Markdown) -> dict[str, int]:
    return {
        "items": len(widget.query(ListItemLine)),
        "bullets": len(widget.query("MarkdownBullet")),
        "first list": len(widget.query("MarkdownList").first().children),
    }


async def test_list_items_look_exactly_as_textuals_and_cost_one_widget_each():
    for width in (40, 80):
        ours, counts = await shown(Segment(), LISTS, width, _counts)
        theirs, _ = await shown(Plain(), LISTS, width, _counts)
        assert ours == theirs
    # One widget for each item made of one paragraph; Textual's row (bullet, column) for the empty
    # item, the one holding a nested list and the one of two paragraphs.
    assert counts == {"items": 2 + 5 + 2, "bullets": 3, "first list": 3}


async def test_streamed_list_markers_are_patched_in_place():
    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield AnswerPane()

    app = Host()
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(AnswerPane)
        view = await pane.add_turn("q")
        for i in range(0, len(LISTS), 9):  # pieces cut anywhere, as a model cuts them
            await view.append(LISTS[i : i + 9])
        await pilot.pause()
        items = list(pane.query(ListItemLine))
        assert "[·2]" in block_content(items[0]).plain
        final = LISTS.replace("[·", "[")
        await view.finish(EndEvent(text=final, citations=[], audit_id=None))
        await pilot.pause()
        assert view.source == final
        assert list(pane.query(ListItemLine)) == items  # the same widgets, their text patched
        assert block_content(items[0]).plain.endswith("[2]") and "[·" not in block_content(items[0]).plain


async def test_list_items_under_a_light_theme_look_as_textuals():
    ours, _ = await shown(Segment(), LISTS, 40, theme="textual-light")
    theirs, _ = await shown(Plain(), LISTS, 40, theme="textual-light")
    assert ours == theirs
