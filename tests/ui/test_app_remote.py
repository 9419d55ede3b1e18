"""The app as a thin client of a real `hippo-tui serve`: the same screens, the engine elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippo_tui.config import Settings
from hippo_tui.server.tokens import add_token
from hippo_tui.ui.app import HippoApp
from tests.support.pilot import ask
from tests.support.serve import Serve
from tests.support.textual_internals import notices

pytest.importorskip("fastapi")
pytestmark = pytest.mark.slow

QUESTION = "How long should uncomplicated cystitis in women be treated?"


async def _settle(app: HippoApp, pilot, done) -> None:  # type: ignore[no-untyped-def]
    """Let the app's workers (the engine opening, the answer) finish until ``done()``: no wall-clock sleeps."""
    while not done():
        await app.workers.wait_for_complete()
        await pilot.pause()


async def test_the_app_answers_through_the_server_and_opens_its_audit_record(tmp_path: Path):
    tokens = tmp_path / "tokens.json"
    token = add_token(tokens, "ana", "clinician")
    (tmp_path / "server").mkdir()
    with Serve(tmp_path / "server", tokens=tokens) as s:
        app = HippoApp(Settings(home=tmp_path / "client", server=s.url, token=token), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await _settle(app, pilot, lambda: app.session.ready)
            await ask(pilot, QUESTION)
            await _settle(app, pilot, lambda: bool(app.turns) and app.session.latest is not None
                          and app.session.latest.done)  # fmt: skip
            turn = app.turns[-1]
            assert turn.outcome == "complete" and turn.citations and "verified" in app.status.phase
            await pilot.press("f3")
            await _settle(app, pilot, lambda: type(app.screen).__name__ == "AuditScreen")
            assert app.screen.record is not None and app.screen.record.asked_by == "ana"
            await pilot.press("escape", "ctrl+n")
            await _settle(app, pilot, lambda: app.turns == [])
            await app._reconfigure({"model": "other"})  # what F6 does: the server decides the model
            await pilot.pause()
            assert any("decides the model" in n for n in notices(app))
