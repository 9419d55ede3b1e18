"""What the tests read of Textual that it keeps private (checked against Textual 8.2.8): in one place,
so an upgrade that renames one breaks here. The UI's own uses are in hippo_tui/ui/textual_private.py."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.strip import Strip
from textual.widget import Widget


def notices(app: App[Any]) -> list[str]:
    """The messages of the notifications the app holds (shown or queued): Textual has no getter."""
    return [str(n.message) for n in app._notifications]


def screen_strips(app: App[Any]) -> list[Strip]:
    """The active screen as drawn, one strip per row (its compositor's output, before the terminal)."""
    return list(app.screen._compositor.render_strips())


def layout_pending(widget: Widget) -> bool:
    """Whether ``widget`` waits for a relayout Textual has not processed yet."""
    return widget._layout_required
