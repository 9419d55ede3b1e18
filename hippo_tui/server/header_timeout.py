"""A header-read timeout, which uvicorn does not have: a connection whose request line and headers are not
all in within ``seconds`` of its first byte (or of its opening, when it sends none) is closed with a 408.

uvicorn arms a timer only between requests on a kept-alive connection and stops it at the first byte of the
next; a client that sends its headers a byte at a time (slow loris), or never, kept its connection and a
socket for ever. This is uvicorn's own h11 protocol with one timer more, chosen through ``Config(http=...)``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
             b"content-length: 89\r\n\r\n"
             b'{"error": {"kind": "timeout", "message": "the request headers did not arrive in time."}}\n')  # fmt: skip


class HeaderTimeoutProtocol(H11Protocol):
    seconds: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._headers_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._headers_timer is None:
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the request line and headers are all in
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._headers_timer = self.loop.call_later(self.seconds, self._timed_out)

    def _disarm(self) -> None:
        if self._headers_timer is not None:
            self._headers_timer.cancel()
            self._headers_timer = None

    def _timed_out(self) -> None:
        self._headers_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.write(TIMED_OUT)
            self.transport.close()


def with_header_timeout(seconds: float) -> type[HeaderTimeoutProtocol]:
    """The protocol class for ``uvicorn.Config(http=...)`` with this timeout."""
    return type("HeaderTimeout", (HeaderTimeoutProtocol,), {"seconds": seconds})
