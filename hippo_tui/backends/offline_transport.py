"""The offline server (``offline.OfflineServer``) as an httpx transport, for clients that speak HTTP.

``AsyncOpenAI(http_client=httpx.AsyncClient(transport=OfflineTransport()))`` talks to it exactly as it talks
to a real server; a recorded offline run wraps it in a ``RecordingTransport``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

import httpx

from hippo_tui.backends.local_client import LocalReply
from hippo_tui.backends.offline import OfflineServer


class _Stream(httpx.AsyncByteStream):
    def __init__(self, chunks: AsyncIterable[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk


def http_response(reply: LocalReply, request: httpx.Request | None = None) -> httpx.Response:
    """``reply`` as the httpx response a server's bytes would make."""
    if reply.stream is not None:
        return httpx.Response(reply.status, headers=reply.headers, stream=_Stream(reply.stream), request=request)
    return httpx.Response(reply.status, headers=reply.headers, json=reply.json, request=request)


class OfflineTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, tokens_per_second: float = 40.0) -> None:
        self.server = OfflineServer(tokens_per_second=tokens_per_second)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return http_response(self.server.reply(request.method, request.url.path, await request.aread()))

    turn_chunks = staticmethod(OfflineServer.turn_chunks)
