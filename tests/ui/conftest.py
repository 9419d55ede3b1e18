"""Shared fixtures for the main-screen tests: settings in a tmp data folder and an app factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.config import Settings
from hippo_tui.ui.app import HippoApp


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
