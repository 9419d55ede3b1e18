"""Starting `hippo-tui serve`: the engine, answers a dead server left in flight marked interrupted, then
uvicorn until a signal; on the way out every running answer is cancelled and recorded (bounded)."""

from __future__ import annotations

import contextlib
import ipaddress
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from hippo_tui.config import Settings
from hippo_tui.engine.local import Engine
from hippo_tui.server.app import create_app
from hippo_tui.server.header_timeout import with_header_timeout
from hippo_tui.server.limits import Limits
from hippo_tui.server.state import ServerState
from hippo_tui.server.tokens import TokenCheck

SHUTDOWN_GRACE = 5  # seconds open streams get on shutdown before they are closed


class ServeError(Exception):
    """The server cannot start as asked (a usage error)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_binding(host: str, tokens: Path | None) -> None:
    if tokens is None and not is_loopback(host):
        raise ServeError(
            f"without --tokens the server binds only to loopback (127.0.0.1, ::1), not {host}: "
            "make tokens with `hippo-tui token add NAME --role clinician --tokens FILE`"
        )


@contextlib.contextmanager
def _signals_land_here() -> Iterator[None]:
    """uvicorn handles SIGINT/SIGTERM while it serves, then raises the signal again once it has stopped:
    with the default handler the process would die there, before running answers are cancelled and
    recorded. Whatever handler is in place then gets it: here, one that lets the clean-up run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


async def serve(settings: Settings, *, host: str, port: int, tokens: Path | None, limits: Limits) -> int:
    check_binding(host, tokens)
    check = TokenCheck(tokens) if tokens is not None else None
    engine = await Engine.create(settings, max_answers=limits.running)
    try:
        interrupted = await engine.store.mark_interrupted("server:")
        if interrupted:
            what = "1 answer" if interrupted == 1 else f"{interrupted} answers"
            print(f"hippo-tui: {what} left in flight by a stopped server marked interrupted", file=sys.stderr)
        app = create_app(engine, tokens=check, limits=limits)
        config = uvicorn.Config(
            app, host=host, port=port, log_level="info", timeout_graceful_shutdown=SHUTDOWN_GRACE,
            lifespan="off", server_header=False, http=with_header_timeout(limits.header_timeout),
        )  # fmt: skip
        info = await engine.info()
        auth = f"tokens from {tokens}" if tokens else "no tokens (loopback only)"
        print(f"hippo-tui serve: http://{host}:{port} · {info.backend} · kb {info.kb_name} ({info.kb_size}) · "
              f"{auth}", file=sys.stderr, flush=True)  # fmt: skip
        with _signals_land_here():
            await uvicorn.Server(config).serve()
        held: ServerState = app.state.hippo
        await held.feeds.close()  # answers still running when the streams closed: cancelled, recorded
    finally:
        await engine.close()
    return 0
