"""Markdown lists in an answer: one widget per item, drawn exactly as Textual's own Markdown draws them."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBullet, MarkdownList

from hippo_tui.events import EndEvent
from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.list_items import ListItemLine
from hippo_tui.ui.widgets.safe import markdown_parser
from hippo_tui.ui.widgets.turn import Segment

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


class Plain(Markdown):
    """Textual's Markdown with the segment's spacing, to compare against."""

    DEFAULT_CSS = "Plain { margin: 0; padding: 0 1 0 0; }"


class Side(App[None]):
    def __init__(self, widget: Markdown) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


def _cells(app: App) -> list[list[tuple[str, object, object, bool, bool]]]:
    """Every cell on screen as a reader sees it: its character, colours, bold and italic (a blank's
    foreground colour does not show)."""
    rows = []
    for strip in app.screen._compositor.render_strips():
        row = []
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


async def _screen(widget: Markdown, text: str, width: int) -> tuple[list, dict[str, int]]:
    """The screen showing ``text`` in ``widget``, and the widgets it took."""
    app = Side(widget)
    async with app.run_test(size=(width, 40)) as pilot:
        await widget.update(text)
        await pilot.pause()
        counts = {
            "items": len(widget.query(ListItemLine)),
            "bullets": len(widget.query(MarkdownBullet)),
            "first list": len(widget.query(MarkdownList).first().children),
        }
        return _cells(app), counts


async def test_list_items_look_exactly_as_textuals_and_cost_one_widget_each():
    for width in (40, 80):
        ours, counts = await _screen(Segment(), LISTS, width)
        theirs, _ = await _screen(Plain(parser_factory=markdown_parser), LISTS, width)
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
        assert "[·2]" in items[0]._content.plain
        final = LISTS.replace("[·", "[")
        await view.finish(EndEvent(text=final, citations=[], audit_id=None))
        await pilot.pause()
        assert view.source == final
        assert list(pane.query(ListItemLine)) == items  # the same widgets, their text patched
        assert items[0]._content.plain.endswith("[2]") and "[·" not in items[0]._content.plain
