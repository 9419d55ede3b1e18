"""The audit dashboard (F9 or the palette): bars per model and per day, retired sources, the answers with the
most failed citations opening in the audit panel. Fixed statistics, so the snapshots are exact; approve
changes with ``--snapshot-update`` only after looking at them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from hippo_tui.audit_stats import AuditStats, StatsBy
from hippo_tui.config import Settings
from hippo_tui.models import AnswerRecord
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.screens.audit import AuditScreen
from hippo_tui.ui.screens.dashboard import DashboardScreen
from hippo_tui.ui.widgets.bars import bar
from tests.support.audit_stats_data import empty_stats, fixed_stats
from tests.support.textual_internals import notices
from tests.ui.fakes import ScriptedEngine, answer_events, until
from tests.ui.panel_data import drawn, flagged_record

SIZES = [
    pytest.param((40, 20), id="40x20"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((120, 34), id="120x34"),
]


class StatsEngine(ScriptedEngine):
    """The scripted engine with the audit record the dashboard reads: fixed statistics, one stored answer."""

    def __init__(self, stats: Callable[[StatsBy], AuditStats] = fixed_stats) -> None:
        super().__init__(answer_events())
        self.stats = stats
        self.asked_by: list[StatsBy] = []
        self.records = {42: flagged_record()}

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        self.asked_by.append(by)
        return self.stats(by)

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        return self.records.get(audit_id)


@pytest.fixture
def dash_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., HippoApp]:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)

    def make(engine: StatsEngine | None = None) -> HippoApp:
        settings = Settings(home=tmp_path, offline_tokens_per_second=0)
        return HippoApp(settings, engine=engine or StatsEngine(), animate=False)

    return make


async def open_dashboard(pilot: Pilot, key: str = "f9") -> DashboardScreen:
    app = pilot.app
    assert isinstance(app, HippoApp)
    await until(pilot, lambda: not app.prompt.disabled)
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, DashboardScreen))
    await app.screen.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(app.screen, DashboardScreen)
    return app.screen


def test_bar_glyphs_measure_to_the_eighth_of_a_cell():
    assert bar(0.0, 4) == "░░░░"
    assert bar(1.0, 4) == "████"
    assert bar(0.5, 3) == "█▌░"
    assert bar(2.0, 2) == "██"  # clamped: never wider than its track


async def test_f9_opens_per_model_and_d_m_switch(dash_app):
    engine = StatsEngine()
    app = dash_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dashboard(pilot)
        text = drawn(app)
        assert "Per model" in text and "gpt-4o-mini" in text
        assert "15.0%" in text and "82.0%" in text  # gpt-4o-mini: 6 of 40 flagged; 82% of statements backed
        await pilot.press("d")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        text = drawn(app)
        assert "Per day (UTC)" in text and "2026-11-28" in text and "gpt-4o-mini" not in text
        await pilot.press("m")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        assert "gpt-4o-mini" in drawn(app)
        assert engine.asked_by == ["model", "day", "model"]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, DashboardScreen)


async def test_palette_opens_it(dash_app):
    app = dash_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: not app.prompt.disabled)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Audit dashboard")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen))


async def test_enter_on_a_failed_answer_opens_its_audit(dash_app):
    app = dash_app()
    async with app.run_test(size=(40, 20)) as pilot:
        screen = await open_dashboard(pilot)
        await pilot.press("tab")
        assert isinstance(screen.focused, OptionList)
        await pilot.press("enter")  # the first: answer 42, four of five citations failed
        await until(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert isinstance(app.screen, AuditScreen) and app.screen.record is not None
        assert app.screen.record.id == 42
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen  # back on the dashboard


async def test_an_answer_gone_from_the_record_says_so(dash_app):
    engine = StatsEngine()
    engine.records.clear()
    app = dash_app(engine)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot)
        await pilot.press("tab", "enter")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert any("no longer in the audit record" in n for n in notices(app))


async def test_empty_record_says_so(dash_app):
    app = dash_app(StatsEngine(empty_stats))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dashboard(pilot)
        assert "The audit record is empty" in drawn(app)


async def test_a_store_error_is_shown_and_the_panel_stays(dash_app):
    def broken(by: StatsBy) -> AuditStats:
        raise RuntimeError("database is locked")

    app = dash_app(StatsEngine(broken))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dashboard(pilot)
        assert "Could not read the audit record: database is locked" in drawn(app)


async def run_dashboard(pilot: Pilot) -> None:
    await open_dashboard(pilot)


@pytest.mark.parametrize("size", SIZES)
class TestDashboardSnapshot:
    def test_per_model(self, snap_compare, dash_app, size):
        assert snap_compare(dash_app(), terminal_size=size, run_before=run_dashboard)

    def test_per_day(self, snap_compare, dash_app, size):
        async def per_day(pilot: Pilot) -> None:
            await open_dashboard(pilot)
            await pilot.press("d")
            await pilot.app.screen.workers.wait_for_complete()
            await pilot.pause()

        assert snap_compare(dash_app(), terminal_size=size, run_before=per_day)


def test_scrolled_to_the_failed_answers_at_40x20(snap_compare, dash_app):
    async def scrolled(pilot: Pilot) -> None:
        await open_dashboard(pilot)
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(dash_app(), terminal_size=(40, 20), run_before=scrolled)


def test_empty_record_snapshot(snap_compare, dash_app):
    assert snap_compare(dash_app(StatsEngine(empty_stats)), terminal_size=(40, 20), run_before=run_dashboard)
