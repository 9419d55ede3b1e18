"""The answer pane: one TurnView per question, streamed Markdown, retractions and the final update."""

from __future__ import annotations

from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from hippo_tui.events import EndEvent, ErrorEvent, ResetEvent
from hippo_tui.ui.widgets.safe import markdown_parser, one_line, safe, safe_content

# Past this many turns the oldest are dropped from the pane (the conversation itself is kept for export).
MAX_TURNS = 20


class TurnView(Vertical):
    """One question and its answer.

    While streaming, display pieces go through a MarkdownStream (which batches appends when the
    model outruns the renderer). A reset or the end replaces the whole document with one update().
    """

    DEFAULT_CSS = """
    TurnView { height: auto; margin: 0 0 1 0; }
    TurnView > .question { text-style: bold; color: $text-accent; }
    TurnView > Markdown { margin: 0; padding: 0 1 0 0; }
    TurnView > .notes { color: $text-warning; display: none; }
    TurnView > .footer { color: $text-muted; display: none; }
    TurnView > .notes.-on, TurnView > .footer.-on { display: block; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question
        self.display_text = ""  # every display piece shown so far, withdrawn parts removed
        self.final_text: str | None = None
        self.outcome = "in_flight"
        self._stream: MarkdownStream | None = None
        self._notes: list[str] = []

    def compose(self):
        yield Static(Content.assemble(("› ", "bold"), safe_content(self.question)), classes="question")
        yield Static("", classes="notes")
        yield Markdown("", parser_factory=markdown_parser, open_links=False)
        yield Static("", classes="footer")

    @property
    def markdown(self) -> Markdown:
        return self.query_one(Markdown)

    def _note(self, line: str) -> None:
        self._notes.append(line)
        notes = self.query_one(".notes", Static)
        notes.update(Content("\n".join(self._notes)))
        notes.add_class("-on")

    def _footer(self, text: str) -> None:
        footer = self.query_one(".footer", Static)
        footer.update(Content(text))
        footer.add_class("-on")

    async def append(self, display: str) -> None:
        """Stream one released piece (already in display form: pending markers as ``[·n]``)."""
        if not display:
            return
        self.display_text += display
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(safe(display))

    async def close_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    async def withdraw(self, reset: ResetEvent) -> None:
        """Remove exactly the withdrawn display text from the end and say why, where the answer is."""
        await self.close_stream()
        cut = reset.withdrawn_display
        if cut and self.display_text.endswith(cut):
            self.display_text = self.display_text[: -len(cut)]
        elif cut:
            # The engine and the pane disagree about what is out; drop the same amount so nothing withdrawn stays.
            self.display_text = self.display_text[: max(0, len(self.display_text) - len(cut))]
        await self.markdown.update(safe(self.display_text))
        mark = "⚠" if reset.reason == "safety" else "↺"
        self._note(f"{mark} {one_line(reset.note)} ({len(cut)} characters)")

    async def finish(self, end: EndEvent) -> None:
        """The one final update: verified ``[n]`` markers, failed ones gone."""
        await self.close_stream()
        self.outcome = end.outcome
        self.final_text = end.text
        if end.outcome == "withdrawn":
            self.display_text = ""
            await self.markdown.update(safe(end.text))
            self._footer("✗ Answer withdrawn by the safety check; nothing of it is shown.")
            return
        await self.markdown.update(safe(end.text))
        self._footer(citation_footer(end))

    async def fail(self, error: ErrorEvent) -> None:
        await self.close_stream()
        self.outcome = "error"
        self._footer(f"✗ Error: {one_line(error.message)}")

    async def cancel(self) -> None:
        await self.close_stream()
        self.outcome = "cancelled"
        self._footer("✗ Cancelled: the answer was stopped before it finished.")


def citation_footer(end: EndEvent) -> str:
    """The line under a finished answer: each shown citation with ✓/? and words, and what was hidden."""
    parts = []
    for c in sorted(end.citations, key=lambda c: c.number):
        mark = "✓ verified" if c.grounding == "grounded" else "? unchecked"
        parts.append(f"[{c.number}] {one_line(c.title, 48)} ({mark})")
    summary = verification_line(end)
    return "\n".join([*parts, summary]) if parts else summary


def verification_line(end: EndEvent) -> str:
    v = end.verification
    if end.outcome == "withdrawn":
        return "Answer withdrawn"
    if v.attempted == 0:
        return "No citations in this answer"
    if v.note:
        return f"{one_line(v.note)} · {len(end.citations)} of {v.attempted} citations shown, unchecked"
    return f"{v.grounded} of {v.attempted} citations verified"


class AnswerPane(VerticalScroll):
    """The conversation: anchored so it follows new text until the reader scrolls up.

    Turns live in an inner column at least as tall as the pane: Textual's anchor computes a negative
    scroll offset when content is shorter than the view, which would push short answers to the bottom.
    """

    DEFAULT_CSS = """
    AnswerPane { height: 1fr; padding: 0 1; }
    AnswerPane > #log { height: auto; min-height: 100%; }
    AnswerPane .pruned, AnswerPane .empty { color: $text-muted; }
    """

    can_focus = True

    def __init__(self, *, max_turns: int = MAX_TURNS, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_turns = max_turns

    def compose(self):
        yield Vertical(id="log")

    @property
    def log_column(self) -> Vertical:
        return self.query_one("#log", Vertical)

    def on_mount(self) -> None:
        self.anchor()

    @property
    def turns(self) -> list[TurnView]:
        return list(self.log_column.query_children(TurnView))

    async def add_turn(self, question: str) -> TurnView:
        log = self.log_column
        for empty in log.query_children(".empty"):
            await empty.remove()
        view = TurnView(question)
        await log.mount(view)
        turns = self.turns
        if len(turns) > self.max_turns:
            await log.remove_children(turns[: len(turns) - self.max_turns])
            if not log.query_children(".pruned"):
                note = Static("Earlier answers are hidden here; export keeps them all.", classes="pruned")
                await log.mount(note, before=0)
        self.anchor()
        return view

    async def clear(self, note: str = "") -> None:
        log = self.log_column
        await log.remove_children()
        if note:
            await log.mount(Static(Content(note), classes="empty"))
