"""A TCP proxy on loopback that cuts its first connection once it has carried ``cut_after`` bytes back to
the client: a stream broken mid-answer, with the server still up behind it."""

from __future__ import annotations

import asyncio
import contextlib


class CuttingProxy:
    def __init__(self, upstream_port: int, cut_after: int) -> None:
        self.upstream_port = upstream_port
        self.cut_after = cut_after
        self.cuts = 0
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> CuttingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        cut = self.cuts == 0  # only the first connection is cut
        limit = self.cut_after if cut else None
        if cut:
            self.cuts += 1
        await asyncio.gather(self._pipe(client_r, up_w, None), self._pipe(up_r, client_w, limit),
                             return_exceptions=True)  # fmt: skip
        for w in (client_w, up_w):
            w.close()

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter, limit: int | None) -> None:
        carried = 0
        with contextlib.suppress(ConnectionError):
            while data := await r.read(4096):
                if limit is not None and carried + len(data) > limit:
                    w.write(data[: limit - carried])
                    await w.drain()
                    w.transport.abort()  # the cut: no orderly close, as a dropped network would do
                    return
                carried += len(data)
                w.write(data)
                await w.drain()
