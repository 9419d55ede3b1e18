"""Driving the app to a state from a test or the screenshot tool: no wall-clock sleeps."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from tests.support.textual_internals import layout_pending


async def until(pilot: Pilot, condition: Callable[[], bool], *, tries: int = 400) -> None:
    """Let the app process messages until ``condition()`` holds (no wall-clock sleeps)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("condition never became true")


async def ask(pilot: Pilot, question: str) -> None:
    """Type a question into the prompt and press Enter."""
    app = pilot.app
    await until(pilot, lambda: not app.prompt.disabled)  # type: ignore[attr-defined]
    app.prompt.value = question  # type: ignore[attr-defined]
    app.prompt.focus()  # type: ignore[attr-defined]
    await pilot.press("enter")


async def ask_in_turn(pilot: Pilot, count: int) -> None:
    """Ask ``count`` questions one after another, each once the previous one has ended and been kept."""
    app = pilot.app
    for i in range(count):
        await ask(pilot, f"q{i}")
        await until(pilot, lambda i=i: app.session.asked == i + 1 and app.session.active is None)  # type: ignore[attr-defined]
        await until(pilot, lambda i=i: len(app.turns) == i + 1)  # type: ignore[attr-defined]
    await pilot.pause()


async def play(pilot: Pilot, question: str, events: int | None) -> None:
    """Ask, then wait for ``events`` events (the engine's pause point) or, with None, for the answer's end."""
    app = pilot.app
    await ask(pilot, question)
    if events is None:
        await until(pilot, lambda: bool(app.turns))  # type: ignore[attr-defined]
    else:
        await until(pilot, lambda: len(app.event_log.entries) >= events)  # type: ignore[attr-defined]
        view = app.pane.turns[-1]  # type: ignore[attr-defined]
        # The MarkdownStream renders in the background: wait until it shows everything released.
        await until(pilot, lambda: view.source == view.text)
    await pilot.pause()
    await until(pilot, lambda: settled(pilot))


def settled(pilot: Pilot) -> bool:
    """No widget waits for a relayout and the answer pane has no virtualising pass pending: what a
    screenshot shows now is what the reader keeps seeing (a block patched in place relayouts on the
    next idle, not when its text changes)."""
    screen = pilot.app.screen
    pending = any(layout_pending(w) for w in screen.walk_children(with_self=True))
    pane = getattr(pilot.app, "pane", None)
    return not pending and not (pane is not None and pane._virtualize_pending)
