"""Start-up: the prompt takes keys from the first frame; a question asked before the engine is open waits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hippo_tui.config import Settings
from hippo_tui.ui.app import HippoApp
from hippo_tui.ui.widgets.prompt import QUEUED
from tests.ui.fakes import QUESTION, ScriptedEngine, answer_events, until


class BlockingFactory:
    """An engine factory that opens only when the test says so (or fails, with ``fail``)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.gate = asyncio.Event()
        self.calls = 0
        self.fail = False

    async def __call__(self, settings: Settings) -> Any:
        self.calls += 1
        await self.gate.wait()
        if self.fail:
            raise RuntimeError("knowledge base is locked")
        return self.engine


async def test_keys_typed_before_the_engine_opens_are_kept_and_the_question_is_asked(make_app):
    engine = ScriptedEngine(answer_events())
    factory = BlockingFactory(engine)
    app = make_app(engine_factory=factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: factory.calls == 1)
        assert app.engine is None and not app.prompt.disabled and app.prompt.has_focus
        await pilot.press(*"cystitis?")
        assert app.prompt.value == "cystitis?"
        app.prompt.value = QUESTION
        await pilot.press("enter")
        # Kept, not lost and not asked yet: the prompt and status say it will be asked.
        assert engine.asked == [] and app.prompt.value == ""
        assert app.prompt.placeholder == QUEUED and app.status.phase == QUEUED
        # A second Enter while one waits does not replace or drop it.
        app.prompt.value = "another"
        await pilot.press("enter")
        assert app.prompt.value == "another"
        app.prompt.value = ""
        factory.gate.set()
        await until(pilot, lambda: bool(app.turns))
        assert engine.asked == [QUESTION]
        assert app.turns[-1].question == QUESTION and app.turns[-1].outcome == "complete"
        assert app.prompt.placeholder != QUEUED


async def test_a_queued_question_comes_back_when_the_engine_cannot_open(make_app):
    factory = BlockingFactory(None)
    factory.fail = True
    app = make_app(engine_factory=factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: factory.calls == 1)
        app.prompt.value = QUESTION
        await pilot.press("enter")
        assert app.prompt.value == ""
        factory.gate.set()
        await until(pilot, lambda: "Engine unavailable" in app.status.phase)
        assert app.prompt.value == QUESTION and app.prompt.placeholder != QUEUED


@pytest.mark.parametrize(
    ("size", "expected"), [((60, 20), {"-narrow", "-short"}), ((100, 40), {"-wide", "-tall"})]
)
async def test_the_first_frame_is_drawn_once_in_the_layout_of_the_terminal_size(
    make_app, monkeypatch, size, expected
):
    # Thin or wide, short or tall: when the app mounts, before anything is drawn, the screen has its
    # layout's classes (rather than getting them with the first resize event: a first frame styled and drawn
    # twice), and the prompt has the focus.
    seen: list[tuple[set[str], str | None]] = []
    on_mount = HippoApp.on_mount

    async def recording(app: HippoApp) -> None:
        focused = app.screen.focused
        seen.append((set(app.screen.classes), focused.id if focused else None))
        await on_mount(app)

    monkeypatch.setattr(HippoApp, "on_mount", recording)
    app = make_app(engine=ScriptedEngine(answer_events()))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        [(classes, focused)] = seen
        assert expected <= classes and focused == "prompt"
        assert expected <= set(app.screen.classes) and app.prompt.has_focus
