"""The answer pane: the conversation's column of answers, anchored to follow new text.

Every widget of every answer is a direct child of the scrolling pane (a flat column), so Textual only
lays out and paints the children in view. Each answer's widgets are a ``TurnView`` (``turn.py``), loaded
with the first answer so the first frame does not wait for the Markdown widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Offset
from textual.widgets import Static

if TYPE_CHECKING:
    from hippo_tui.ui.widgets.turn import TurnView

# Past this many turns the oldest are dropped from the pane (export keeps the session's window; the audit all).
MAX_TURNS = 20


class AnswerPane(VerticalScroll):
    """The conversation: anchored so it follows new text until the reader scrolls up."""

    DEFAULT_CSS = """
    AnswerPane { height: 1fr; padding: 0 1; }
    AnswerPane > .question { text-style: bold; color: $text-accent; }
    AnswerPane > .notes { color: $text-warning; display: none; }
    AnswerPane > .footer { color: $text-muted; display: none; margin: 0 0 1 0; }
    AnswerPane > .footer.-unchecked { color: $text-warning; }
    AnswerPane > .notes.-on, AnswerPane > .footer.-on { display: block; }
    AnswerPane > .pruned, AnswerPane > .empty { color: $text-muted; }
    """

    can_focus = True

    def __init__(self, *, max_turns: int = MAX_TURNS, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_turns = max_turns
        self.turns: list[TurnView] = []
        self._virtualize_pending = False

    @property
    def scroll_offset(self) -> Offset:
        # Anchored and shorter than the view, Textual computes a negative offset (content pushed to
        # the bottom); a conversation starts at the top.
        return Offset(round(self.scroll_x), max(0, round(self.scroll_y)))

    # Segments further than this many screens from the view are collapsed.
    KEEP_SCREENS = 2

    def on_mount(self) -> None:
        self.anchor()
        self.watch(self, "scroll_y", lambda: self.schedule_virtualize(), init=False)

    def on_resize(self) -> None:
        self.schedule_virtualize()

    def schedule_virtualize(self) -> None:
        if not self._virtualize_pending:
            self._virtualize_pending = True
            self.set_timer(0.05, self._virtualize)

    async def _virtualize(self) -> None:
        """Keep Markdown blocks mounted only for segments near the view."""
        self._virtualize_pending = False
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y - height * self.KEEP_SCREENS
        bottom = self.scroll_offset.y + height * (self.KEEP_SCREENS + 1)
        for turn in list(self.turns):
            for md, _ in list(turn.segments):
                if not md.sealed or not md.is_attached:
                    continue
                region = md.virtual_region
                near = region.bottom >= top and region.y <= bottom
                if near and md.collapsed:
                    await md.restore()
                elif not near and not md.collapsed:
                    await md.collapse()

    async def add_turn(self, question: str) -> TurnView:
        for empty in self.query_children(".empty"):
            await empty.remove()
        from hippo_tui.ui.widgets.turn import TurnView  # the Markdown widget loads with the first answer

        view = TurnView(self, question)
        await self.mount_all(view.widgets)
        self.turns.append(view)
        if len(self.turns) > self.max_turns:
            old, self.turns = self.turns[: -self.max_turns], self.turns[-self.max_turns :]
            for turn in old:
                await turn.remove()
            if not self.query_children(".pruned"):
                note = Static("Older answers: F3 / hippo-tui audit list.", classes="pruned")
                await self.mount(note, before=0)
        self.anchor()
        return view

    async def clear(self, note: str = "") -> None:
        self.turns = []
        await self.remove_children()
        if note:
            await self.mount(Static(Content(note), classes="empty"))
