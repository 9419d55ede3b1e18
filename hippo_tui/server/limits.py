"""What one client can take of the server: the size of a request body, the length of a question, answers
running at once per token, and how long an answer may run (then it is cancelled and recorded so)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hippo_tui.server.errors import error_response


@dataclass(frozen=True)
class Limits:
    max_body: int = 256 * 1024  # bytes of a request body (an answer to verify is the largest)
    max_upload: int = 64 * 1024 * 1024  # bytes of an upload to POST /v1/kb/ingest (its files together)
    max_question: int = 4000  # characters
    answers_per_token: int = 2  # running at once; more is a 429 with Retry-After
    # Answers past their start event at once, server-wide; the rest wait for a slot with their start sent
    # and recorded. Measured (bench/bench_server.py): 50 at once unbounded, the last start came after
    # 2.6 s; bounded by 4-8, after ~0.4-0.5 s, and the 50 ended sooner.
    running: int = 8
    deadline: float = 300.0  # seconds an answer may run, whatever its client does
    grace: float = 10.0  # seconds an answer runs on with no one listening (a reconnect resumes it)
    header_timeout: float = 10.0  # seconds a connection has to send its request line and headers
    heartbeat: float = 15.0  # seconds of silence on a stream before a comment is sent
    retry_after: int = 5  # seconds, told with a 429 for too many answers


class BodyTooLarge(Exception):
    pass


UPLOAD_PATH = "/v1/kb/ingest"  # the one route whose body may be ``max_upload``


class BodyLimit:
    """Refuses a body over ``max_body`` bytes (``max_upload`` for an upload) with a 413: at once when
    Content-Length says so, else as soon as the bytes read pass it (a chunked upload cannot get round it)."""

    def __init__(self, app: ASGIApp, max_body: int, max_upload: int | None = None) -> None:
        self.app, self.max_body = app, max_body
        self.max_upload = max_upload if max_upload is not None else max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_upload if scope.get("path") == UPLOAD_PATH else self.max_body
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > limit:
            await self._refuse(scope, receive, send, limit)
            return
        read = 0

        async def counted() -> Message:
            nonlocal read
            message = await receive()
            read += len(message.get("body", b""))
            if read > limit:
                raise BodyTooLarge()
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await self._refuse(scope, receive, send, limit)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        message = f"the request body is over {limit} bytes"
        response: Any = error_response(413, "too_large", message)
        await response(scope, receive, send)
