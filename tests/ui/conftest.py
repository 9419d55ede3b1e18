"""Shared fixtures for the main-screen tests: settings in a tmp data folder and an app factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.config import Settings
from hippo_tui.ui.app import HippoApp
from tests.support.recorded import Recording, record_sync


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return Settings(home=tmp_path, offline_tokens_per_second=0)


@pytest.fixture
def make_app(settings: Settings) -> Callable[..., HippoApp]:
    def make(engine: object = None, engine_factory: Any = None, **overrides: object) -> HippoApp:
        s = settings.model_copy(update=overrides) if overrides else settings
        return HippoApp(s, engine=engine, animate=False, engine_factory=engine_factory)

    return make


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Recording]]:
    """The real engine's events for the demo questions, and the data folder holding their audit records."""
    home = tmp_path_factory.mktemp("recorded-home")
    return home, record_sync(home)
