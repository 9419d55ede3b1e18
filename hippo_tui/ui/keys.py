"""The app's keys and commands: bindings (re-mappable by id from ``settings.keys``), the palette's table,
and the key a user would type for an action, as the help screen and the hints show it."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding

from hippo_tui.ui.textual_private import app_keymap

# Binding ids are the action names, so `settings.keys = {"toggle_sidebar": "f2"}` re-maps a key.
BINDINGS: list[Binding] = [
    Binding("escape", "cancel", "Cancel", id="cancel"),  # first: it matters most while an answer runs
    Binding("f1", "show_help", "Help", id="show_help"),
    Binding("ctrl+b,f2", "toggle_sidebar", "Sources", id="toggle_sidebar"),
    Binding("f3", "show_audit", "Audit", id="show_audit"),
    Binding("f7", "copy_answer", "Copy", id="copy_answer"),
    # Last: at 40 columns after an answer, the key cut short is the one needed least (F1 lists it).
    Binding("ctrl+n", "new_conversation", "New", id="new_conversation"),
    # Reached from help (F1) and the palette; kept out of the footer so it fits 80 columns.
    Binding("f4", "show_inspector", "Events", id="show_inspector", show=False),
    Binding("f5", "edit_prompt", "Prompt", id="edit_prompt", show=False),
    Binding("f6", "switch_model", "Model", id="switch_model", show=False),
    Binding("f8", "export", "Export", id="export", show=False),
    Binding("f9", "show_dashboard", "Dashboard", id="show_dashboard", show=False),
    # The prompt keeps focus; these scroll the answers from there.
    Binding("pageup", "scroll_answers(-1)", "Scroll up", id="scroll_up", show=False),
    Binding("pagedown", "scroll_answers(1)", "Scroll down", id="scroll_down", show=False),
]

# (action, palette title, help) — every action is reachable from the command palette.
COMMANDS_TABLE: list[tuple[str, str, str]] = [
    ("show_help", "Help: keys", "Show the keys and what they do"),
    ("cancel", "Cancel answer", "Stop the answer being written; the question comes back"),
    ("toggle_sidebar", "Toggle sources", "Show or hide the sources sidebar"),
    ("new_conversation", "New conversation", "Forget earlier turns and start again"),
    ("show_audit", "Audit citations", "Every citation attempt of the latest answer, with status and reason"),
    (
        "show_dashboard",
        "Audit dashboard",
        "Per model or day: flagged, ungrounded, unchecked; retired sources; the most failed answers",
    ),
    ("show_inspector", "Event inspector", "Raw events with timestamps and timings"),
    ("edit_prompt", "Edit system prompt", "Change the system prompt for the next question"),
    ("switch_model", "Switch model or endpoint", "Pick the backend, server, model and key"),
    ("copy_answer", "Copy answer", "Copy the latest answer with its citation list"),
    ("export", "Export conversation (Markdown)", "Write the conversation to a Markdown file"),
    ("export('json')", "Export conversation (JSON)", "Write the conversation to a JSON file"),
    ("toggle_contrast", "Toggle high-contrast theme", "Switch between the default and high contrast"),
]

_FIXED_KEYS = [
    ("Enter", "Ask the question"),
    ("↑ / ↓", "Previous / next question"),
    ("PgUp / PgDn", "Scroll the answers (or the sources over them)"),
]


def apply_keymap(app: App[Any], keys: dict[str, str]) -> list[str]:
    """Re-map the keys ``settings.keys`` names; the names that are no action of ours, sorted."""
    ids = {b.id for b in BINDINGS if b.id}
    known = {action: key for action, key in keys.items() if action in ids}
    if known:
        app.set_keymap(known)
    return sorted(set(keys) - set(known))


def key_for(app: App[Any], action: str) -> str:
    """The key currently bound to an action, as a user would type it ("" for an action without one)."""
    for binding in BINDINGS:
        if binding.id == action:
            keys = app_keymap(app).get(action, binding.key)
            return app.get_key_display(Binding(keys.split(",")[0], action))
    return ""


def key_table(app: App[Any]) -> list[tuple[str, str]]:
    """(key, what it does) for the help screen, with any re-mapped keys."""
    rows = list(_FIXED_KEYS)
    for action, title, _help in COMMANDS_TABLE:
        key = key_for(app, action)
        if key:
            rows.append((key, title))
    # Shown the way the other keys are (``^p``), not as typed in a binding.
    for key, title in (("ctrl+p", "Command palette (every action)"), ("ctrl+q", "Quit")):
        rows.append((app.get_key_display(Binding(key, "noop")), title))
    return rows
