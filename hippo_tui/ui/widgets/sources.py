"""The sources sidebar: previews while the answer streams, verified/unchecked marks at the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from hippo_tui.ui.widgets.safe import MARK_STYLE, marked_line, one_line

if TYPE_CHECKING:  # the event models (pydantic) load with the engine, after the app's first frame
    from hippo_tui.events import EndEvent, SourcePreview


class SourceItem(Vertical):
    """One source: a title line, then indented status and snippet lines."""

    DEFAULT_CSS = """
    SourceItem { height: auto; margin: 0 0 1 0; }
    SourceItem > .title { text-style: bold; }
    SourceItem > .body { padding-left: 2; }
    SourceItem > .snippet { padding-left: 2; text-style: italic; color: $text-muted; }
    SourceItem.-uncited > .title { text-style: none; }
    """

    def __init__(self, title: Content, *lines: Content, snippet: str = "", classes: str = "") -> None:
        super().__init__(classes=classes)
        self._title = title
        self._lines = lines
        self._snippet = snippet

    def set_title(self, title: Content) -> None:
        self._title = title
        if self.is_mounted:
            self.query_one(".title", Static).update(title)

    def compose(self) -> ComposeResult:
        yield Static(self._title, classes="title")
        for line in self._lines:
            yield Static(line, classes="body")
        if self._snippet:
            # Without colour the muted italic snippet looks like any text: reverse makes a match stand out.
            style = f"{MARK_STYLE} reverse" if self.app.no_color else MARK_STYLE
            snippet = marked_line(self._snippet, 110, style=style)
            yield Static(Content("“") + snippet + Content("”"), classes="snippet")


class SourcesPanel(VerticalScroll):
    """Retrieved sources for the latest answer.

    While streaming each preview shows as a bullet, or, once the answer cites it, with the pending number
    the text shows (``[·n]``, from the engine's ``TextEvent.numbers``). After verification the shown citations carry their final number with ✓ or ?,
    and flagged/ungrounded ones are only counted, pointing at the audit panel.
    """

    DEFAULT_CSS = """
    SourcesPanel { padding: 0 1; }
    SourcesPanel > .heading { text-style: bold; margin: 0 0 1 0; }
    SourcesPanel > .hidden-note { color: $text-warning; margin: 0 0 1 0; }
    SourcesPanel > .subheading { color: $text-muted; text-style: italic; }
    """

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.previews: dict[str, SourcePreview] = {}
        self.pending: dict[str, int] = {}  # source id → the pending number the streaming text shows
        self._items: dict[str, SourceItem] = {}
        self.audit_key = "f3"

    def compose(self) -> ComposeResult:
        yield Static("Sources", classes="heading")
        yield Static(Content("No sources yet."), classes="subheading")

    async def clear(self) -> None:
        self.previews.clear()
        self.pending = {}
        self._items = {}
        await self.remove_children()
        await self.mount_all(
            [Static("Sources", classes="heading"), Static("Searching…", classes="subheading")]
        )

    async def add_previews(self, previews: list[SourcePreview]) -> None:
        """Sources arrive in batches (a reset can search again); added, never replaced."""
        fresh = [p for p in previews if p.id not in self.previews]
        for p in fresh:
            self.previews[p.id] = p
        for sub in self.query_children(".subheading"):
            await sub.remove()
        items = [_preview(p, self.pending.get(p.id)) for p in fresh]
        self._items.update((p.id, item) for p, item in zip(fresh, items, strict=True))
        await self.mount_all(items)

    def set_pending(self, numbers: dict[str, int]) -> None:
        """The pending numbers of the answer so far (a reset starts them again): previews follow the text."""
        if numbers == self.pending:
            return
        self.pending = dict(numbers)
        for source_id, item in self._items.items():
            item.set_title(_preview_title(self.previews[source_id], numbers.get(source_id)))

    async def show_verified(self, end: EndEvent) -> None:
        cited = {c.id for c in end.citations}
        items: list[Widget] = [Static("Sources", classes="heading")]
        for c in sorted(end.citations, key=lambda c: c.number):
            mark = "✓ verified" if c.grounding == "grounded" else "? unchecked"
            if c.newer:
                mark += f" · {one_line(c.newer)}"
            preview = self.previews.get(c.id)
            title = Content(f"[{c.number}] {one_line(c.where or c.title)}")
            snippet = preview.snippet if preview is not None else ""
            items.append(SourceItem(title, Content(mark), snippet=snippet, classes="-cited"))
        hidden = max(0, end.verification.attempted - len(end.citations))
        if hidden:
            noun = "citation" if hidden == 1 else "citations"
            items.append(
                Static(
                    Content(f"✗ {hidden} {noun} hidden — see audit ({self.audit_key})"),
                    classes="hidden-note",
                )
            )
        others = [p for p in self.previews.values() if p.id not in cited]
        if others:
            items.append(Static("Retrieved, not cited:", classes="subheading"))
            items += [_preview(p, classes="-uncited") for p in others]
        self._items = {}
        if not end.citations and not others:
            items.append(Static("No sources.", classes="subheading"))
        with self.app.batch_update():
            await self.remove_children()
            await self.mount_all(items)


def _preview_title(p: SourcePreview, number: int | None) -> Content:
    mark = "•" if number is None else f"[·{number}]"
    # An ingested passage says where it comes from: its document › section path and page.
    return Content(f"{mark} {one_line(p.where or p.title)}")


def _preview(p: SourcePreview, number: int | None = None, classes: str = "") -> SourceItem:
    return SourceItem(_preview_title(p, number), snippet=p.snippet, classes=classes)
