"""The status bar: spinner and phase on the left; backend, model and knowledge base on the right."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from hippo_tui.safe_text import clip
from hippo_tui.ui.coverage_text import coverage_line, coverage_mark, coverage_short, verification_line
from hippo_tui.ui.widgets.safe import one_line

if TYPE_CHECKING:
    from hippo_tui.engine.protocol import EngineInfo
    from hippo_tui.events import EndEvent

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

# The short form of each phase, for terminals under 80 columns.
SHORT_PHASE = {
    "searching": "Searching…",
    "writing": "Writing…",
    "checking": "Checking citations…",
}

NARROW = 80
_SHORT_LABEL = re.compile(r"\s*\([^()]*\)$")  # a backend label's trailing description


class StatusBar(Widget):
    """One line. Meaning is carried by words and marks (✓ ✗ ⚠), colour only underlines it."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    StatusBar.-error { background: $error-muted; }
    StatusBar.-unchecked { background: $warning-muted; }
    """

    phase: reactive[str] = reactive("Starting…")
    short_phase: reactive[str] = reactive("")
    busy: reactive[bool] = reactive(False)
    frame: reactive[int] = reactive(0)
    backend: reactive[str] = reactive("")
    model: reactive[str] = reactive("")
    kb: reactive[str] = reactive("")
    sources: reactive[int] = reactive(0)  # shown when thin, where the sidebar is an overlay
    sources_key = "^b"

    def __init__(self, *, animate: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spin = animate

    def on_mount(self) -> None:
        if self._spin:
            self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        if self.busy:
            self.frame = (self.frame + 1) % len(SPINNER)

    def set_phase(self, text: str, *, short: str = "", busy: bool = False, error: bool = False) -> None:
        self.phase = one_line(text)
        self.short_phase = one_line(short) if short else ""
        self.busy = busy
        self.set_class(error, "-error")
        self.remove_class("-unchecked")

    def set_info(self, *, backend: str, model: str, kb: str) -> None:
        self.backend, self.model, self.kb = one_line(backend), one_line(model), one_line(kb)

    def show_info(self, info: EngineInfo) -> None:
        kb = f"{info.kb_name} ({info.kb_size})" if info.kb_name else ""
        self.set_info(backend=info.backend, model=info.model, kb=kb)

    def show_end(self, end: EndEvent) -> None:
        """How the latest answer ended, in words: withdrawn, cut, verified or left unchecked, and how
        much of it a verified source backs."""
        line = verification_line(end)
        v = end.verification
        covered, short_cover = coverage_line(end), coverage_short(end)
        if end.outcome == "withdrawn":
            self.set_phase("✗ Answer withdrawn by the safety check", short="✗ Withdrawn")
        elif end.cut:
            self.set_phase(f"⚠ Cut at the output limit · {line}", short="⚠ Cut at the limit")
        elif v.note:
            self.set_phase(f"⚠ {line}", short=f"⚠ {one_line(v.note)}")
        elif covered is not None and short_cover is not None:
            # The citations' own count is in the turn's footer; the status line says what is backed.
            self.set_phase(f"{coverage_mark(end)} {covered}", short=short_cover)
        else:
            mark = "✓ " if end.citations else ""
            short = f"✓ {v.grounded}/{v.attempted} verified" if v.attempted else line
            self.set_phase(f"{mark}{line}", short=short)
        unchecked = end.outcome == "complete" and end.coverage.statements > 0 and not end.coverage.backed
        self.set_class(unchecked, "-unchecked")

    def _info(self, backend: str) -> str:
        model = backend if self.model in backend else f"{backend} · {self.model}"
        return f"model: {model} · kb: {self.kb}" if self.kb else f"model: {model}"

    def render(self) -> Content:
        width = self.content_region.width or self.size.width
        narrow = width < NARROW - 2
        spin = f"{SPINNER[self.frame]} " if self.busy else ""
        phase = (self.short_phase or self.phase) if narrow else self.phase
        if narrow:
            right = f"{self.sources} sources {self.sources_key}" if self.sources else self.kb
        else:
            right = ""
        left = spin + phase
        if not narrow:
            # The phase matters more than the model line: the right side gets at most 40% when both are
            # long, and then drops the backend's description ("offline (extractive, no LLM)" → "offline")
            # before it cuts anything, so the KB stays readable.
            # Last, the model line gives way to the KB alone, so a whole phase fits where it can.
            fit = width - len(left) - 2
            room = max(fit, int(width * 0.4))
            choices = [self._info(self.backend), self._info(_SHORT_LABEL.sub("", self.backend))]
            right = next((c for c in choices if len(c) <= room), choices[-1])
            if len(right) > fit and self.kb and len(f"kb: {self.kb}") <= fit:
                right = f"kb: {self.kb}"
            right = _cut(right, room)
        room = width - len(right) - 2
        if room < 8:  # too thin for both: the phase wins
            return Content(_cut(left, width))
        left = _cut(left, room)
        return Content.assemble(left, " " * (width - len(left) - len(right)), (right, "dim"))


def _cut(text: str, width: int) -> str:
    return clip(text, width)
