"""How a running `hippo-tui eval` is stopped: ctrl+c, or Esc on a terminal. Either stops it cleanly (the
answers being written are cancelled and recorded as such, the finished ones kept); a second ctrl+c quits at
once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator

ESC = b"\x1b"


@contextlib.contextmanager
def stop_on_sigint(stop: Callable[[], None]) -> Iterator[None]:
    loop = asyncio.get_running_loop()

    def first() -> None:
        loop.remove_signal_handler(signal.SIGINT)  # the next ctrl+c is Python's own: KeyboardInterrupt
        stop()

    try:
        loop.add_signal_handler(signal.SIGINT, first)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):  # no signal handlers on this platform or thread
        installed = False
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


@contextlib.contextmanager
def stop_on_esc(stop: Callable[[], None]) -> Iterator[None]:
    """Esc alone on a terminal's stdin stops the run. The terminal is in cbreak mode meanwhile (keys arrive
    one by one, ctrl+c still signals) and restored after; an arrow key's escape sequence is not an Esc."""
    try:
        import termios
        import tty
    except ImportError:  # not a POSIX terminal
        yield
        return
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):  # no stdin, a closed one, or one that is not a file
        fd = -1
    if fd < 0 or not os.isatty(fd):
        yield
        return
    loop = asyncio.get_running_loop()
    saved = termios.tcgetattr(fd)

    def read() -> None:
        try:
            data = os.read(fd, 64)
        except OSError:
            data = b""
        if data == ESC:
            stop()

    tty.setcbreak(fd)
    try:
        loop.add_reader(fd, read)
    except (NotImplementedError, ValueError):
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        yield
        return
    try:
        yield
    finally:
        loop.remove_reader(fd)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
