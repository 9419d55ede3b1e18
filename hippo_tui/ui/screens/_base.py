"""What every panel shares: a modal frame on an opaque backdrop that fills thin terminals, Esc to close,
a footer of its keys.

Colours come only from theme variables ($primary, $error, …) so a high-contrast theme and ``NO_COLOR``
apply unchanged; meaning is always carried by words and ✓/✗ as well.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Input, TextArea

ResultT = TypeVar("ResultT")

# Marks used by every panel so meaning never rides on colour alone.
OK = "✓"
FAIL = "✗"
UNKNOWN = "?"


class PanelScreen(ModalScreen[ResultT]):
    """A modal panel: a bordered frame (``#panel``) centred on wide terminals, edge to edge on thin ones."""

    # Instance attributes in Textual's typing (not ClassVar): mypy needs the same declaration.
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-short"), (24, "-tall")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    DEFAULT_CSS = """
    PanelScreen {
        align: center middle;
        /* An opaque backdrop: with NO_COLOR or 16 colours a dimmed screen behind cannot be drawn, and the
           answer's text would show at full strength around the panel. */
        background: $background;
        &:ansi { background: $background; }
        & > #panel {
            width: 100%;
            max-width: 110;
            height: 100%;
            max-height: 40;
            border: round $primary;
            border-title-color: $foreground;
            border-title-style: bold;
            border-subtitle-color: $foreground;
            background: $surface;
            padding: 0 1;
        }
        &.-wide > #panel {
            width: 90%;
        }
        &.-tall > #panel {
            height: 90%;
        }
        & .panel-hint {
            color: $text-muted;
            height: auto;
        }
        & .panel-error {
            color: $text-error;
            text-style: bold;
            height: auto;
        }
        & .panel-heading {
            text-style: bold;
            height: auto;
        }
    }
    """

    def action_close(self) -> None:
        self.dismiss(None)

    def freeze_cursors(self) -> None:
        """No cursor blink when headless, so snapshots never catch a cursor mid-blink."""
        if self.app.is_headless:
            for widget in self.query(Input):
                widget.cursor_blink = False
            for area in self.query(TextArea):
                area.cursor_blink = False
