"""What `hippo-tui ask "QUESTION"` does once its arguments are parsed: one answer, headless.

Human-readable by default: the answer with every statement no verified source backs marked
``[unverified]``, its numbered citations with titles, a one-line verification summary and the coverage line
("4 of 5 statements backed by a verified source"); an answer that cites nothing says that nothing in it
was checked. While the answer is being made, a terminal on stderr shows one live status line (searching, writing,
a withdrawal's note, checking citations), cleared before the answer is printed; a pipe or a log gets none of
it. ``--json`` prints every event as one JSON line (``events.to_json``); the last line is ``end`` or
``error``. Exit codes are the ones in ``hippo_tui.cli``.

Imported only when ``ask`` runs: the engine, the model client and the event models are not light.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, ClassVar, TextIO

from hippo_tui.backends import CassetteError
from hippo_tui.backends.cassette import Cassette
from hippo_tui.commands._common import (
    EXIT_MODEL,
    EXIT_OK,
    EXIT_STORE,
    EXIT_USAGE,
    EXIT_WITHDRAWN,
    is_tty,
    settings_from_args,
)
from hippo_tui.config import ConfigError, Settings
from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    ErrorKind,
    Event,
    ResetEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
    to_json,
)
from hippo_tui.safe_text import clip, sanitize
from hippo_tui.store import StoreError

if TYPE_CHECKING:
    from hippo_tui.engine import Conversation


CUT_NOTE = "(Cut short: the model reached its output limit; raise max_tokens for a longer answer.)"
NOTHING_CHECKED = "Not verified: the answer cites no source, so nothing in it was checked."


def summary_line(v: VerificationSummary) -> str:
    if not v.attempted:
        return NOTHING_CHECKED
    parts = [f"{v.attempted} cited", f"{v.confirmed} confirmed"]
    other = v.ungrounded - v.contradicted - v.not_established  # recorded without a verdict
    counts = {"missing": v.missing, "retired": v.retired, "grounded": v.grounded, "contradicted": v.contradicted}
    counts |= {"not established": v.not_established, "ungrounded": other, "unchecked": v.unchecked}
    parts += [f"{n} {name}" for name, n in counts.items() if n]
    line = "Verification: " + ", ".join(parts) + f" ({v.seconds:.1f} s)."
    return f"{line} {v.note}." if v.note else line


def checked_lines(end: EndEvent) -> list[str]:
    """What was checked of a complete answer: the verification summary and its coverage, or that it was not."""
    cov = end.coverage
    if cov.abstained:
        return [f"{cov.line}: the answer says so, and cites nothing."]
    if not end.verification.attempted:
        return [NOTHING_CHECKED]
    from hippo_tui.verification.coverage import UNBACKED_MARK  # only once the answer has ended

    marked = f"; unbacked ones marked{UNBACKED_MARK}" if cov.unbacked else ""
    return [summary_line(end.verification), f"Coverage: {cov.line}{marked}."]


def _columns(stream: TextIO) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is an OSError
        return 80
    return columns or 80  # a terminal that does not say its size reports 0


class LiveStatus:
    """One status line on a terminal, redrawn in place and cleared before the answer; silent otherwise."""

    CLEAR = "\r\x1b[2K"  # back to the start of the line and erase it
    REDRAW = 0.1  # seconds between redraws of the character count (phase changes draw at once)

    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.enabled = is_tty(stream)
        self._clock = clock
        self._chars = 0  # characters of the answer on screen so far (a reset takes its part back)
        self._drawn = False
        self._last = -math.inf

    def show(self, event: Event) -> None:
        if self.enabled:
            getattr(self, self.HANDLERS[event.type])(event)

    # What the status line does with each event type, by its ``type`` tag: a new event type fails the
    # front-end coverage test until it is listed. The answer itself is printed from its end or error.
    HANDLERS: ClassVar[dict[str, str]] = {
        "start": "_nothing",
        "thinking": "_thinking",
        "sources": "_nothing",
        "text": "_text",
        "reset": "_reset",
        "end": "_nothing",
        "error": "_nothing",
    }

    def _nothing(self, event: Event) -> None:
        return None

    def _thinking(self, event: ThinkingEvent) -> None:
        self._draw("Checking citations…" if event.phase == "checking" else event.text)

    def _text(self, event: TextEvent) -> None:
        self._chars += len(event.display)
        if self._clock() - self._last >= self.REDRAW:
            self._draw(f"Writing… {self._chars:,} characters")

    def _reset(self, event: ResetEvent) -> None:
        self._chars = max(0, self._chars - len(event.withdrawn_display))
        self._draw(event.note)

    def clear(self) -> None:
        if self._drawn:
            self.stream.write(self.CLEAR)
            self.stream.flush()
            self._drawn = False

    def _draw(self, text: str) -> None:
        width = max(_columns(self.stream) - 1, 10)  # the last column would wrap on some terminals
        self.stream.write(self.CLEAR + clip(text, width, flat=True))
        self.stream.flush()
        self._drawn = True
        self._last = self._clock()


def _exit_code(event: EndEvent | ErrorEvent | None) -> int:
    if isinstance(event, EndEvent):
        return EXIT_OK if event.outcome == "complete" else EXIT_WITHDRAWN
    if isinstance(event, ErrorEvent):
        return {"store": EXIT_STORE, "usage": EXIT_USAGE}.get(event.kind, EXIT_MODEL)
    return EXIT_MODEL


async def answer(settings: Settings, question: str, *, as_json: bool, out: TextIO, err: TextIO) -> int:
    # Imported late: `hippo-tui --help` stays fast.
    from hippo_tui.engine import open_engine
    from hippo_tui.engine.remote_errors import RemoteError
    from hippo_tui.guard import PolicyError

    try:
        engine = await open_engine(settings)
    except RemoteError as e:
        return _cannot_start(e.kind, f"{e.message} ({e.action})", as_json=as_json, out=out, err=err)
    except StoreError as e:
        return _cannot_start("store", str(e), as_json=as_json, out=out, err=err)
    except (CassetteError, PolicyError) as e:
        return _cannot_start("usage", str(e), as_json=as_json, out=out, err=err)
    status = LiveStatus(err)
    try:
        conversation = await engine.open_conversation()
        with _cancel_on_interrupt(conversation):
            last, note = await _consume(conversation, question, as_json=as_json, out=out, status=status)
    finally:
        status.clear()  # before anything else is printed, whatever ended the answer
        await engine.close()
    if not as_json:
        _print_human(last, note, out, err)
    return _exit_code(last)


async def _consume(
    conversation: Conversation, question: str, *, as_json: bool, out: TextIO, status: LiveStatus
) -> tuple[EndEvent | ErrorEvent | None, str]:
    """Print (``--json``) or show the answer's events; return its last event and a withdrawal's note."""
    last: EndEvent | ErrorEvent | None = None
    note = ""
    async for event in conversation.ask(question):
        if as_json:
            print(to_json(event), file=out, flush=True)
        else:
            status.show(event)
        if isinstance(event, ResetEvent) and event.reason == "safety":
            note = event.note
        if isinstance(event, EndEvent | ErrorEvent):
            last = event
    return last, note


@contextlib.contextmanager
def _cancel_on_interrupt(conversation: Conversation) -> Iterator[None]:
    """Ctrl+C while the answer is written cancels it through its conversation, so the stream still ends with its
    ``cancelled`` end (and the record says so). A second Ctrl+C interrupts as usual."""
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()

    def interrupted() -> None:
        loop.remove_signal_handler(signal.SIGINT)  # back to KeyboardInterrupt for a second Ctrl+C
        task = loop.create_task(conversation.cancel())
        pending.add(task)
        task.add_done_callback(pending.discard)

    try:
        loop.add_signal_handler(signal.SIGINT, interrupted)
    except (NotImplementedError, RuntimeError, ValueError):  # no signal handlers here (Windows, a thread)
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _cannot_start(kind: ErrorKind, message: str, *, as_json: bool, out: TextIO, err: TextIO) -> int:
    """No answer could begin: say why on stderr, and with --json end the event stream with an ``error`` too,
    so a script always finds the outcome on the last line."""
    print(f"hippo-tui: {message}", file=err)
    if as_json:
        print(to_json(ErrorEvent(kind=kind, message=sanitize(message))), file=out, flush=True)
    return _exit_code(ErrorEvent(kind=kind, message=message))


def _print_human(last: EndEvent | ErrorEvent | None, note: str, out: TextIO, err: TextIO) -> None:
    from hippo_tui.verification.coverage import mark_unbacked  # only once the answer has ended

    if isinstance(last, EndEvent):
        if last.outcome == "withdrawn":
            print(note or "The answer was withdrawn.", file=out)
            return
        if last.outcome == "cancelled":
            print(last.text.strip(), file=out)
            print("(Cancelled: the answer stops here; none of its citations was checked.)", file=out)
            return
        print(mark_unbacked(last.text, last.coverage).strip(), file=out)
        if last.cut:
            print(CUT_NOTE, file=out)
        if last.citations:
            print(file=out)
            for c in last.citations:
                mark = "" if c.grounding == "grounded" else " (unchecked)"
                print(f"[{c.number}] {c.title}{mark}", file=out)
                if c.newer:
                    print(f"    note: {c.newer}", file=out)
        print(file=out)
        for line in checked_lines(last):
            print(line, file=out)
    elif isinstance(last, ErrorEvent):
        if last.partial_text:
            print(last.partial_text.strip(), file=out)
        print(f"hippo-tui: {last.message}", file=err)
        if last.action:
            print(f"  → {last.action}", file=err)


def run(args: argparse.Namespace) -> int:
    def cannot_start(kind: ErrorKind, message: str) -> int:
        return _cannot_start(kind, message, as_json=args.json, out=sys.stdout, err=sys.stderr)

    try:
        settings = settings_from_args(args)
    except ConfigError as e:
        return cannot_start("usage", str(e))
    question = args.question
    if not question and settings.replay is not None:
        try:
            question = Cassette.load(settings.replay).question
        except CassetteError as e:
            return cannot_start("usage", str(e))
    if not question or not question.strip():
        return cannot_start(
            "usage", 'give a question, e.g. hippo-tui ask "first-line drug for hypertension?"'
        )
    return asyncio.run(answer(settings, question.strip(), as_json=args.json, out=sys.stdout, err=sys.stderr))
