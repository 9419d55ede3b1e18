"""Snapshots of the panels, opened in the real app through its actions, at 40x20, 80x24 and 120x34.

Most panels show the real product: the real engine's recorded answer to a demo question (a mid-answer
search and its reset), replayed on the real store it was recorded into, with the real system prompt. The
flagged-citations audit stays scripted on purpose: one record with every status at once (missing,
retired, contradicted, not established, unchecked) and two resets, which no single real answer gives. The spinner is frozen
and the cursor does not blink. Approve changes with ``--snapshot-update`` only after looking at them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from hippo_tui.config import Settings
from hippo_tui.ui.app import HippoApp
from tests.support.pilot import until
from tests.support.recorded import demo_settings, replay_factory
from tests.support.scripted import QUESTION, ScriptedEngine, ScriptedStore, answer_events
from tests.ui.panel_data import flagged_record

SIZES = [
    pytest.param((40, 20), id="40x20"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((120, 34), id="120x34"),
]

PROMPT = (
    "You are a careful medical assistant for clinicians.\n"
    "Answer only from the sources given, and cite each claim with the source id in brackets.\n"
    "If the sources do not answer the question, say so."
)

RunBefore = Callable[[Pilot], Awaitable[None]]


@pytest.fixture
def panel_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., HippoApp]:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)

    def make(theme: str | None = None) -> HippoApp:
        store = ScriptedStore()
        store.records[42] = flagged_record()
        engine = ScriptedEngine(answer_events(audit_id=42), store=store)
        engine.system_prompt = PROMPT
        settings = Settings(home=tmp_path, offline_tokens_per_second=0, theme=theme)
        return HippoApp(settings, engine=engine, animate=False)

    return make


@pytest.fixture
def real_app(recorded, monkeypatch: pytest.MonkeyPatch) -> Callable[..., HippoApp]:
    """The app on the real engine's recorded answer to the "reset" demo, and the real store."""
    home, recordings = recorded
    monkeypatch.setenv("HIPPO_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)

    def make(theme: str | None = None) -> HippoApp:
        recording = recordings["reset"]
        _engine, factory = replay_factory(recording)
        settings = demo_settings(home).model_copy(update={"theme": theme})
        app = HippoApp(settings, animate=False, engine_factory=factory)
        app.demo_question = recording.question  # type: ignore[attr-defined]
        return app

    return make


def open_panel(action: str, *, ask: bool = False) -> RunBefore:
    """Optionally ask the scripted question and wait for its answer, then run the app's action."""

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, HippoApp)
        await until(pilot, lambda: app.engine is not None and not app.prompt.disabled)
        if ask:
            app.prompt.value = getattr(app, "demo_question", QUESTION)
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
        await app.run_action(action)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES)
class TestHelpSnapshot:
    def test_help(self, snap_compare, real_app, size):
        assert snap_compare(real_app(), terminal_size=size, run_before=open_panel("show_help"))


@pytest.mark.parametrize("size", SIZES)
class TestAuditSnapshot:
    def test_audit_flagged_citations(self, snap_compare, panel_app, size):
        # Missing, retired, contradicted, not established and unchecked citations next to the one shown, and two resets.
        assert snap_compare(panel_app(), terminal_size=size, run_before=open_panel("show_audit", ask=True))

    def test_audit_real_answer(self, snap_compare, real_app, size):
        # The real record of an answer that searched again mid-answer: its reset and both citations.
        assert snap_compare(real_app(), terminal_size=size, run_before=open_panel("show_audit", ask=True))


def test_audit_scrolled_to_the_resets_at_40x20(snap_compare, panel_app):
    # Only the thin terminal needs scrolling to reach the flagged citations and resets.
    async def run_before(pilot: Pilot) -> None:
        await open_panel("show_audit", ask=True)(pilot)
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(panel_app(), terminal_size=(40, 20), run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
class TestInspectorSnapshot:
    def test_inspector(self, snap_compare, real_app, size):
        assert snap_compare(real_app(), terminal_size=size, run_before=open_panel("show_inspector", ask=True))


@pytest.mark.parametrize("size", SIZES)
class TestPromptEditorSnapshot:
    def test_prompt_editor(self, snap_compare, real_app, size):
        assert snap_compare(real_app(), terminal_size=size, run_before=open_panel("edit_prompt"))


@pytest.mark.parametrize("size", SIZES)
class TestEndpointSnapshot:
    def test_endpoint_switcher(self, snap_compare, real_app, size):
        assert snap_compare(real_app(), terminal_size=size, run_before=open_panel("switch_model"))


@pytest.mark.parametrize("action", ["show_audit", "switch_model"])
def test_high_contrast_theme(snap_compare, panel_app, action):
    app = panel_app(theme="high-contrast")
    assert snap_compare(
        app, terminal_size=(80, 24), run_before=open_panel(action, ask=action == "show_audit")
    )
