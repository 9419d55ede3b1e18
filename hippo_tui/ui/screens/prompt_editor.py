"""The system prompt editor: ctrl+s saves (dismisses with the text), Esc cancels (None), ctrl+r restores.

The app applies the returned text to the next question and saves it; this screen only edits.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static, TextArea

from hippo_tui.ui.screens._base import PanelScreen


class PromptEditorScreen(PanelScreen[str | None]):
    """Edit ``text``; ``default`` is what ctrl+r restores. Dismisses with the new text, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "close", "Cancel"),
        Binding("ctrl+r", "restore_default", "Default", priority=True),
    ]

    DEFAULT_CSS = """
    PromptEditorScreen {
        & #prompt-text { height: 1fr; border: none; padding: 0; }
        & #prompt-status { height: auto; }
    }
    """

    def __init__(self, text: str, default: str) -> None:
        super().__init__()
        self.initial = text
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "System prompt"
            panel.border_subtitle = "ctrl+s save · Esc cancel"
            yield TextArea(self.initial, id="prompt-text", soft_wrap=True, show_line_numbers=False)
            yield Static(id="prompt-status", classes="panel-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.freeze_cursors()
        self.query_one(TextArea).focus()
        self._update_status()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def _update_status(self, error: str | None = None) -> None:
        status = self.query_one("#prompt-status", Static)
        status.set_class(error is not None, "panel-error")
        status.set_class(error is None, "panel-hint")
        if error is not None:
            status.update(error)
            return
        text = self.text
        state = "the default" if text == self.default else "edited" if text != self.initial else "unchanged"
        status.update(f"{len(text)} characters · {state} · applies to the next question")

    def on_text_area_changed(self, _: TextArea.Changed) -> None:
        self._update_status()

    def action_save(self) -> None:
        if not self.text.strip():
            self._update_status("The prompt is empty: write one, or press ctrl+r for the default.")
            return
        self.dismiss(self.text)

    def action_restore_default(self) -> None:
        area = self.query_one(TextArea)
        area.load_text(self.default)
        area.move_cursor((0, 0))
        self._update_status()
