"""The question input, with up/down history like a shell."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

PLACEHOLDER = "Ask a question…"
QUEUED = "Starting… your question will be asked when the knowledge base is open"


class PromptInput(Input):
    """Taken while an answer is written, free again from its phase "checking"; a question that did not
    get its answer comes back into it, ready to ask again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Previous question", show=False),
        Binding("down", "history(1)", "Next question", show=False),
    ]

    def __init__(self, *, id: str | None = None, blink: bool = True) -> None:
        super().__init__(placeholder=PLACEHOLDER, id=id)
        self.cursor_blink = blink
        self.history: list[str] = []
        self._pos = 0
        self._draft = ""

    def take(self, cancel_key: str) -> None:
        """An answer is being written: no new question until it is (or it is cancelled)."""
        self.disabled = True
        self.placeholder = f"Answering… {cancel_key} cancels"

    def release(self) -> None:
        self.disabled = False
        self.placeholder = PLACEHOLDER
        self.focus()

    def queued(self, question: str) -> None:
        """Asked before the engine opened: kept, and the prompt says it is waiting."""
        self.remember(question)
        self.value = ""
        self.placeholder = QUEUED

    def give_back(self, question: str) -> None:
        self.value = question
        self.cursor_position = len(question)

    def remember(self, question: str) -> None:
        if question and (not self.history or self.history[-1] != question):
            self.history.append(question)
        self._pos = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._pos == len(self.history):
            self._draft = self.value  # keep what was being typed, to come back to it
        self._pos = max(0, min(len(self.history), self._pos + step))
        self.value = self._draft if self._pos == len(self.history) else self.history[self._pos]
        self.cursor_position = len(self.value)
