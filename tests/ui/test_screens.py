"""Pilot tests of the panels in a small host app: open, keys, what they draw, what they dismiss with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import DataTable, Input, RadioSet, TextArea

from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.ui.event_log import EventLog
from hippo_tui.ui.screens import (
    AuditScreen,
    EndpointScreen,
    HelpScreen,
    InspectorScreen,
    PromptEditorScreen,
    validate_endpoint,
)
from hippo_tui.ui.screens.audit import asked_text
from hippo_tui.ui.screens.inspector import GAP_KEY, MAX_ROWS, describe, shown_rows
from hippo_tui.ui.themes import HIGH_CONTRAST
from tests.ui.panel_data import BINDINGS, drawn, flagged_record, two_answer_log

THIN, NORMAL, TALL = (40, 20), (80, 24), (120, 60)


class Host(App[None]):
    """Pushes one panel on mount and records what it dismisses with."""

    def __init__(self, make: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make = make
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.make(), self.results.append)


# --- help ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [THIN, NORMAL])
async def test_help_lists_every_key_and_esc_closes(size):
    app = Host(lambda: HelpScreen(BINDINGS))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = drawn(app)
        for key, _ in BINDINGS[:5]:
            assert key in text
        assert "Ask a question" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
    assert app.results == [None]


async def test_help_closes_with_f1_too_and_shows_markup_literally():
    app = Host(lambda: HelpScreen([("[b]x[/b]", "shows [red]as typed[/red]")]))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        assert "[b]x[/b]" in drawn(app) and "shows [red]as typed[/red]" in drawn(app)
        await pilot.press("f1")
        await pilot.pause()
    assert app.results == [None]


async def test_help_scrolls_with_the_keyboard_at_40x20():
    many = [(f"f{i}", f"action number {i}") for i in range(40)]
    app = Host(lambda: HelpScreen(many))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "action number 39" not in drawn(app)
        await pilot.press("end")
        await pilot.pause()
        assert "action number 39" in drawn(app)


# --- audit --------------------------------------------------------------------------------------


async def whole_audit(app: Host, pilot: Any) -> str:
    """The audit panel's text, top half and (scrolled with the keyboard) bottom half."""
    await pilot.pause()
    top = drawn(app)
    await pilot.press("end")
    await pilot.pause()
    return top + "\n" + drawn(app)


async def test_audit_shows_every_attempt_with_marks_and_words():
    app = Host(lambda: AuditScreen(flagged_record()))
    async with app.run_test(size=(120, 50)) as pilot:
        text = await whole_audit(app, pilot)
    assert "Audit: answer 42" in text
    assert "Asked: 2026-01-01 00:00:00 UTC" in text
    assert "Timings: ttft 0.42 s · verification 0.80 s · total 2.10 s" in text
    assert "6 attempted · 2 shown · 2 flagged · 2 ungrounded (1 contradicted, 1 not established) · 1" in text
    for label in (
        "✓ shown as [1]",
        "✓ shown as [2]",
        "✓ confirmed",
        "✓ supported",
        "✗ missing",
        "✗ retired",
        "✗ contradicted (veto)",
        "✗ not established (population)",
        "the excerpt does not say this is for children",
        "? unchecked",
        "– not run (check 1 failed)",
        "✗ hidden",
    ):
        assert label in text, label
    assert "source 0c6f2c1e…" in text  # short form of the id
    assert "reason: superseded by the 2025 guideline" in text
    assert "(no title: not in the knowledge base)" in text
    assert "1. safety check (rule: dose_advice)" in text
    assert "at 1.20 s: 143 characters withdrawn" in text
    assert "2. looked something up" in text


async def test_audit_draws_model_text_inert():
    app = Host(lambda: AuditScreen(flagged_record()))
    async with app.run_test(size=(120, 50)) as pilot:
        text = await whole_audit(app, pilot)
    # The claim carried markup and an escape sequence: the markup shows as typed, the escape is gone.
    assert "[bold]take[/bold] nitrofurantoin" in text
    assert "\x1b" not in text and "[31m" not in text


async def test_audit_scrolls_and_closes_at_40x20():
    app = Host(lambda: AuditScreen(flagged_record()))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "Resets (2)" not in drawn(app)
        await pilot.press("end")
        await pilot.pause()
        assert "Resets (2)" in drawn(app)
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_audit_without_a_record_says_so():
    app = Host(lambda: AuditScreen(None))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "No answer to audit yet" in drawn(app)


# --- inspector ----------------------------------------------------------------------------------


async def test_inspector_opens_on_the_latest_answer_and_steps_back():
    log = two_answer_log()
    app = Host(lambda: InspectorScreen(log))
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert "Answer 2 of 2" in drawn(app)
        assert table.row_count == len(log.answers()[1])
        text = drawn(app)
        assert "first text 0.40 s" in text and "held max 9, mean" in text and "verification 0.80 s" in text
        await pilot.press("p")
        await pilot.pause()
        assert "Answer 1 of 2" in drawn(app)
        assert table.row_count == len(log.answers()[0])
        await pilot.press("p")  # already the earliest: stays, says so
        await pilot.pause()
        assert "Answer 1 of 2" in drawn(app)
        await pilot.press("n")
        await pilot.pause()
        assert "Answer 2 of 2" in drawn(app)


async def test_inspector_detail_follows_the_cursor():
    app = Host(lambda: InspectorScreen(two_answer_log()))
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.pause()
        assert '"type": "thinking"' in drawn(app)
        await pilot.press("down", "down", "down")  # thinking, sources, thinking, text
        await pilot.pause()
        assert '"type": "text"' in drawn(app)


async def test_inspector_detail_toggles_on_a_short_terminal():
    app = Host(lambda: InspectorScreen(two_answer_log()))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        assert '"type"' not in drawn(app)
        await pilot.press("d")
        await pilot.pause()
        assert '"type": "thinking"' in drawn(app)
        await pilot.press("d")
        await pilot.pause()
        assert '"type"' not in drawn(app)
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_inspector_shows_both_ends_of_a_long_answer():
    log = EventLog()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    n = MAX_ROWS + 500
    for i in range(n):
        log.add(TextEvent(delta="x", display="x", t=0.001 * (i + 1)))
    log.add(EndEvent(text="x" * n, citations=[], audit_id=None, t=2.0))
    app = Host(lambda: InspectorScreen(log))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == MAX_ROWS + 1  # both ends and one gap row
        gap = table.get_row(GAP_KEY)
        assert str(gap[2]) == f"{n + 2 - MAX_ROWS} events not shown"
        assert f"text {n} chars" in drawn(app)


async def test_inspector_reloads_the_live_log():
    log = EventLog()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    app = Host(lambda: InspectorScreen(log))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        log.add(TextEvent(delta="Hi", display="Hi", t=0.3))  # the answer streams on while the panel is open
        await pilot.press("r")
        await pilot.pause()
        assert table.row_count == 2
        assert "first text 0.30 s" in drawn(app)
        log.add(EndEvent(text="Hi", citations=[], audit_id=None, t=0.5))
        log.add(ThinkingEvent(text="Searching", t=0.0))  # and a new one starts
        await pilot.press("r")
        await pilot.pause()
        assert "Answer 2 of 2" in drawn(app)


async def test_inspector_scrolls_sideways_at_40x20():
    app = Host(lambda: InspectorScreen(two_answer_log()))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.has_focus and table.scroll_x == 0
        await pilot.press("right", "right", "right")
        await pilot.wait_for_scheduled_animations()
        assert table.scroll_x > 0


async def test_inspector_with_no_events_says_so():
    app = Host(lambda: InspectorScreen(EventLog()))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "No events yet" in drawn(app)
        await pilot.press("p", "n")  # nothing to step to; must not fail
        await pilot.pause()


# --- prompt editor ------------------------------------------------------------------------------


async def test_prompt_editor_saves_with_ctrl_s():
    app = Host(lambda: PromptEditorScreen("Be brief.", "The default prompt."))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert app.screen.query_one(TextArea).has_focus
        await pilot.press("end", "space", "O", "k", ".")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == ["Be brief. Ok."]


async def test_prompt_editor_esc_cancels():
    app = Host(lambda: PromptEditorScreen("Be brief.", "The default prompt."))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        await pilot.press("x", "escape")
        await pilot.pause()
    assert app.results == [None]


async def test_prompt_editor_restores_the_default():
    app = Host(lambda: PromptEditorScreen("Be brief.", "The default prompt."))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen.query_one(TextArea).text == "The default prompt."
        assert "the default" in drawn(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == ["The default prompt."]


async def test_prompt_editor_refuses_an_empty_prompt():
    app = Host(lambda: PromptEditorScreen("x", "The default prompt."))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        await pilot.press("end", "backspace", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromptEditorScreen)
        assert "The prompt is empty" in drawn(app)
    assert app.results == []


# --- endpoint switcher --------------------------------------------------------------------------


def test_validate_endpoint_messages():
    assert validate_endpoint("offline", "", "") == []
    assert validate_endpoint("openai", "http://localhost:11434/v1", "llama3.1") == []
    assert validate_endpoint("openai", "https://api.example.com/v1", "gpt-4o-mini") == []
    assert any("base URL" in p for p in validate_endpoint("openai", "", "m"))
    assert any("http:// or https://" in p for p in validate_endpoint("openai", "ftp://host", "m"))
    assert any("http:// or https://" in p for p in validate_endpoint("openai", "localhost:8080", "m"))
    assert any("port" in p for p in validate_endpoint("openai", "http://host:99999", "m"))
    assert any("model name" in p for p in validate_endpoint("openai", "http://host", " "))
    assert any("spaces" in p for p in validate_endpoint("openai", "http://host", "my model"))
    assert any("backend" in p for p in validate_endpoint("cloud", "", ""))


async def test_endpoint_keeps_offline():
    app = Host(lambda: EndpointScreen("offline", None, None, False))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert app.screen.query_one(RadioSet).has_focus
        assert app.screen.query_one("#endpoint-url", Input).disabled  # offline: server fields skipped
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [{"backend": "offline", "base_url": None, "model": None, "api_key": None}]


@pytest.mark.parametrize("keys", [("up",), ("up", "enter"), ("down",)])
async def test_endpoint_switches_from_a_server_back_to_offline_with_one_arrow(keys):
    # Set to a server (e.g. one that refuses connections): one arrow picks "offline"; the ● follows it.
    app = Host(lambda: EndpointScreen("openai", "http://127.0.0.1:9/v1", "m", False))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "▐●▌ OpenAI-compatible server" in drawn(app)
        await pilot.press(*keys)
        await pilot.pause()
        assert "▐●▌ offline, built in" in drawn(app)
        assert app.screen.query_one("#endpoint-url", Input).disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [{"backend": "offline", "base_url": None, "model": None, "api_key": None}]


async def test_endpoint_switches_to_a_server_with_the_keyboard_alone():
    app = Host(lambda: EndpointScreen("offline", None, None, False))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")  # pick "OpenAI-compatible server"
        await pilot.pause()
        assert not app.screen.query_one("#endpoint-url", Input).disabled
        await pilot.press("tab", *"http://gpu:8/v1", "tab", *"qwen", "tab", *"sk-1")
        assert app.screen.query_one("#endpoint-key", Input).password  # the key is masked
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [
        {
            "backend": "openai",
            "base_url": "http://gpu:8/v1",
            "model": "qwen",
            "api_key": "sk-1",
        }
    ]


async def test_endpoint_shows_what_is_wrong_and_stays_open():
    app = Host(lambda: EndpointScreen("openai", "localhost:8080", "", True))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, EndpointScreen)
        app.screen.query_one("#endpoint-errors").scroll_visible(animate=False)
        await pilot.pause()
        text = drawn(app)
        assert "✗ The base URL must start with" in text  # wrapped at 40 columns
        assert "✗ Enter a model name the server" in text
        assert app.screen.query_one("#endpoint-url", Input).has_class("-invalid")
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_endpoint_keeps_the_saved_key_when_the_field_is_left_empty():
    app = Host(lambda: EndpointScreen("openai", "http://localhost:11434/v1", "llama3.1", True))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        assert "API key (set)" in drawn(app)
        assert "saved; type to replace" in drawn(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [
        {"backend": "openai", "base_url": "http://localhost:11434/v1", "model": "llama3.1", "api_key": None}
    ]


async def test_endpoint_names_a_backend_it_does_not_offer():
    app = Host(lambda: EndpointScreen("replay", None, None, False))
    async with app.run_test(size=NORMAL) as pilot:
        await pilot.pause()
        assert "Now using: replay" in drawn(app)


# --- themes and NO_COLOR ------------------------------------------------------------------------


@pytest.mark.parametrize("theme", ["ansi-dark", HIGH_CONTRAST.name])
async def test_meaning_is_in_the_text_under_any_theme(theme, monkeypatch):
    # NO_COLOR makes Textual draw in monochrome: marks and words must still carry every status.
    monkeypatch.setenv("NO_COLOR", "1")
    app = Host(lambda: AuditScreen(flagged_record()))
    app.register_theme(HIGH_CONTRAST)
    app.theme = theme
    async with app.run_test(size=(120, 50)) as pilot:
        assert app.no_color
        text = await whole_audit(app, pilot)
    for label in ("✓ shown as [1]", "✗ missing", "✗ retired", "✗ contradicted", "? unchecked", "✗ hidden"):
        assert label in text, label


async def test_radio_state_is_a_mark_not_a_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = Host(lambda: EndpointScreen("offline", None, None, False))
    async with app.run_test(size=THIN) as pilot:
        await pilot.pause()
        assert "▐●▌ offline, built in" in drawn(app)
        assert "▐ ▌ OpenAI-compatible server" in drawn(app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert "▐ ▌ offline, built in" in drawn(app)
        assert "▐●▌ OpenAI-compatible server" in drawn(app)


def test_inspector_describes_every_event_type_on_one_inert_line():
    assert (
        describe(ThinkingEvent(text="Checking citations…", phase="checking"))
        == "checking: Checking citations…"
    )
    assert (
        describe(SourcesEvent(sources=[SourcePreview(id="a", title="A", snippet="s")] * 2))
        == "2 sources: A; A"
    )
    assert describe(TextEvent(delta="x", display="x [·1]", held=4)) == "“x [·1]” held 4"
    reset = ResetEvent(
        reason="safety", rule="dose", withdrawn="abc", withdrawn_display="abc", note="Withdrawn"
    )
    assert describe(reset) == "safety (dose): 3 chars withdrawn · Withdrawn"
    end = EndEvent(
        text="t",
        citations=[],
        audit_id=1,
        verification=VerificationSummary(attempted=2, missing=1, unchecked=1, note="timed out"),
    )
    assert (
        describe(end)
        == "complete · 0 shown of 2 cited · 1 missing, 0 retired, 0 ungrounded, 1 unchecked · timed out"
    )
    assert describe(ErrorEvent(kind="auth", message="bad key")) == "auth: bad key"
    assert shown_rows(3) == [0, 1, 2]
    rows = shown_rows(MAX_ROWS + 7)
    assert len(rows) == MAX_ROWS + 1 and rows[MAX_ROWS // 2] is None and rows[-1] == MAX_ROWS + 6


@pytest.mark.parametrize(
    ("created", "shown"),
    [
        ("2026-11-30T03:48:30.141+00:00", "2026-11-30 03:48:30 UTC"),
        ("2026-01-01T00:00:00Z", "2026-01-01 00:00:00 UTC"),
        ("2026-01-01T10:00:00+01:00", "2026-01-01 09:00:00 UTC"),
        ("yesterday\x1b[2J", "yesterday"),  # not a timestamp: shown as it is, made safe
    ],
)
def test_audit_shows_when_it_was_asked_readably(created, shown):
    assert asked_text(created).startswith(shown) and "\x1b" not in asked_text(created)
