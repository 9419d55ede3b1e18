"""The main screen's widgets on their own: answer segments, resets across segments, the status bar."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

from hippo_tui.events import EndEvent, ResetEvent, SourcePreview
from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.safe import marked_line
from hippo_tui.ui.widgets.sources import SourcesPanel
from hippo_tui.ui.widgets.status import StatusBar
from hippo_tui.ui.widgets.turn import SEGMENT_CHARS, split_segments

PARA = "A paragraph about cystitis and its treatment, long enough to matter [·1].\n\n"


def test_split_segments_cuts_at_blank_lines_and_keeps_everything():
    text = PARA * 100
    parts = split_segments(text)
    assert "".join(parts) == text
    assert len(parts) > 3
    assert all(p.endswith("\n\n") for p in parts[:-1])
    assert all(len(p) >= SEGMENT_CHARS for p in parts[:-1])


def test_split_segments_never_cuts_inside_a_code_fence():
    code = "```\n" + "line\n\n" * 600 + "```\n\n"
    text = PARA * 30 + code + PARA * 30
    for part in split_segments(text):
        assert part.count("```") % 2 == 0


def test_split_segments_short_text_is_one_part():
    assert split_segments("short") == ["short"]
    assert split_segments("") == [""]


class PaneHost(App[None]):
    def compose(self) -> ComposeResult:
        yield AnswerPane(id="answers")


async def _stream(pane: AnswerPane, text: str, piece: int = 37):
    view = await pane.add_turn("q")
    for i in range(0, len(text), piece):
        await view.append(text[i : i + piece])
    return view


async def test_streamed_text_is_cut_into_sealed_segments():
    app = PaneHost()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(AnswerPane)
        text = PARA * 80
        view = await _stream(pane, text)
        await pilot.pause()
        assert view.text == text and view.source == text
        assert len(view.segments) > 2
        assert all(md.sealed for md, _ in view.segments[:-1])
        assert not view.segments[-1][0].sealed


async def test_reset_across_segments_removes_exactly_the_withdrawn_text():
    app = PaneHost()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(AnswerPane)
        kept = PARA * 25
        withdrawn = PARA * 40  # longer than a segment: the cut spans segments
        view = await _stream(pane, kept + withdrawn)
        first_segment = view.segments[0][0]
        reset = ResetEvent(
            reason="safety", withdrawn=withdrawn, withdrawn_display=withdrawn, note="Withdrawn: rule x."
        )
        await view.withdraw(reset)
        await pilot.pause()
        assert view.display_text == kept and view.text == kept and view.source == kept
        assert view.segments[0][0] is first_segment  # untouched segments are not drawn again
        await view.append("Then the real answer.")
        assert view.source == kept + "Then the real answer."


async def test_final_update_patches_markers_in_place():
    app = PaneHost()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(AnswerPane)
        text = PARA * 50
        view = await _stream(pane, text)
        await pilot.pause()
        blocks_before = list(view.segments[0][0].children)
        final = text.replace("[·1]", "[1]")
        await view.finish(EndEvent(text=final, citations=[], audit_id=None))
        assert view.source == final and view.outcome == "complete"
        assert list(view.segments[0][0].children) == blocks_before  # same widgets, new content


async def test_a_sealed_segment_grows_when_a_block_inside_it_changes_size():
    # A sealed segment caches its height; whatever changes a block inside it afterwards (the end's marker
    # patch landing after a layout, a block re-rendered) must still give it its new height, or the answer's
    # last lines are cut off under the footer.
    from hippo_tui.ui.textual_private import MarkdownParagraph, block_content
    from hippo_tui.ui.widgets.turn import Segment

    app = PaneHost()
    async with app.run_test(size=(40, 24)) as pilot:
        pane = app.query_one(AnswerPane)
        segment, fresh = Segment(), Segment()
        await pane.mount(segment)
        await segment.replace("Short answer [·1].\n")
        await pilot.pause()
        short = segment.size.height
        longer = "Short answer " + "with a much longer final text " * 3 + "[1].\n"
        await pane.mount(fresh)
        await fresh.replace(longer)  # the height the changed segment must reach
        paragraph = segment.query_one(MarkdownParagraph)
        paragraph.set_content(block_content(fresh.query_one(MarkdownParagraph)))
        await pilot.pause()
        assert fresh.size.height > short and segment.size.height == fresh.size.height


async def test_final_update_with_a_different_structure_redraws():
    app = PaneHost()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(AnswerPane)
        view = await _stream(pane, "one paragraph [·1]\n\nanother")
        await pilot.pause()
        final = "one paragraph [1]\n\n- now a list\n- of two"
        await view.finish(EndEvent(text=final, citations=[], audit_id=None))
        assert view.source == final


class StatusHost(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar(animate=False)


@pytest.mark.parametrize(
    ("width", "expected", "absent"),
    [
        (120, ["Searching the knowledge base for “cystitis”", "model: offline · kb: demo (64)"], []),
        (40, ["Searching…", "demo (64)"], ["model:", "knowledge base"]),
    ],
)
async def test_status_bar_shortens_under_80_columns(width, expected, absent):
    app = StatusHost()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_info(backend="offline", model="offline", kb="demo (64)")
        bar.set_phase("Searching the knowledge base for “cystitis”", short="Searching…", busy=True)
        await pilot.pause()
        line = str(bar.render())
        assert len(line) <= width
        for text in expected:
            assert text in line
        for text in absent:
            assert text not in line
        assert line.startswith("⠋ ")  # the frozen spinner


@pytest.mark.parametrize(
    ("width", "expected"),
    [
        (120, "model: offline (extractive, no LLM) · kb: demo (70)"),
        (80, "model: offline · kb: demo (70)"),  # the description goes before the KB is cut
    ],
)
async def test_status_bar_drops_the_backend_description_before_cutting(width, expected):
    app = StatusHost()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_info(backend="offline (extractive, no LLM)", model="offline", kb="demo (70)")
        bar.set_phase("✓ 1 of 1 citations verified")
        await pilot.pause()
        line = str(bar.render())
        assert line.endswith(expected) and "…" not in line and len(line) <= width


async def test_status_bar_sanitises_model_text():
    app = StatusHost()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_info(backend="evil\x1b]0;title\x07", model="m\x1b[31m", kb="kb")
        bar.set_phase("phase\x1b[2J")
        await pilot.pause()
        assert "\x1b" not in str(bar.render())


# --- search-hit marks in snippets -----------------------------------------------------------------


def test_marked_line_styles_matches_without_guillemets():
    content = marked_line("For uncomplicated «cystitis» in «women»", style="bold")
    assert content.plain == "For uncomplicated cystitis in women"
    assert [(s.start, s.end, s.style) for s in content.spans] == [(18, 26, "bold"), (30, 35, "bold")]


def test_marked_line_cut_counts_visible_text_and_closes_an_open_mark():
    content = marked_line("a «cystitis» b", 6)
    assert content.plain == "a cys…"
    assert [(s.start, s.end) for s in content.spans] == [(2, 5)]
    # A snippet cut mid-term by the store: the mark runs to the end, no guillemet is left.
    open_mark = marked_line("treat «cysti")
    assert open_mark.plain == "treat cysti" and [(s.start, s.end) for s in open_mark.spans] == [(6, 11)]


def test_marked_line_never_reads_markup_and_sanitises():
    content = marked_line("[bold]x[/] «y»\x1b[31m")
    assert content.plain.startswith("[bold]x[/] y")
    assert "\x1b" not in content.plain
    assert [(s.start, s.end) for s in content.spans] == [(11, 12)]


class SidebarHost(App[None]):
    def compose(self) -> ComposeResult:
        yield SourcesPanel(id="sidebar")


@pytest.mark.parametrize("no_color", [False, True])
async def test_sidebar_snippets_show_marks_as_emphasis(no_color, monkeypatch):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = SidebarHost()
    async with app.run_test(size=(60, 20)) as pilot:
        panel = app.query_one(SourcesPanel)
        preview = SourcePreview(id="a", title="Cystitis", snippet="For «cystitis» in adults")
        await panel.add_previews([preview])
        await pilot.pause()
        snippet = panel.query_one(".snippet", Static)
        content = snippet.visual
        assert isinstance(content, Content)
        assert content.plain == "“For cystitis in adults”"
        styles = {content.plain[s.start : s.end]: str(s.style) for s in content.spans}
        assert "bold" in styles["cystitis"] and "underline" in styles["cystitis"]
        assert ("reverse" in styles["cystitis"]) is no_color
        # What reaches the screen: the term without guillemets.
        rendered = "".join(s.text for s in snippet.render_line(0))
        assert "cystitis" in rendered and "«" not in rendered
