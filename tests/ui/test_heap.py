"""The app in its own process sets its garbage collector once its engine is ready (hippo_tui.heap)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from hippo_tui import heap
from hippo_tui.config import Settings
from hippo_tui.events import EndEvent
from hippo_tui.ui import app as app_module
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.widgets.turn import TurnView
from tests.support.pilot import ask_in_turn, until
from tests.support.scripted import ScriptedEngine, answer_events


@pytest.fixture
def python_heap() -> Iterator[None]:
    """The test process gets its own collector back afterwards (frozen objects would outlive the test)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.enable()
    gc.set_threshold(*thresholds)
    heap._settled = False


async def test_the_apps_heap_is_settled_once_and_answers_are_still_freed(
    settings: Settings, python_heap: None, monkeypatch: pytest.MonkeyPatch
):
    collector_on_at_end: list[bool] = []
    finish = TurnView.finish

    async def noting_finish(view: TurnView, end: EndEvent) -> None:
        collector_on_at_end.append(gc.isenabled())
        await finish(view, end)

    monkeypatch.setattr(TurnView, "finish", noting_finish)
    gc.collect()
    app = HippoApp(settings, engine=ScriptedEngine(answer_events()), animate=False, settle_heap=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: not app.prompt.disabled)
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == heap.YOUNG_THRESHOLD
        frozen = gc.get_freeze_count()
        app.pane.max_turns = 1
        await ask_in_turn(pilot, 4)
        assert gc.get_freeze_count() <= frozen  # once: later answers are not frozen
        # Held off while each answer's end is drawn, back on once it is.
        assert collector_on_at_end == [False] * 4 and gc.isenabled()
        gc.collect()
        answer_widgets = (Markdown, MarkdownBlock)
        kept = [o for o in gc.get_objects() if isinstance(o, answer_widgets) and not o.is_attached]
        assert kept == []  # the pruned answers' widgets were freed


async def test_only_the_command_lines_app_settles_the_heap(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    made: list[HippoApp] = []
    monkeypatch.setattr(HippoApp, "run", lambda self, **_: made.append(self))
    app_module.run_app(settings)
    assert made[0]._settle_heap
    assert not HippoApp(settings)._settle_heap  # tests and embedders keep their process's collector
