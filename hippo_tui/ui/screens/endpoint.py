"""The model/endpoint switcher: backend, base URL, model and API key, checked before it dismisses.

Dismisses with ``{"backend", "base_url", "model", "api_key"}`` or None. ``api_key`` is None when the key
field was left empty (keep the current key); the key itself is never shown, only whether one is set.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import urlsplit

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Input, RadioButton, RadioSet, Static

from hippo_tui.ui.screens._base import PanelScreen
from hippo_tui.ui.textual_private import highlight_radio_button

BACKENDS = ("offline", "openai")
_LABELS = {"offline": "offline, built in", "openai": "OpenAI-compatible server"}


class MarkedRadioButton(RadioButton):
    """A radio button whose state is a mark (● or blank), not only a colour: readable with NO_COLOR."""

    def render(self) -> Content:
        self.BUTTON_INNER = "●" if self.value else " "  # drawn into the button; one cell, as Textual's "X"
        return super().render()


class BackendChoice(RadioSet):
    """A radio set whose arrows move *and* pick, starting on the chosen backend.

    Textual's RadioSet highlights its first button whatever is pressed, and shows the highlight by colour
    only: on an endpoint set to a server, ↑ then Enter re-picked the server. Here the ● mark always sits
    on the highlighted choice, so what is chosen is readable without colour.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,right", "step(1)", "Next backend", show=False),
        Binding("up,left", "step(-1)", "Previous backend", show=False),
    ]

    def on_mount(self) -> None:
        # After RadioSet's own mount handler, which highlights the first button whatever is pressed.
        self.call_after_refresh(self._highlight_pressed)

    def _highlight_pressed(self) -> None:
        highlight_radio_button(self, max(self.pressed_index, 0))

    def action_step(self, direction: int) -> None:
        """Pick the next (1) or previous (-1) backend, counted from the one picked now."""
        count = len(self.children)
        if count:
            highlight_radio_button(self, (max(self.pressed_index, 0) + direction) % count)
            self.action_toggle_button()


def validate_endpoint(backend: str, base_url: str, model: str) -> list[str]:
    """What is wrong with these values, as messages a user can act on (empty when they are fine)."""
    if backend not in BACKENDS:
        return [f"Choose a backend: {' or '.join(BACKENDS)}."]
    if backend == "offline":
        return []
    problems: list[str] = []
    url = base_url.strip()
    if not url:
        problems.append("Enter the server's base URL, e.g. http://localhost:11434/v1")
    else:
        parts = urlsplit(url)
        try:
            port_ok = parts.port is None or parts.port > 0
        except ValueError:  # not a number, or past 65535
            port_ok = False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problems.append("The base URL must start with http:// or https:// and name a host.")
        elif not port_ok:
            problems.append("The base URL's port must be a number from 1 to 65535.")
        elif any(c.isspace() for c in url):
            problems.append("The base URL cannot contain spaces.")
    name = model.strip()
    if not name:
        problems.append("Enter a model name the server knows, e.g. llama3.1")
    elif any(c.isspace() for c in name):
        problems.append("The model name cannot contain spaces.")
    return problems


class EndpointScreen(PanelScreen[dict[str, Any] | None]):
    """Pick the backend and, for a server, its URL, model and key. ctrl+s or Enter saves, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "close", "Cancel"),
    ]

    DEFAULT_CSS = """
    EndpointScreen {
        & > #panel { height: auto; max-height: 100%; }
        &.-tall > #panel { height: auto; max-height: 90%; }
        & #endpoint-body { height: auto; max-height: 100%; }
        & RadioSet, & Input { width: 100%; border: round $border-blurred; border-title-color: $foreground; }
        & RadioSet:focus-within, & Input:focus { border: round $primary; }
        & Input.-invalid { border: round $error; }
        & #endpoint-errors { height: auto; }
        /* Example values stay legible in high contrast (the default placeholder colour is faint). */
        & Input > .input--placeholder { color: $text-muted; }
        & Input { border-subtitle-color: $foreground; }
    }
    """

    def __init__(self, backend: str, base_url: str | None, model: str | None, has_key: bool) -> None:
        super().__init__()
        self.current_backend = backend
        self.base_url = base_url or ""
        self.model = model or ""
        self.has_key = has_key

    def compose(self) -> ComposeResult:
        chosen = (
            self.current_backend
            if self.current_backend in BACKENDS
            else "openai"
            if self.base_url
            else "offline"
        )
        with Vertical(id="panel") as panel:
            panel.border_title = "Model and endpoint"
            panel.border_subtitle = "ctrl+s save · Esc cancel"
            with VerticalScroll(id="endpoint-body"):
                radios = BackendChoice(
                    *(MarkedRadioButton(_LABELS[b], value=b == chosen, id=f"backend-{b}") for b in BACKENDS),
                    id="endpoint-backend",
                )
                radios.border_title = "Backend"
                yield radios
                url = Input(self.base_url, placeholder="http://localhost:11434/v1", id="endpoint-url")
                url.border_title = "Base URL"
                yield url
                model = Input(self.model, placeholder="e.g. llama3.1", id="endpoint-model")
                model.border_title = "Model"
                yield model
                key = Input(
                    password=True,
                    placeholder="saved; type to replace"
                    if self.has_key
                    else "none (local servers need none)",
                    id="endpoint-key",
                )
                key.border_title = "API key (set)" if self.has_key else "API key"
                yield key
                yield Static(Content(self._hint()), id="endpoint-errors", classes="panel-hint")
        yield Footer(compact=True)

    def _hint(self) -> str:
        hint = "↑↓ choose · Enter picks · Tab: next"
        if self.current_backend not in BACKENDS:
            hint = f"Now using: {self.current_backend}. Saving switches to the backend chosen here.\n{hint}"
        return hint

    def on_mount(self) -> None:
        self.freeze_cursors()
        self._sync_enabled()
        self.query_one(RadioSet).focus()

    @property
    def backend(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return pressed.id.removeprefix("backend-") if pressed and pressed.id else "offline"

    def _sync_enabled(self) -> None:
        # The server fields mean nothing offline; disabled, they are also skipped by tab.
        offline = self.backend == "offline"
        for input_id in ("#endpoint-url", "#endpoint-model", "#endpoint-key"):
            field = self.query_one(input_id, Input)
            field.disabled = offline
            field.border_subtitle = "not used offline" if offline else ""  # said in words, not only dimmed

    def on_radio_set_changed(self, _: RadioSet.Changed) -> None:
        self._sync_enabled()
        self._show_errors([])

    def _show_errors(self, problems: list[str]) -> None:
        errors = self.query_one("#endpoint-errors", Static)
        errors.set_class(bool(problems), "panel-error")
        errors.set_class(not problems, "panel-hint")
        errors.update(Content("\n".join(f"✗ {p}" for p in problems) if problems else self._hint()))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        backend = self.backend
        url = self.query_one("#endpoint-url", Input)
        model = self.query_one("#endpoint-model", Input)
        key = self.query_one("#endpoint-key", Input)
        problems = validate_endpoint(backend, url.value, model.value)
        url.set_class(any("base URL" in p for p in problems), "-invalid")
        model.set_class(any("model" in p for p in problems), "-invalid")
        if problems:
            self._show_errors(problems)
            return
        if backend == "offline":
            self.dismiss({"backend": "offline", "base_url": None, "model": None, "api_key": None})
            return
        self.dismiss(
            {
                "backend": backend,
                "base_url": url.value.strip(),
                "model": model.value.strip(),
                "api_key": key.value.strip() or None,
            }
        )
