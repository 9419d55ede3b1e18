"""One conversation on a `hippo-tui serve`: its answers read from the server's event stream, frame by
frame, as the events the local engine would have yielded.

A stream cut before its end (the network, a proxy, the server restarting) is resumed with
``Last-Event-ID`` for up to ``RESUME_WITHIN`` seconds: the server keeps the answer's frames, so nothing is
shown twice or missed. After that the answer ends with a ``stream_cut`` error holding what was shown; the
server still finishes and records it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

import httpx
from pydantic import ValidationError

from hippo_tui.engine.remote_errors import RemoteError, refused, unreachable
from hippo_tui.events import ErrorEvent, Event, ResetEvent, TextEvent, parse_event
from hippo_tui.verification.markers import finalize_markers

if TYPE_CHECKING:
    from hippo_tui.engine.remote import RemoteEngine

RESUME_WITHIN = 30.0  # seconds a cut stream is tried again
RESUME_PAUSE = 0.5  # seconds between tries while the server is away


class _Seen:
    """What the stream has delivered: the last frame's id, the answer's audit id, the text so far."""

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.audit_id: int | None = None
        self.raw = ""
        self.ended = False

    def add(self, event: Event, frame_id: str | None) -> None:
        self.last_id = frame_id or self.last_id
        if event.type == "start":
            self.audit_id = event.audit_id
        elif isinstance(event, TextEvent):
            self.raw += event.delta
        elif isinstance(event, ResetEvent) and event.withdrawn:
            self.raw = self.raw[: -len(event.withdrawn)]
        self.ended = event.type in ("end", "error")

    def error(self, e: RemoteError) -> ErrorEvent:
        return ErrorEvent(kind=e.kind, message=e.message, action=e.action,
                          partial_text=finalize_markers(self.raw, {}), audit_id=self.audit_id)  # fmt: skip


async def _frames(response: httpx.Response) -> AsyncIterator[tuple[str | None, str]]:
    """(id, data) of each event frame; comments (heartbeats) are skipped."""
    frame_id, data = None, None
    async for line in response.aiter_lines():
        if line == "":
            if data is not None:
                yield frame_id, data
            frame_id, data = None, None
        elif line.startswith("id:"):
            frame_id = line[3:].strip()
        elif line.startswith("data:"):
            data = line[5:].removeprefix(" ")


class RemoteConversation:
    def __init__(self, engine: RemoteEngine, conversation_id: str, system_prompt: str) -> None:
        self._engine = engine
        self._id = conversation_id
        self._prompt = system_prompt
        self._running: _Seen | None = None
        self._cancel_wanted = False

    @property
    def id(self) -> str:
        return self._id

    @property
    def system_prompt(self) -> str:
        return self._prompt

    async def ask(self, question: str) -> AsyncGenerator[Event, None]:
        seen = self._running = _Seen()
        self._cancel_wanted = False
        body = {"question": question, "conversation_id": self._id}
        try:
            async for event in self._read(seen, "POST", "/v1/ask", json=body):
                yield event
            if not seen.ended:
                async for event in self._resume(seen):
                    yield event
        except RemoteError as e:
            yield seen.error(e)
        finally:
            self._running = None

    async def _read(self, seen: _Seen, method: str, path: str, **kwargs: object) -> AsyncIterator[Event]:
        """The events of one request's stream, until it ends or breaks (a break before any frame raises)."""
        http = self._engine.http
        try:
            async with http.stream(method, path, **kwargs) as r:  # type: ignore[arg-type]
                if r.status_code != 200:
                    raise refused(self._engine.url, r.status_code, await r.aread(), r.headers)
                async for frame_id, data in _frames(r):
                    try:
                        event = parse_event(data)
                    except ValidationError:
                        raise RemoteError("bad_response", "the server sent an event this client cannot read",
                                          "update hippo-tui to the server's version") from None  # fmt: skip
                    seen.add(event, frame_id)
                    if event.type == "start" and self._cancel_wanted:
                        await self._post_cancel(event.audit_id)
                    yield event
        except httpx.TransportError as e:
            if seen.audit_id is None:
                raise unreachable(self._engine.url, e) from None
            # Mid-answer: the caller resumes from the last frame.

    async def _resume(self, seen: _Seen) -> AsyncIterator[Event]:
        until = time.monotonic() + RESUME_WITHIN
        while not seen.ended and seen.audit_id is not None and time.monotonic() < until:
            headers = {"Last-Event-ID": seen.last_id or ""}
            try:
                async for event in self._read(seen, "GET", f"/v1/answers/{seen.audit_id}/events",
                                              headers=headers):  # fmt: skip
                    yield event
            except RemoteError as e:
                if e.kind == "not_found":  # a restarted server keeps no frames: the answer was interrupted
                    raise RemoteError("stream_cut", f"the server at {self._engine.url} restarted mid-answer",
                                      f"ask again; audit record {seen.audit_id} keeps it, marked interrupted") from None  # fmt: skip
                if e.kind != "connection":
                    raise
            if not seen.ended:
                await asyncio.sleep(RESUME_PAUSE)  # the server is away: try again shortly
        if not seen.ended:
            raise RemoteError("stream_cut", f"the connection to {self._engine.url} broke mid-answer and did "
                              "not come back", "ask again; the server keeps the answer in its audit record")  # fmt: skip

    async def cancel(self) -> None:
        seen = self._running
        if seen is None:
            return
        self._cancel_wanted = True
        if seen.audit_id is not None and not seen.ended:
            await self._post_cancel(seen.audit_id)

    async def _post_cancel(self, audit_id: int) -> None:
        try:
            await self._engine.call("POST", f"/v1/answers/{audit_id}/cancel")
        except RemoteError:
            pass  # gone already, or the server is away: the answer ends (and is recorded) either way

    async def set_system_prompt(self, text: str) -> None:
        await self._engine.call("PUT", f"/v1/conversations/{self._id}", json={"system_prompt": text})
        self._prompt = text

    async def close(self) -> None:
        await self.cancel()
        try:
            await self._engine.call("DELETE", f"/v1/conversations/{self._id}")
        except RemoteError:
            pass  # the server forgets idle conversations on its own
