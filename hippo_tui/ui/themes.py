"""The app's themes: a high-contrast one of ours, and the names a user may write in ``settings.theme``."""

from __future__ import annotations

from textual.theme import Theme

HIGH_CONTRAST = Theme(
    name="hippo-high-contrast",
    primary="#ffff00",
    secondary="#00ffff",
    accent="#ffff00",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1a1a1a",
    success="#00ff00",
    warning="#ffff00",
    error="#ff5555",
    dark=True,
)
# "ansi" uses the terminal's own 16 colours (what a 16-colour terminal or a user's palette shows).
THEME_ALIASES = {"high-contrast": HIGH_CONTRAST.name, "ansi": "ansi-dark"}
DEFAULT_THEME = "textual-dark"


def theme_name(setting: str, available: set[str] | dict[str, Theme]) -> str | None:
    """The Textual theme a ``settings.theme`` value names, or None when there is no such theme."""
    name = THEME_ALIASES.get(setting, setting)
    return name if name in available else None


def unknown_theme_message(setting: str, available: set[str] | dict[str, Theme]) -> str:
    names = ", ".join(["high-contrast", "ansi", *sorted(available)])
    return f"Unknown theme '{setting}'; one of: {names}"


def toggled_contrast(current: str) -> str:
    return DEFAULT_THEME if current == HIGH_CONTRAST.name else HIGH_CONTRAST.name
