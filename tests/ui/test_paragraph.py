"""Answer paragraphs are styled only for the inline kinds their text uses, and look exactly as Textual's."""

from __future__ import annotations

from textual.widgets import Markdown

from hippo_tui.ui.textual_private import styled_component_classes
from hippo_tui.ui.widgets.paragraph import Paragraph
from hippo_tui.ui.widgets.turn import Segment
from tests.ui.markdown_look import Plain, shown

TEXT = (
    "A plain paragraph with a marker [·1] and nothing else to style in it at all.\n\n"
    "Then **bold words**, *emphasis*, `inline code` and ~~struck out~~ text, long enough to wrap over"
    " several lines at forty columns [·2].\n\n"
    "- an item that turns **bold** late in its text\n"
    "- a plain item\n\n"
    "Plain again, until the very end where it gains *emphasis*\n"
)


def _styled_kinds(widget: Markdown) -> list[set[str]]:
    return [set(styled_component_classes(p)) for p in widget.query(Paragraph)]


async def test_paragraphs_look_as_textuals_whether_set_at_once_or_streamed():
    theirs, _ = await shown(Plain(), TEXT, 40)
    for pieces in (0, 3, 7):  # streamed pieces: a paragraph gains its bold or emphasis after mounting
        ours, _ = await shown(Segment(), TEXT, 40, pieces=pieces)
        assert ours == theirs, f"pieces={pieces}"
    ours, _ = await shown(Segment(), TEXT, 40, pieces=5, theme="textual-light")
    theirs, _ = await shown(Plain(), TEXT, 40, theme="textual-light")
    assert ours == theirs


async def test_a_paragraph_is_styled_for_the_kinds_its_text_has():
    _, kinds = await shown(Segment(), TEXT, 60, _styled_kinds, pieces=4)
    plain, mixed, bold_item, plain_item, late = kinds
    assert plain == set()
    assert mixed == {"strong", "em", "code_inline", "s"}
    assert bold_item == {"strong", "bullet"} and plain_item == {"bullet"}
    assert late == {"em"}
