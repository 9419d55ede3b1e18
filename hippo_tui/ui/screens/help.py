"""F1: the keys and what they do, in a table that wraps on thin terminals."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Static

from hippo_tui.ui.screens._base import PanelScreen

INTRO = (
    "Ask a question at the prompt and press Enter. Numbers like [1] in the answer point at the "
    "sources list; only citations that passed both checks are shown, and the audit panel lists them all."
)


def keys_table(bindings: list[tuple[str, str]]) -> Table:
    """Two columns: the key (never wrapped) and what it does (wraps under itself)."""
    table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 1, 0, 0))
    table.add_column("Key", no_wrap=True, style="bold")
    table.add_column("What it does", ratio=1)
    for key, description in bindings:
        # Text, not markup: key names like "[" must show as they are.
        table.add_row(Text(key), Text(description))
    return table


class HelpScreen(PanelScreen[None]):
    """The keys and what they do. ``bindings`` is a list of (key, description) pairs, shown in order."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        & #help-keys { height: auto; margin-top: 1; }
        & > #panel { height: auto; max-height: 100%; }
        &.-tall > #panel { height: auto; max-height: 90%; }
        & #help-body { height: auto; max-height: 100%; }
    }
    """

    def __init__(self, bindings: list[tuple[str, str]]) -> None:
        super().__init__()
        self.bindings = list(bindings)

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "Help: keys"
            panel.border_subtitle = "Esc closes"
            with VerticalScroll(id="help-body"):
                yield Static(Text(INTRO), id="help-intro")
                yield Static(keys_table(self.bindings), id="help-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # Focus the scroller so up/down/page keys scroll the list straight away.
        self.query_one("#help-body").focus()
