"""One answer in the pane: its question line, notes, Markdown segments and footer.

Loaded with the first answer, not at start: Textual's Markdown widget (markdown-it, the highlighter) is
a sixth of the first frame's imports. ``TurnView`` is the handle on one answer's widgets, not a widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from hippo_tui.ui.coverage_text import citation_footer, shown_text
from hippo_tui.ui.textual_private import (
    MarkdownBlockQuote,
    MarkdownBulletList,
    MarkdownOrderedList,
    MarkdownParagraph,
    forget_arrangement,
    forget_box_models,
    inline_token,
    layout_generation,
    parse_blocks,
    set_block_token,
    set_inline_token,
    set_unrendered_source,
)
from hippo_tui.ui.widgets.list_items import BulletList, OrderedList
from hippo_tui.ui.widgets.paragraph import Paragraph
from hippo_tui.ui.widgets.safe import markdown_parser, one_line, safe, safe_content
from hippo_tui.ui.widgets.table_grid import TableGrid

if TYPE_CHECKING:
    from markdown_it.token import Token

    from hippo_tui.events import EndEvent, ErrorEvent, ResetEvent
    from hippo_tui.ui.widgets.answer import AnswerPane

# A long answer is a column of Markdown segments of about this many characters, cut at blank lines
# outside code fences. Textual re-arranges a Markdown widget's blocks whenever it changes, so one
# ever-growing document costs O(n) per frame; sealed segments keep their layout and leave the
# compositor's work once scrolled out of view.
SEGMENT_CHARS = 1_500

CUT_NOTE = "⚠ Cut at the output limit: the model stopped before it finished."


def _open_fence(text: str) -> bool:
    """Whether ``text`` ends inside a fenced code block (an odd number of fence lines)."""
    fences = 0
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fences += 1
    return fences % 2 == 1


def split_segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """Cut Markdown into pieces of at least ``size`` characters at blank lines outside code fences."""
    parts: list[str] = []
    start = 0
    while len(text) - start > size:
        cut = text.find("\n\n", start + size)
        while cut != -1 and _open_fence(text[start:cut]):
            cut = text.find("\n\n", cut + 2)
        if cut == -1:
            break
        parts.append(text[start : cut + 2])
        start = cut + 2
    parts.append(text[start:])
    return parts


class Segment(Markdown):
    """One Markdown segment of an answer. Once sealed its height is cached per width.

    Textual sizes an auto-height container of auto-height blocks against its parent's height, which
    grows with every streamed line, so without this every sealed segment is re-measured every frame.
    """

    DEFAULT_CSS = "Segment { margin: 0; padding: 0 1 0 0; }"
    # Lists whose items are one widget each (list_items.py) and tables of one widget (table_grid.py): the
    # same look, a fraction of the widgets.
    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012 (declared so by Textual's Markdown)
        **Markdown.BLOCKS,
        "paragraph_open": Paragraph,
        "bullet_list_open": BulletList,
        "ordered_list_open": OrderedList,
        "table_open": TableGrid,
    }

    def __init__(self) -> None:
        super().__init__("", parser_factory=markdown_parser, open_links=False)
        self.sealed = False
        self.collapsed = False  # blocks unmounted, a blank of the same height in their place
        self._height_cache: tuple[tuple[int, int, int], int] | None = None

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self.sealed:
            return super().get_content_height(container, viewport, width)
        # Textual counts a relayout of any block inside (a block's own text can change in place: the end's
        # marker patch), and children added or removed.
        key = (width, *layout_generation(self))
        if self._height_cache is not None and self._height_cache[0] == key:
            return self._height_cache[1]
        height = super().get_content_height(container, viewport, width)
        self._height_cache = (key, height)
        return height

    def seal(self) -> None:
        self.sealed = True
        self._height_cache = None

    async def replace(self, text: str) -> None:
        self.sealed = False
        if self.collapsed:
            self.collapsed = False
            self.styles.height = "auto"
        await self.update(text)
        self.seal()

    async def collapse(self) -> None:
        """Far out of view: drop the blocks and keep a blank of the same height.

        Textual visits every mounted widget on every layout, so an answer's off-screen blocks would
        make each frame cost more as the answer grows; collapsed segments cost one widget each.
        """
        height = self.outer_size.height
        if self.collapsed or not self.sealed or height <= 0:
            return
        await self.stream_done()
        self.collapsed = True
        self.styles.height = height
        await self.remove_children()

    async def restore(self) -> None:
        """Back near the view: mount the blocks again from the text."""
        if not self.collapsed:
            return
        self.collapsed = False
        self.styles.height = "auto"
        await self.update(self.source)

    async def patch(self, text: str) -> None:
        """Change the text in place: only the blocks whose source lines changed are parsed again.

        The final update differs from what streamed only in its citation markers (same lines), so most
        blocks are equal, and the paragraphs that differ take their new content in place, inside lists
        too. Relies on Textual's block internals (pinned): anything else falls back to ``replace()``.
        """
        await self.stream_done()
        if self.collapsed:
            set_unrendered_source(self, text)  # drawn from the new text when it comes back into view
            return
        old_lines = self.source.splitlines(keepends=True)
        new_lines = text.splitlines(keepends=True)
        blocks = [c for c in self.children if isinstance(c, MarkdownBlock)]
        changed = _changed_blocks(blocks, old_lines, new_lines)
        if changed is None:
            await self.replace(text)
            return
        self.sealed = False
        set_unrendered_source(self, text)
        for block in changed:
            start, end = block.source_range
            if not await self._patch_block(block, "".join(new_lines[start:end])):
                await self.replace(text)
                return
        self._forget_measures(changed)
        self.refresh(layout=True)
        self.seal()

    async def extend(self, piece: str) -> None:
        """Append streamed text: Textual gives the last block its longer text in place."""
        last = [c for c in self.children if isinstance(c, MarkdownBlock)][-1:]
        await self.append(piece)
        self._forget_measures(last)

    def _forget_measures(self, changed: list[MarkdownBlock]) -> None:
        """Blocks changed size in place. Textual forgets this segment's arrangement only when their own
        relayout is processed (a layout that comes first, the footer's, would measure the old one), and a
        block keeps its measured box while a relayout of it is already pending (one just mounted): its
        new text would be drawn in the old height, cut off, until something else relaid the screen out."""
        for block in changed:
            for widget in block.walk_children(Widget, with_self=True):
                forget_box_models(widget)
        forget_arrangement(self)

    async def _patch_block(self, old: MarkdownBlock, source: str) -> bool:
        """Give ``old`` the content of ``source`` (its own lines, parsed alone); False: not the same kind."""
        tokens = markdown_parser().parse(source)
        if _patch_inline(old, tokens):
            return True
        parsed = parse_blocks(self, tokens)
        if len(parsed) != 1 or type(parsed[0]) is not type(old):
            return False
        new = parsed[0]
        new.source_range = old.source_range
        if isinstance(old, TableGrid):
            return await old.take_block(new)  # in place: one widget takes the new cells
        await self.mount(new, before=old)
        await old.remove()
        return True

    async def stream_done(self) -> None:
        """Wait for the Markdown lock: no append may still be running."""
        async with self.lock:
            pass


def _changed_blocks(
    blocks: list[MarkdownBlock], old_lines: list[str], new_lines: list[str]
) -> list[MarkdownBlock] | None:
    """The blocks whose lines differ; None when the change is not confined to whole blocks (a line
    count, a blank line or a block's range that does not fit)."""
    if len(old_lines) != len(new_lines):
        return None
    covered = [False] * len(old_lines)
    changed = []
    for block in blocks:
        start, end = block.source_range
        if not 0 <= start <= end <= len(old_lines):
            return None
        covered[start:end] = [True] * (end - start)
        if old_lines[start:end] != new_lines[start:end]:
            changed.append(block)
    if any(a != b and not seen for a, b, seen in zip(old_lines, new_lines, covered, strict=True)):
        return None
    return changed


# The tokens that open each kind of block markdown-it writes for it.
_OPENERS: dict[type[MarkdownBlock], str] = {
    MarkdownParagraph: "paragraph_open",
    MarkdownBulletList: "bullet_list_open",
    MarkdownOrderedList: "ordered_list_open",
    MarkdownBlockQuote: "blockquote_open",
}


def _patch_inline(old: MarkdownBlock, tokens: list[Token]) -> bool:
    """Give ``old``'s paragraphs the new text of ``tokens`` in place, when ``tokens`` are the same
    block (same kind, one top-level block) whose paragraphs are the same in number and order: the
    final text only changes markers inside paragraphs. No widgets are built for it."""
    opener = next((t for kind, t in _OPENERS.items() if isinstance(old, kind)), None)
    top = [t for t in tokens if t.level == 0 and t.nesting == 1]
    if opener is None or len(top) != 1 or top[0].type != opener:
        return False
    inline = [
        t for i, t in enumerate(tokens) if t.type == "inline" and tokens[i - 1].type == "paragraph_open"
    ]
    paragraphs = [old] if isinstance(old, MarkdownParagraph) else list(old.query(MarkdownParagraph))
    if len(paragraphs) != len(inline) or len(inline) != sum(t.type == "inline" for t in tokens):
        return False  # a heading, a table or a different count: not only the paragraphs' text
    for paragraph, token in zip(paragraphs, inline, strict=True):
        was = inline_token(paragraph)
        if was is not None and was.content == token.content:
            set_inline_token(paragraph, token)  # a list's other items keep their measured and drawn lines
        else:
            paragraph.build_from_token(token)
    set_block_token(old, top[0])
    return True


class TurnView:
    """One question and its answer: a question line, notes, Markdown segments and a footer line.

    While streaming, each batch of display pieces is appended to the last segment, and the append
    is awaited: the consumer takes its next batch (everything the engine released meanwhile) only
    once this one is drawn, so nothing piles up undrawn behind the screen. A reset or the end sets
    the text once, and only the segments whose text changed are drawn again.
    """

    def __init__(self, pane: AnswerPane, question: str) -> None:
        self.pane = pane
        self.question = question
        self.display_text = ""  # every display piece shown so far, withdrawn parts removed
        self.outcome = "in_flight"
        self.segments: list[tuple[Segment, str]] = []
        self._notes: list[str] = []
        self.question_line = Static(
            Content.assemble(("› ", "bold"), safe_content(question)), classes="question"
        )
        self.notes = Static("", classes="notes")
        self.footer = Static("", classes="footer")

    @property
    def widgets(self) -> list[Widget]:
        return [self.question_line, self.notes, *(md for md, _ in self.segments), self.footer]

    @property
    def is_attached(self) -> bool:
        return self.footer.is_attached

    @property
    def source(self) -> str:
        """The Markdown the pane holds for this answer (what is on screen, once rendered)."""
        return "".join(md.source for md, _ in self.segments)

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.segments)

    def _note(self, line: str) -> None:
        self._notes.append(line)
        self.notes.update(Content("\n".join(self._notes)))
        self.notes.add_class("-on")

    def _set_footer(self, text: str) -> None:
        self.footer.update(Content(text))
        self.footer.add_class("-on")

    async def _new_segment(self) -> Segment:
        md = Segment()
        await self.pane.mount(md, before=self.footer)
        self.segments.append((md, ""))
        return md

    async def append(self, display: str) -> None:
        """Stream one released piece (already in display form: pending markers as ``[·n]``)."""
        if not display:
            return
        self.display_text += display
        await self._append(safe(display))

    async def _append(self, piece: str) -> None:
        if not self.segments:
            await self._new_segment()
        md, live = self.segments[-1]
        merged = live + piece
        cut = -1
        if len(merged) > SEGMENT_CHARS:
            cut = merged.rfind("\n\n", max(len(live) - 1, 0))
            if cut != -1 and (cut < SEGMENT_CHARS // 2 or _open_fence(merged[:cut])):
                cut = -1
        if cut == -1:
            self.segments[-1] = (md, merged)
            await self._write(md, piece)
            return
        # Seal this segment at the blank line and go on in a fresh one.
        head, tail = merged[: cut + 2], merged[cut + 2 :]
        self.segments[-1] = (md, head)
        await self._write(md, head[len(live) :])
        md.seal()
        self.pane.schedule_virtualize()
        await self._new_segment()
        if tail:
            await self._append(tail)

    async def _write(self, md: Segment, piece: str) -> None:
        if piece:
            await md.extend(piece)

    async def set_text(self, text: str, *, final: bool = False) -> None:
        """Show exactly ``text``, drawing again only the segments that changed (a reset touches the tail).

        ``final``: the end's text, which keeps the streamed line structure (only markers change), so
        each segment is patched in place with its own lines.
        """
        lines_kept = (
            final and self.segments and text.count("\n") == sum(t.count("\n") for _, t in self.segments)
        )
        if lines_kept:
            lines = text.splitlines(keepends=True)
            parts, at = [], 0
            for _, seg in self.segments[:-1]:
                n = seg.count("\n")
                parts.append("".join(lines[at : at + n]))
                at += n
            parts.append("".join(lines[at:]))
            with self.pane.app.batch_update():
                for (md, _), part in zip(self.segments, parts, strict=True):
                    if md.source != part:
                        await md.patch(part)
            self.segments = [(md, part) for (md, _), part in zip(self.segments, parts, strict=True)]
            return
        pos = keep = 0
        for _md, seg in self.segments:
            sealed = seg.endswith("\n\n") or pos + len(seg) == len(text)
            if seg and sealed and text.startswith(seg, pos):
                pos += len(seg)
                keep += 1
            else:
                break
        stale = self.segments[keep:]
        self.segments = self.segments[:keep]
        parts = split_segments(text[pos:]) if pos < len(text) else []
        with self.pane.app.batch_update():
            for i, part in enumerate(parts):
                if i < len(stale):
                    md = stale[i][0]
                    self.segments.append((md, part))
                else:
                    md = await self._new_segment()
                    self.segments[-1] = (md, part)
                await md.replace(part)
            for md, _ in stale[len(parts) :]:
                await md.remove()

    async def withdraw(self, reset: ResetEvent) -> None:
        """Remove exactly the withdrawn display text from the end and say why, where the answer is.

        The engine's ``withdrawn_display`` is the tail it displayed; should the two ever differ, the end's
        final text (every answer ends with one) sets the answer right.
        """
        cut = reset.withdrawn_display
        if cut and self.display_text.endswith(cut):
            self.display_text = self.display_text[: -len(cut)]
        await self.set_text(safe(self.display_text))
        mark = "⚠" if reset.reason == "safety" else "↺"
        self._note(f"{mark} {one_line(reset.note)} ({len(cut)} characters)")

    async def finish(self, end: EndEvent) -> None:
        """The final update: verified ``[n]`` markers, failed ones gone; or how it was stopped."""
        if end.outcome == "cancelled":
            await self._settle(end.text)
            self.outcome = "cancelled"
            self._set_footer("✗ Cancelled: the answer was stopped before it finished.")
            return
        self.outcome = end.outcome
        await self.set_text(safe(shown_text(end)), final=end.outcome != "withdrawn")
        if end.outcome == "withdrawn":
            self.display_text = ""
            self._set_footer("✗ Answer withdrawn by the safety check; nothing of it is shown.")
            return
        footer = citation_footer(end)
        if end.cut:
            footer += f"\n{CUT_NOTE}"
        self._set_footer(footer)
        # An answer nothing of which was checked must not look like a verified one.
        self.footer.set_class(end.coverage.statements > 0 and not end.coverage.backed, "-unchecked")

    async def _settle(self, text: str) -> None:
        """An answer that ends unverified shows the engine's final ``text`` (no pending markers: nothing
        was checked)."""
        if text != self.display_text and self.is_attached:
            self.display_text = text
            await self.set_text(safe(text), final=True)

    async def fail(self, error: ErrorEvent, text: str | None = None) -> None:
        """``text``: the error's final display text; None keeps what is shown (no engine said otherwise)."""
        if text is not None:
            await self._settle(text)
        self.outcome = "error"
        self._set_footer(f"✗ Error: {one_line(error.message)}")

    async def remove(self) -> None:
        await self.pane.remove_children(self.widgets)
