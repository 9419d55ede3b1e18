"""The app on the real engine (offline backend, demo KB, a tmp data folder): no scripted events."""

from __future__ import annotations

from hippo_tui.events import EndEvent, TextEvent
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.screens import AuditScreen, InspectorScreen
from tests.ui.fakes import ask, until

QUESTION = "How should uncomplicated cystitis be treated?"


def _ready(app: HippoApp) -> bool:
    return app.engine is not None and not app.prompt.disabled


async def test_real_engine_answers_with_verified_citations(make_app):
    app = make_app()  # engine=None: the app creates the real one on mount
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: _ready(app), tries=2000)
        assert "demo" in app.status.kb
        await ask(pilot, QUESTION)
        await until(pilot, lambda: bool(app.turns), tries=2000)
        end = app.event_log.entries[-1]
        assert isinstance(end, EndEvent) and end.outcome == "complete"
        assert any(isinstance(e, TextEvent) for e in app.event_log.entries)
        turn = app.turns[-1]
        assert turn.citations and turn.audit_id is not None
        view = app.pane.turns[-1]
        assert "[1]" in view.source and "[·" not in view.source
        sidebar = "\n".join(str(w.render()) for w in app.sidebar.query("Static"))
        assert "[1]" in sidebar and ("✓ verified" in sidebar or "? unchecked" in sidebar)
        record = await app.engine.get_answer(turn.audit_id)
        assert record is not None and record.outcome == "complete"


async def test_real_engine_cancel_restores_prompt_and_records_it(make_app):
    app = make_app(offline_tokens_per_second=20)  # slow enough to catch it mid-answer
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: _ready(app), tries=2000)
        await ask(pilot, QUESTION)
        await until(pilot, lambda: any(isinstance(e, TextEvent) for e in app.event_log.entries), tries=2000)
        await pilot.press("escape")
        await until(pilot, lambda: not app.prompt.disabled)
        assert app.prompt.value == QUESTION
        assert app.turns[-1].outcome == "cancelled"


async def test_cancelled_answer_opens_in_the_audit_and_inspector_as_cancelled(make_app):
    app = make_app(offline_tokens_per_second=20)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: _ready(app), tries=2000)
        await ask(pilot, "How is gout treated?")
        await until(pilot, lambda: bool(app.turns), tries=2000)  # a complete answer first
        await ask(pilot, QUESTION)
        await until(pilot, lambda: any(isinstance(e, TextEvent) for e in app.event_log.answers()[-1]))
        await pilot.press("escape")
        await pilot.press("f3")  # at once: the panel waits for the cancelled answer's record
        await until(pilot, lambda: isinstance(app.screen, AuditScreen))
        record = app.screen.record
        assert record is not None and record.outcome == "cancelled" and record.question == QUESTION
        assert app.turns[-1].audit_id == record.id
        await pilot.press("escape", "f4")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        metrics = str(app.screen.query_one("#inspector-metrics").render())
        assert "Answer 2 of 2 · cancelled" in metrics


async def test_the_same_question_asked_twice_then_cancelled_opens_the_cancelled_answers_record(make_app):
    app = make_app(offline_tokens_per_second=20)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: _ready(app), tries=2000)
        await ask(pilot, QUESTION)
        await pilot.press("escape")
        await until(pilot, lambda: len(app.turns) == 1, tries=2000)
        first = app.turns[0].audit_id
        await ask(pilot, QUESTION)  # the same question again, cancelled again
        await until(pilot, lambda: any(isinstance(e, TextEvent) for e in app.event_log.answers()[-1]))
        await pilot.press("escape", "f3")
        await until(pilot, lambda: isinstance(app.screen, AuditScreen), tries=2000)
        record = app.screen.record
        assert record is not None and record.outcome == "cancelled" and record.question == QUESTION
        assert first is not None and record.id == app.turns[-1].audit_id and record.id != first
        start = app.event_log.answers()[-1][0]
        assert start.type == "start" and start.audit_id == record.id  # the id the engine announced
