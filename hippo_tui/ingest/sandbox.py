"""Parsing each document in a worker process with resource limits: a bomb kills a worker, not the run.

The worker runs ``reading.parse_file`` with its address space capped (``resource.setrlimit``); the run waits
for each file at most the time limit, then kills the worker and starts another. Whatever a file does to
its parser (exhausts memory, overflows the C stack, loops) becomes one ``IngestError`` with a plain reason.
Where processes or ``resource`` are not available the parse runs in-process, with the in-parser limits only.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from hippo_tui.ingest import limits as limits_module
from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.limits import Limits
from hippo_tui.ingest.reading import Overrides, parse_file
from hippo_tui.ingest.versions import IngestItem


def _cap_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the in-parser limits still hold
        return
    cap = megabytes * 2**20
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(
        resource.RLIMIT_AS, (cap, cap if hard == resource.RLIM_INFINITY or hard > cap else hard)
    )


def parse_reporting(path: Path, overrides: Overrides, limits: Limits) -> tuple[str, Any]:
    """("ok", the item) or ("error", a reason): what the worker sends back for one file."""
    try:
        return "ok", parse_file(path, overrides)
    except IngestError as e:
        return "error", e.reason
    except MemoryError:
        return "error", f"needs more memory than the {limits.memory_mb:,} MB limit to parse"
    except RecursionError:
        return "error", "nested too deeply to read"
    except Exception as e:  # a parser's own bug on a malformed file: one failed file, not a traceback
        return "error", f"could not be parsed ({type(e).__name__}: {str(e)[:200]})"


def _serve(conn: Connection, limits: Limits) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c is the run's to handle
    limits_module.current = limits
    _cap_memory(limits.memory_mb)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        path, overrides = job
        conn.send(parse_reporting(path, overrides, limits))


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    # forkserver: a clean, small process to fork workers from (fork from a threaded parent is unsafe).
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


class Sandbox:
    """One worker process at a time; ``parse`` a file in it, ``close`` when the run is done."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._proc: Any = None
        self._conn: Connection | None = None

    def _start(self) -> Connection:
        if self._conn is None:
            ours, theirs = _context().Pipe()
            self._proc = _context().Process(target=_serve, args=(theirs, self.limits), daemon=True)
            self._proc.start()
            theirs.close()
            self._conn = ours
        return self._conn

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    def _died(self) -> str:
        self._proc.join(5)
        code = self._proc.exitcode
        self._stop()
        if code is not None and code < 0 and -code in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
            return "crashed its parser (nested too deeply or malformed)"
        return f"stopped its parser (it needed more than the {self.limits.memory_mb:,} MB memory limit?)"

    def parse(self, path: Path, overrides: Overrides) -> IngestItem:
        conn = self._start()
        try:
            conn.send((path, overrides))
        except OSError:  # the worker died after its last file (a broken pipe): say how, as below
            raise IngestError(path, self._died()) from None
        if not conn.poll(self.limits.seconds):
            self._stop()
            raise IngestError(
                path, f"took longer than {self.limits.seconds:g} s to read (the limit per file)"
            )
        try:
            status, value = conn.recv()
        except (EOFError, OSError):
            raise IngestError(path, self._died()) from None
        if status == "error":
            raise IngestError(path, value)
        item: IngestItem = value
        return item

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()  # the worker sees EOF and ends
            self._proc.join(5)
        self._stop()


def available() -> bool:
    return sys.platform != "emscripten" and bool(multiprocessing.get_all_start_methods())
