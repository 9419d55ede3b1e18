"""The panels in the real app on the real engine (offline backend, demo KB, frozen clock): the audit panel
reads the record the engine stored, the inspector shows the events the app consumed, copy text matches."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.export import answer_with_citations
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.screens import AuditScreen, InspectorScreen
from tests.ui.panel_data import drawn

QUESTION = "How is hypertension diagnosed?"
TITLE = "Hypertension: confirming the diagnosis"  # a demo KB source the offline backend cites for it


@pytest.fixture
async def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HippoApp:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    settings = Settings(home=tmp_path, offline_tokens_per_second=0)
    engine = await Engine.create(settings, clock=lambda: 0.0)
    return HippoApp(settings, engine=engine, animate=False)


async def test_audit_and_inspector_after_a_real_offline_answer(app: HippoApp):
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.prompt.value = QUESTION
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.turns and app.turns[-1].outcome == "complete"

        await app.run_action("show_audit")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, AuditScreen)
        assert app.screen.record is not None and app.screen.record.question == QUESTION
        text = drawn(app)
        assert f"✓ shown as [1]  {TITLE}" in text
        assert "check 1: ✓ confirmed" in text and "check 2: ✓ supported" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AuditScreen)

        await app.run_action("show_inspector")
        await pilot.pause()
        assert isinstance(app.screen, InspectorScreen)
        events = app.event_log.answers()[-1]
        assert app.screen.query_one(DataTable).row_count == len(events)
        assert events[-1].type == "end"
        text = drawn(app)
        assert "Answer 1 of 1 · complete" in text
        assert "first text 0.00 s" in text  # the frozen clock, not wall time
        await pilot.press("escape")

    copied = answer_with_citations(app.turns[-1])
    assert f"[1] {TITLE} (verified; source " in copied
    assert copied.startswith("A clinic blood pressure")
