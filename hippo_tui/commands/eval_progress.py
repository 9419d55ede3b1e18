"""The progress bar of `hippo-tui eval` on a terminal (stderr): Rich's, which Textual already brings in.
On a pipe or a log there is none, and notes go out as plain lines."""

from __future__ import annotations

from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from hippo_tui.commands._common import is_tty
from hippo_tui.evaluation import QuestionResult
from hippo_tui.safe_text import clip


class Progress:
    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.enabled = is_tty(stream)
        self._flagged = self._errors = 0
        self._bar: RichProgress | None = None
        if self.enabled:
            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[tally]}"),
                TimeElapsedColumn(),
                console=Console(file=stream, highlight=False, markup=False),
                transient=True,
            )
            self._task = self._bar.add_task("questions", total=total, tally="")

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, r: QuestionResult) -> None:
        self._flagged += r.flagged
        self._errors += r.outcome == "error"
        if self._bar is not None:
            tally = f"{self._flagged} flagged · {self._errors} errors"
            self._bar.update(self._task, advance=1, tally=tally, description=clip(r.question, 30, flat=True))

    def note(self, text: str) -> None:
        """A line above the bar (or a plain line without one)."""
        if self._bar is not None:
            self._bar.console.print(text)
        else:
            print(text, file=self.stream, flush=True)
