"""Pilot tests of the main screen's behaviour, driven by the scripted engine."""

from __future__ import annotations

import gc
import itertools
from pathlib import Path

from textual.widget import Widget

from hippo_tui.events import EndEvent, ErrorEvent, ResetEvent, SourcesEvent, TextEvent, ThinkingEvent
from hippo_tui.models import AnswerRecord
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.screens import AuditScreen, HelpScreen, InspectorScreen
from hippo_tui.ui.widgets.turn import TurnView
from tests.support.textual_internals import notices
from tests.ui.fakes import (
    IDS,
    QUESTION,
    ScriptedEngine,
    answer_events,
    ask,
    ask_in_turn,
    error_events,
    long_answer_events,
    reset_events,
    safety_events,
    timeout_events,
    until,
)


def _turn(app: HippoApp, index: int = -1) -> TurnView:
    return app.pane.turns[index]


def _sidebar_text(app: HippoApp) -> str:
    return "\n".join(str(w.render()) for w in app.sidebar.query("Static"))


async def _settled(pilot, app: HippoApp, events: int) -> None:
    await until(pilot, lambda: len(app.event_log.entries) >= events)
    await pilot.pause()


async def test_answer_streams_then_final_update_has_verified_markers(make_app):
    engine = ScriptedEngine(answer_events())
    app = make_app(engine)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        view = _turn(app)
        assert view.outcome == "complete"
        source = view.source
        assert "[1]" in source and "[2]" in source
        assert "[·" not in source  # pending numbers are gone after the final update
        assert app.turns[0].question == QUESTION and [c.number for c in app.turns[0].citations] == [1, 2]


async def test_verification_updates_sidebar_and_status(make_app):
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        text = _sidebar_text(app)
        assert "[1] Cystitis in adults" in text and "✓ verified" in text
        assert "[2] Nitrofurantoin" in text and "? unchecked" in text
        assert "1 citation hidden — see audit (f3)" in text
        assert "Urine culture" in text  # retrieved but not shown as a citation
        assert "1 of 3 citations verified" in app.status.phase


async def test_sources_preview_before_text(make_app):
    app = make_app(ScriptedEngine(answer_events(), pause_after=2))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 2)
        text = _sidebar_text(app)
        assert text.count("•") == 3 and "Cystitis in adults" in text
        assert app.status.busy and app.prompt.disabled
        app.engine.release()


async def test_reset_removes_exactly_the_withdrawn_text_and_leaves_a_note(make_app):
    events = reset_events()
    reset_at = next(i for i, e in enumerate(events) if e.type == "reset")
    app = make_app(ScriptedEngine(events, pause_after=reset_at + 1))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, reset_at + 1)
        view = _turn(app)
        assert view.display_text == ""
        assert "I think" not in view.source
        notes = str(view.notes.render())
        assert "(31 characters)" in notes and "looks something up" in notes
        app.engine.release()
        await until(pilot, lambda: bool(app.turns))
        assert "I think" not in view.source
        assert view.source.startswith("Adults with")


async def test_reset_keeps_text_before_the_withdrawn_part(make_app):
    events = [
        ThinkingEvent(text="Searching", phase="searching"),
        SourcesEvent(sources=[]),
        TextEvent(delta="Kept part. ", display="Kept part. "),
        TextEvent(delta="Dropped", display="Dropped"),
        ResetEvent(
            reason="tool_call", withdrawn="Dropped", withdrawn_display="Dropped", note="Looked it up."
        ),
    ]
    app = make_app(ScriptedEngine(events, pause_after=len(events)))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, len(events))
        view = _turn(app)
        assert view.display_text == "Kept part. "
        assert view.source == "Kept part. "
        app.engine.release()


async def test_escape_cancels_and_restores_the_question(make_app):
    engine = ScriptedEngine(answer_events(), pause_after=5)
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 5)
        assert app.prompt.disabled
        await pilot.press("escape")
        assert engine.cancelled == [QUESTION]  # through the engine's cancel()
        assert app.prompt.value == QUESTION and not app.prompt.disabled  # at once
        await until(pilot, lambda: bool(app.turns))  # the engine's cancelled end
        assert app.turns[-1].outcome == "cancelled"
        assert _turn(app).outcome == "cancelled"
        assert "Cancelled" in app.status.phase
        # Esc with nothing running does nothing.
        await pilot.press("escape")
        assert len(app.turns) == 1


async def test_error_notifies_with_the_action_and_restores_the_prompt(make_app):
    app = make_app(ScriptedEngine(error_events()))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert app.prompt.value == QUESTION and not app.prompt.disabled
        assert app.turns[-1].outcome == "error"
        messages = notices(app)
        assert any("Start the server" in m and "f6 switches the model" in m for m in messages)
        assert app.status.phase.startswith("✗ Error")
        assert app.status.has_class("-error")


async def test_engine_exception_becomes_an_error_not_a_crash(make_app):
    class Broken(ScriptedEngine):
        async def play(self, question, prompt):
            yield ThinkingEvent(text="Searching", phase="searching")
            raise RuntimeError("boom")

    app = make_app(Broken([]))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert app.turns[-1].outcome == "error" and app.prompt.value == QUESTION
        assert "boom" in app.status.phase


async def test_input_works_while_verification_runs(make_app):
    first = answer_events(audit_id=1)
    checking_at = next(i for i, e in enumerate(first) if getattr(e, "phase", "") == "checking")
    engine = ScriptedEngine([first, answer_events(audit_id=2)], pause_after=checking_at + 1)
    app = make_app(engine)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, checking_at + 1)
        assert not app.prompt.disabled  # usable from phase "checking"
        assert "Checking citations" in app.status.phase
        await ask(pilot, "A second question?")
        await until(pilot, lambda: len(engine.asked) == 2)
        await _settled(pilot, app, 2 * (checking_at + 1))
        engine.release()
        await until(pilot, lambda: len(app.turns) == 2)
        assert engine.cancelled == []  # the second question did not cancel the first verification
        first_view, second_view = app.pane.turns
        assert first_view.outcome == "complete" and second_view.outcome == "complete"
        assert "[1]" in first_view.source
        assert {t.audit_id for t in app.turns} == {1, 2}
        # The first answer's end came after the second had started: the log keeps them apart.
        answers = app.event_log.answers()
        assert [len(a) for a in answers] == [len(first), len(first)]
        assert [a[-1].audit_id for a in answers] == [1, 2]  # type: ignore[union-attr]
        assert all(sum(e.type == "end" for e in a) == 1 for a in answers)


async def test_enter_while_writing_does_not_start_a_second_answer(make_app):
    engine = ScriptedEngine(answer_events(), pause_after=4)
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 4)
        app.prompt.disabled = False  # even if the prompt were reachable, a second ask waits
        app.prompt.value = "again"
        await pilot.press("enter")
        await pilot.pause()
        assert engine.asked == [QUESTION]
        engine.release()


async def test_safety_withdrawal_clears_text_and_says_so(make_app):
    app = make_app(ScriptedEngine(safety_events()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        view = _turn(app)
        assert view.outcome == "withdrawn" and view.display_text == ""
        assert "MRN" not in view.source
        assert "patient_identifier" in str(view.notes.render())
        assert "withdrawn" in app.status.phase.lower()
        assert not app.prompt.disabled


async def test_verification_timeout_keeps_citations_unchecked(make_app):
    app = make_app(ScriptedEngine(timeout_events()))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert "Verification unavailable: timed out" in app.status.phase
        assert _sidebar_text(app).count("? unchecked") == 2


async def test_history_up_and_down(make_app):
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(80, 24)) as pilot:
        for q in ("first", "second"):
            await ask(pilot, q)
            await until(pilot, lambda q=q: len(app.turns) == (1 if q == "first" else 2))
        await until(pilot, lambda: not app.prompt.disabled)
        app.prompt.value = "draft"
        await pilot.press("up")
        assert app.prompt.value == "second"
        await pilot.press("up", "up")
        assert app.prompt.value == "first"
        await pilot.press("down", "down")
        assert app.prompt.value == "draft"


async def test_new_conversation_clears_pane_and_turns(make_app):
    engine = ScriptedEngine(answer_events())
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.pane.turns == [] and app.turns == []
        assert engine.new_conversations == 1


async def test_old_turns_are_pruned(make_app):
    short = [
        ThinkingEvent(text="Checking citations…", phase="checking"),
        EndEvent(text="Short answer.", citations=[], audit_id=None),
    ]
    app = make_app(ScriptedEngine(short))
    async with app.run_test(size=(80, 24)) as pilot:
        app.pane.max_turns = 3
        for i in range(5):
            await ask(pilot, f"q{i}")
            await until(pilot, lambda i=i: len(app.turns) == i + 1)
        assert [t.question for t in app.pane.turns] == ["q2", "q3", "q4"]
        assert len(app.turns) == 5  # the conversation itself is kept for export
        assert app.pane.query(".pruned")


async def test_sidebar_toggle_wide_and_narrow(make_app):
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.sidebar.display
        await pilot.press("ctrl+b")
        assert not app.sidebar.display
        await pilot.press("ctrl+b")
        assert app.sidebar.display
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert app.screen.has_class("-narrow")
        assert not app.sidebar.display  # an overlay, hidden until asked for
        await pilot.press("f2")
        assert app.sidebar.display


async def test_keys_are_configurable(make_app):
    app = make_app(ScriptedEngine(answer_events()), keys={"toggle_sidebar": "f9", "nonsense": "f10"})
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("f9")
        assert not app.sidebar.display
        assert ("f9", "Toggle sources") in app.key_table()
        assert any("nonsense" in n for n in notices(app))


async def test_footer_shows_the_keys_that_matter(make_app):
    app = make_app(ScriptedEngine(answer_events(), pause_after=4))
    async with app.run_test(size=(120, 30)) as pilot:

        def shown() -> set[str]:
            return {b.binding.action for b in app.screen.active_bindings.values() if b.enabled}

        assert "cancel" not in shown() and "show_audit" not in shown()
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 4)
        assert "cancel" in shown()
        app.engine.release()
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert "cancel" not in shown() and "show_audit" in shown() and "copy_answer" in shown()


async def test_every_action_is_in_the_command_palette(make_app):
    app = make_app(ScriptedEngine(answer_events(), pause_after=4))
    async with app.run_test(size=(80, 24)) as pilot:

        def palette() -> str:
            return " | ".join(c.title for c in app.get_system_commands(app.screen))

        # Like the footer, the palette leaves out what does nothing now.
        assert "Cancel answer" not in palette() and "Copy answer" not in palette()
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 4)
        assert "Cancel answer (esc)" in palette()
        app.engine.release()
        await until(pilot, lambda: bool(app.turns))
        app.engine.pause_after = 4
        await ask(pilot, QUESTION)  # a second answer, paused again: every action applies now
        await _settled(pilot, app, len(answer_events()) + 4)
        titles = palette()
        for action in (
            "show_help",
            "show_audit",
            "show_inspector",
            "edit_prompt",
            "switch_model",
            "export",
            "copy_answer",
            "toggle_sidebar",
            "new_conversation",
            "cancel",
        ):
            assert hasattr(app, f"action_{action}")
            title = next(t for a, t, _ in HippoApp.COMMANDS_TABLE if a == action)
            assert title in titles


async def test_panels_open_from_keys(make_app):
    engine = ScriptedEngine(answer_events(audit_id=7))
    engine.store.records[7] = AnswerRecord(
        id=7,
        created="2026-01-01T00:00:00Z",
        question=QUESTION,
        model="offline",
        backend="offline",
        outcome="complete",
    )
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert app.screen.record is engine.store.records[7]
        await pilot.press("escape")
        await pilot.press("f4")
        assert isinstance(app.screen, InspectorScreen)


async def test_prompt_editor_result_applies_and_is_saved(make_app, settings):
    engine = ScriptedEngine(answer_events())
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app._prompt_edited("Be brief.")
        assert app.session.conversation.system_prompt == "Be brief."
        assert (Path(settings.home) / "system_prompt.md").read_text() == "Be brief."
    # A new app picks the saved prompt up.
    engine2 = ScriptedEngine(answer_events())
    async with make_app(engine2).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert engine2.conversations[0].system_prompt == "Be brief."


async def test_copy_and_export(make_app, settings):
    app = make_app(ScriptedEngine(answer_events()))
    copied: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.press("f7")
        assert copied and "[1]" in copied[0] and "Cystitis in adults" in copied[0]
        await pilot.press("f8")
        app.action_export("json")
        app.action_export("json")  # twice in the same second: a second file, not an overwrite
        exported = sorted((Path(settings.home) / "exports").iterdir())
        assert sorted(p.suffix for p in exported) == [".json", ".json", ".md"]
        markdown = next(p for p in exported if p.suffix == ".md")
        assert "Cystitis in adults" in markdown.read_text()


async def test_model_text_is_made_safe(make_app):
    hostile = "Look \x1b]52;c;ZXZpbA==\x07here [click](http://evil.example/x) \x1b[31m[bold]red[/]"
    events = [
        ThinkingEvent(text="Searching \x1b[2J", phase="searching"),
        TextEvent(delta=hostile, display=hostile),
        ThinkingEvent(text="Checking citations…", phase="checking"),
        EndEvent(text=hostile, citations=[], audit_id=None),
    ]
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "q")
        await until(pilot, lambda: bool(app.turns))
        source = _turn(app).source
        assert "\x1b" not in source and "\x07" not in source
        rendered = "".join(str(b.render()) for b in app.pane.query("MarkdownBlock"))
        assert "http://evil.example/x" in rendered  # the link shows its URL
        assert "[bold]red[/]" in rendered  # markup is shown, not interpreted


async def test_error_during_checking_does_not_take_the_prompt(make_app):
    events = [*answer_events()[:-1], ErrorEvent(kind="store", message="disk full", action="Free some space")]
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert app.prompt.value == "" and not app.prompt.disabled
        assert app.turns[-1].outcome == "error"


async def test_long_answer_keeps_only_nearby_segments_mounted(make_app):
    events = long_answer_events(12_000, 200)
    final = events[-1]
    assert isinstance(final, EndEvent)
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        view = _turn(app)
        assert len(view.segments) > 4
        assert view.source == final.text  # every segment holds its part of the final text
        await pilot.pause()
        await app.pane._virtualize()
        first = view.segments[0][0]
        assert first.collapsed and not first.query("MarkdownBlock")
        assert not view.segments[-1][0].collapsed
        app.pane.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await app.pane._virtualize()
        assert not first.collapsed and first.query("MarkdownBlock")
        assert first.source == view.segments[0][1]
        assert "[1]" in first.source and "[·" not in first.source


async def test_high_contrast_theme_from_settings_and_palette(make_app):
    app = make_app(ScriptedEngine(answer_events()), theme="high-contrast")
    async with app.run_test(size=(80, 24)):
        assert app.theme == "hippo-high-contrast"
        app.action_toggle_contrast()
        assert app.theme != "hippo-high-contrast"


async def test_ansi_theme_alias_and_unknown_theme(make_app):
    app = make_app(ScriptedEngine(answer_events()), theme="ansi")
    async with app.run_test(size=(80, 24)):
        assert app.theme == "ansi-dark"
    app = make_app(ScriptedEngine(answer_events()), theme="no-such-theme")
    async with app.run_test(size=(80, 24), notifications=True):
        assert any("no-such-theme" in n for n in notices(app))


async def test_no_color_keeps_meaning_in_marks_and_words(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert "✓ verified" in _sidebar_text(app) and "? unchecked" in _sidebar_text(app)
        assert app.status.phase.startswith("✓ ")


async def test_switching_model_reconfigures_the_engine_and_status(make_app):
    engine = ScriptedEngine(answer_events())
    app = make_app(engine, api_key="sk-old")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app._endpoint_chosen(
            {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "tiny", "api_key": None}
        )
        await until(pilot, lambda: "tiny" in app.status.model)
        assert engine.reconfigured == [
            {"base_url": "http://127.0.0.1:9/v1", "model": "tiny", "backend": "openai"}
        ]
        assert app.settings.model == "tiny" and app.settings.api_key == "sk-old"  # empty key: kept


async def test_page_keys_scroll_the_answers_from_the_prompt(make_app):
    app = make_app(ScriptedEngine(long_answer_events(6_000, 300)))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert app.prompt.has_focus
        bottom = app.pane.scroll_y
        assert bottom > 0  # anchored at the end of the answer
        await pilot.press("pageup")
        assert app.pane.scroll_y < bottom
        await pilot.press("pagedown")
        assert app.pane.scroll_y == bottom


async def test_view_follows_new_text_until_the_reader_scrolls_up(make_app):
    events = long_answer_events(8_000, 200)
    engine = ScriptedEngine(events, pause_after=len(events) // 2)
    app = make_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: len(app.event_log.entries) >= len(events) // 2)
        await pilot.pause()
        assert app.pane.scroll_y == app.pane.max_scroll_y > 0  # following
        await pilot.press("pageup")
        held = app.pane.scroll_y
        engine.release()
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert app.pane.scroll_y == held < app.pane.max_scroll_y  # stayed where the reader is
        app.pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        await app.pane.add_turn("next")  # back at the bottom: follows again
        await pilot.pause()
        assert app.pane.scroll_y == app.pane.max_scroll_y


async def test_answer_finishes_while_a_panel_is_open(make_app):
    engine = ScriptedEngine(answer_events(), pause_after=4)
    app = make_app(engine)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: len(app.event_log.entries) >= 4)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        engine.release()
        await until(pilot, lambda: bool(app.turns))
        assert app.turns[-1].outcome == "complete"
        await pilot.press("escape")
        await pilot.pause()
        assert "1 of 3 citations verified" in app.status.phase
        assert "✓ verified" in _sidebar_text(app)


async def test_reference_style_links_keep_their_url_on_screen(make_app):
    text = "See [the leaflet][x] first.\n\n[x]: http://evil.example/ref\n"
    events = [
        TextEvent(delta=text, display=text),
        ThinkingEvent(text="Checking citations…", phase="checking"),
        EndEvent(text=text, citations=[], audit_id=None),
    ]
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "q")
        await until(pilot, lambda: bool(app.turns))
        rendered = "".join(str(b.render()) for b in app.pane.query("MarkdownBlock"))
        assert "http://evil.example/ref" in rendered  # the definition is not swallowed
        assert "[the leaflet][x]" in rendered


async def test_prompt_edited_in_the_editor_applies_to_the_next_question(make_app, settings):
    from textual.widgets import TextArea

    from hippo_tui.ui.screens import PromptEditorScreen

    engine = ScriptedEngine([answer_events(), answer_events()])
    app = make_app(engine)
    async with app.run_test(size=(40, 20)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: len(app.turns) == 1)
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
        app.screen.query_one(TextArea).text = "Answer in one sentence."
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, PromptEditorScreen))
        await ask(pilot, QUESTION)
        await until(pilot, lambda: len(app.turns) == 2)
    assert engine.prompts_at_ask == [engine.default_system_prompt, "Answer in one sentence."]
    assert (Path(settings.home) / "system_prompt.md").read_text() == "Answer in one sentence."


def _marked_pieces() -> list[TextEvent]:
    """Released text whose delta carries a real marker, shown as a pending number."""
    return [
        TextEvent(delta=f"Trimethoprim for 3 days [{IDS[0]}]. ", display="Trimethoprim for 3 days [·1]. "),
        TextEvent(delta="Nitrofurantoin is", display="Nitrofurantoin is"),
    ]


async def test_cancel_drops_pending_markers_nothing_was_checked(make_app):
    engine = ScriptedEngine([*_marked_pieces(), *answer_events()[3:]], pause_after=2)
    app = make_app(engine)
    copied: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 2)
        assert "[·1]" in _turn(app).source  # pending while it streams
        await pilot.press("escape")
        await until(pilot, lambda: bool(app.turns))
        assert engine.cancelled == [QUESTION]
        assert "[·" not in _turn(app).source
        assert app.turns[-1].text == "Trimethoprim for 3 days. Nitrofurantoin is"
        await pilot.press("f7")
        assert copied and "[·" not in copied[0] and "(answer cancelled" in copied[0].lower()


async def test_error_mid_answer_drops_pending_markers(make_app):
    error = ErrorEvent(kind="server", message="The server failed", action="Ask again.", t=0.5)
    app = make_app(ScriptedEngine([*_marked_pieces(), error]))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert "[·" not in _turn(app).source and "Trimethoprim for 3 days." in _turn(app).source
        assert app.turns[-1].text == "Trimethoprim for 3 days. Nitrofurantoin is"
        assert app.prompt.value == QUESTION


async def test_footer_at_40_columns_fits_cancel_audit_and_copy(make_app):
    from textual.widgets import Footer

    app = make_app(ScriptedEngine(answer_events(), pause_after=4))
    async with app.run_test(size=(40, 20)) as pilot:

        def fitting() -> list[str]:
            """Footer keys drawn whole within the 40 columns."""
            return [k.description for k in app.query("FooterKey") if k.region.width and k.region.right <= 40]

        await ask(pilot, QUESTION)
        await _settled(pilot, app, 4)
        await pilot.pause()
        assert fitting()[0] == "Cancel" and "Help" in fitting()
        app.engine.release()
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        assert {"Help", "Sources", "Audit", "Copy"} <= set(fitting())
        assert not app.query_one(Footer).show_command_palette  # F1 lists ^p at this width
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.query_one(Footer).show_command_palette


async def test_a_successful_switch_takes_down_the_old_endpoints_error(make_app):
    app = make_app(ScriptedEngine(error_events()))
    async with app.run_test(size=(40, 20), notifications=True) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert any("Could not connect" in n for n in notices(app))
        app._endpoint_chosen({"backend": "offline", "base_url": None, "model": None, "api_key": None})
        await until(pilot, lambda: any("Now using" in n for n in notices(app)))
        assert not any("Could not connect" in n for n in notices(app))
        assert app.prompt.value == QUESTION  # still there, to ask again on the new endpoint


async def test_page_keys_scroll_the_sources_overlay_when_it_covers_the_answers(make_app):
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(40, 12)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert app.sidebar.max_scroll_y > 0 and app.prompt.has_focus
        answers_at = app.pane.scroll_y
        assert answers_at > 0  # following the end of the answer
        await pilot.press("pagedown")
        await pilot.pause()
        assert app.sidebar.scroll_y > 0 and app.pane.scroll_y == answers_at
        await pilot.press("ctrl+b", "pageup")  # overlay closed: the page keys are the answers' again
        await pilot.pause()
        assert app.pane.scroll_y < answers_at


async def test_sidebar_shows_the_pending_numbers_of_the_text_while_streaming_then_the_final_ones(make_app):
    numbered = [
        TextEvent(delta=f"Trimethoprim [{IDS[1]}]. ", display="Trimethoprim [·1]. ", numbers={IDS[1]: 1}),
        TextEvent(delta="More.", display="More.", numbers={IDS[1]: 1}),
    ]
    events = [*answer_events()[:3], *numbered, *answer_events()[-2:]]
    engine = ScriptedEngine(events, pause_after=5)
    app = make_app(engine)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await _settled(pilot, app, 5)
        text = _sidebar_text(app)
        assert "[·1] Nitrofurantoin: dosing" in text  # the number the text shows for that source
        assert "• Cystitis in adults" in text and "• Urine culture" in text  # not cited (yet)
        engine.release()
        await until(pilot, lambda: bool(app.turns))
        await until(pilot, lambda: "[·" not in _sidebar_text(app))  # the marks follow the answer by a frame
        text = _sidebar_text(app)
        assert "[1] Cystitis in adults" in text and "[2] Nitrofurantoin" in text


async def test_an_answer_cut_at_the_output_limit_says_so(make_app):
    events = answer_events()
    end = events[-1]
    assert isinstance(end, EndEvent)
    events[-1] = end.model_copy(update={"cut": True})
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        await pilot.pause()
        footer = str(_turn(app).footer.render())
        assert "Cut at the output limit" in footer and "[1]" in footer
        assert "Cut at the output limit" in app.status.phase
        assert "[1]" in _turn(app).source  # what it wrote is kept, verified as usual


async def test_an_error_shows_the_engines_final_text_of_what_was_released(make_app):
    error = ErrorEvent(
        kind="server", message="The server failed", partial_text="Trimethoprim for 3 days.", t=0.5
    )
    app = make_app(ScriptedEngine([*_marked_pieces(), error]))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns))
        assert _turn(app).source == "Trimethoprim for 3 days."  # the engine's text, not the pane's
        assert app.turns[-1].text == "Trimethoprim for 3 days."


async def test_a_long_session_keeps_bounded_windows(make_app):
    """Many answers in one session: the pane, the event log and the session's turns keep their windows."""
    short = [
        ThinkingEvent(text="Checking citations…", phase="checking"),
        EndEvent(text="Short answer.", citations=[], audit_id=None),
    ]
    app = make_app(ScriptedEngine(short))
    async with app.run_test(size=(80, 24)) as pilot:
        app.pane.max_turns, app.event_log.max_answers, app.session.max_turns = 2, 3, 4
        for i in range(9):
            await ask(pilot, f"q{i}")
            await until(pilot, lambda i=i: app.session.asked == i + 1 and app.session.active is None)
        await until(pilot, lambda: len(app.turns) == 4)
        assert [t.question for t in app.turns] == ["q5", "q6", "q7", "q8"]
        assert app.session.dropped_turns == 5
        assert [t.question for t in app.pane.turns] == ["q7", "q8"]
        assert len(app.event_log.answers()) == 3


async def test_a_long_session_does_not_keep_the_widgets_it_removed(make_app):
    """The pane's pruned turns, the sidebar's old sources and the footer's old keys (it is rebuilt as the
    keys change, several times an answer) are all let go: a clinic's day of answers does not pile up."""
    app = make_app(ScriptedEngine(answer_events()))
    async with app.run_test(size=(100, 30)) as pilot:
        app.pane.max_turns = 2
        await ask_in_turn(pilot, 6)
        gc.collect()
        kept = [o for o in gc.get_objects() if isinstance(o, Widget) and not o.is_attached]
        assert kept == []


async def test_a_fast_engines_2000_pieces_stream_in_steps_and_end_with_the_full_text(make_app, monkeypatch):
    """An engine far faster than the screen: the pane still shows the answer growing (several draws, each a
    prefix of the answer ending where an engine piece ends) and ends with the whole final text, every
    event logged for the inspector."""
    events = long_answer_events(24_000, 12)  # 2,000 text events
    final = events[-1]
    assert isinstance(final, EndEvent)
    pieces = [e.display for e in events if isinstance(e, TextEvent)]
    streamed = "".join(pieces)
    boundaries = set(itertools.accumulate(len(p) for p in pieces))
    drawn: list[str] = []
    append = TurnView.append

    async def noting(self: TurnView, display: str) -> None:
        await append(self, display)
        drawn.append(self.source)

    monkeypatch.setattr(TurnView, "append", noting)
    app = make_app(ScriptedEngine(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns), tries=4_000)
        assert _turn(app).source == final.text
        assert app.event_log.metrics().counts["text"] == 2_000
    assert 5 < len(drawn) < 2_000  # drawn in steps, not once at the end nor piece by piece
    assert all(streamed.startswith(d) and len(d) in boundaries for d in drawn)
