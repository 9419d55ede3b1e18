"""The cassette transports (see ``cassette``): ``RecordingTransport`` writes a model's responses as they come,
``ReplayTransport`` plays them back. Both are httpx transports, imported only by a run that records or replays.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import IO, Any

import httpx

from hippo_tui.backends import sse
from hippo_tui.backends.cassette import VERSION, Cassette, Recording, request_kind


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        path: Path,
        *,
        meta: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._clock = clock
        self._n = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = path.open("w", encoding="utf-8")
        self.path = path
        self.write({"type": "meta", "version": VERSION, **(meta or {})})

    def write(self, record: dict[str, Any]) -> None:
        # One line per record, flushed: a recording cut short by a crash is still readable up to there.
        if self._file.closed:
            return
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def note(self, **fields: Any) -> None:
        """Context for whoever replays it (the question asked, …)."""
        self.write({"type": "note", **fields})

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        n, self._n = self._n, self._n + 1
        # Uncompressed, so the recorded chunks and bodies are the text the client decodes.
        request.headers["Accept-Encoding"] = "identity"
        raw = await request.aread()
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {}
        start = self._clock()
        self.write(
            {
                "type": "request",
                "n": n,
                "kind": request_kind(body),
                "stream": bool(body.get("stream")),
                "body": body,
            }
        )
        try:
            response = await self._inner.handle_async_request(request)
        except asyncio.CancelledError:
            self.write({"type": "end", "n": n, "how": "cancelled", "t": self._clock() - start})
            raise
        except Exception as e:
            self.write({"type": "end", "n": n, "how": "error", "error": repr(e), "t": self._clock() - start})
            raise
        ctype = response.headers.get("content-type", "")
        self.write(
            {
                "type": "response",
                "n": n,
                "status": response.status_code,
                "content_type": ctype,
                "headers": {k: v for k, v in response.headers.items() if k.lower() in ("retry-after",)},
                "t": self._clock() - start,
            }
        )
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(self, n, start, response, sse_mode="event-stream" in ctype),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._file.close()


class _Tee(httpx.AsyncByteStream):
    def __init__(
        self, rec: RecordingTransport, n: int, start: float, response: httpx.Response, sse_mode: bool
    ):
        self._rec, self._n, self._start, self._response, self._sse = rec, n, start, response, sse_mode
        self._body = b""
        self._ended = False

    def _t(self) -> float:
        return self._rec._clock() - self._start

    def _end(self, how: str, error: str | None = None) -> None:
        if self._ended:
            return
        self._ended = True
        if not self._sse:
            self._rec.write(
                {"type": "body", "n": self._n, "t": self._t(), "text": self._body.decode("utf-8", "replace")}
            )
        rec: dict[str, Any] = {"type": "end", "n": self._n, "how": how, "t": self._t()}
        if error:
            rec["error"] = error
        self._rec.write(rec)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        buf = b""
        try:
            async for piece in self._pieces():
                # Recorded before the client sees it: a client that stops on this piece still has it on tape.
                if not self._sse:
                    self._body += piece
                else:
                    buf += piece
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        line = line.rstrip(b"\r")
                        if line.startswith(b"data:"):
                            data = line[5:].decode("utf-8", "replace")
                            self._rec.write(
                                {
                                    "type": "chunk",
                                    "n": self._n,
                                    "t": self._t(),
                                    "data": data.removeprefix(" "),
                                }
                            )
                yield piece
        except asyncio.CancelledError:
            self._end("cancelled")  # the client gave up waiting: replay will wait the same way
            raise
        except GeneratorExit:
            self._end("closed")  # the client had read what it needed (e.g. up to [DONE])
            raise
        except Exception as e:
            self._end("error", repr(e))
            raise
        self._end("done")

    async def _pieces(self) -> AsyncIterator[bytes]:
        if self._response.is_stream_consumed:  # built from bytes in-process: already read
            yield self._response.content
            return
        async for piece in self._response.aiter_raw():
            yield piece

    async def aclose(self) -> None:
        self._end("closed")
        await self._response.aclose()


class _Replay(httpx.AsyncByteStream):
    def __init__(self, rec: Recording, speed: float) -> None:
        self._rec, self._speed = rec, speed

    async def _wait(self, dt: float) -> None:
        await asyncio.sleep(dt / self._speed if self._speed > 0 and dt > 0 else 0)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        last = self._rec.t_response
        if self._rec.body is not None:
            await self._wait(self._rec.body[0] - last)
            yield self._rec.body[1].encode()
        for t, data in self._rec.chunks:
            await self._wait(t - last)
            last = t
            yield sse.frame(data)
        if self._rec.how == "error":
            raise httpx.RemoteProtocolError("the recorded stream was cut here")
        if self._rec.how == "cancelled":
            await asyncio.Event().wait()  # the client gave up waiting when it was recorded


class ReplayTransport(httpx.AsyncBaseTransport):
    def __init__(self, cassette: Cassette, *, speed: float = 1.0, name: str = "cassette") -> None:
        self.cassette, self.speed, self.name = cassette, speed, name
        self._n = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raw = await request.aread()
        try:
            kind = request_kind(json.loads(raw) if raw else {})
        except json.JSONDecodeError:
            kind = "chat"
        n, self._n = self._n, self._n + 1
        recs = self.cassette.recordings
        if n >= len(recs) or recs[n].kind != kind:
            what = f"a {recs[n].kind} request" if n < len(recs) else "nothing more"
            msg = f"{self.name} has {what} at #{n} but got a {kind} request: it was recorded for another question"
            return httpx.Response(409, json=sse.error_body(msg, type="cassette_mismatch"), request=request)
        rec = recs[n]
        if rec.status is None:  # no response was recorded: the client gave up first
            if rec.how == "error":
                raise httpx.ConnectError("the recorded request failed to connect")
            await asyncio.Event().wait()
        if self.speed > 0 and rec.t_response > 0:
            await asyncio.sleep(rec.t_response / self.speed)
        headers = {"content-type": rec.content_type or "application/json", **rec.headers}
        return httpx.Response(
            rec.status or 200, headers=headers, stream=_Replay(rec, self.speed), request=request
        )
