"""Server-sent events as the engine's events: ``id: <audit id>.<seq>`` and ``data:`` the very line
``hippo-tui ask --json`` prints (``events.to_json``), one event per frame, with a comment heartbeat while
nothing else is sent.

Written as plain bytes through a StreamingResponse rather than FastAPI's own SSE encoder: the data line must
be exactly ``to_json``'s output, and the heartbeat's timing is ours to choose.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from hippo_tui.events import Event, to_json

if TYPE_CHECKING:
    from hippo_tui.server.feeds import Feed

HEARTBEAT = b": keep-alive\n\n"
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
MEDIA_TYPE = "text/event-stream"

# What the stream does with each event type, by its ``type`` tag: a new event type fails the front-end
# coverage test until it is listed. "opens": its audit id names every frame of the answer; "closes": the
# stream ends after it.
ROLE: dict[str, str] = {
    "start": "opens",
    "thinking": "relays",
    "sources": "relays",
    "text": "relays",
    "reset": "relays",
    "end": "closes",
    "error": "closes",
}


def frame(event: Event, audit_id: int | None, seq: int) -> bytes:
    """One SSE frame. Without an audit id (an answer whose record could not begin) it carries no id."""
    head = f"id: {audit_id}.{seq}\n" if audit_id is not None else ""
    return f"{head}data: {to_json(event)}\n\n".encode()


def parse_last_event_id(value: str | None, audit_id: int) -> int:
    """The sequence number after which a reconnecting client wants frames (-1: from the start)."""
    if not value:
        return -1
    answer, _, seq = value.strip().partition(".")
    if answer != str(audit_id) or not seq.isdigit():
        return -1
    return int(seq)


async def stream(feed: Feed, after: int, heartbeat: float) -> AsyncIterator[bytes]:
    """The feed's frames after ``after``, then live ones as they come, a heartbeat every ``heartbeat``
    seconds of silence. Detaches on the way out, whatever ends it (the client went away: cancelled)."""
    feed.attach()
    try:
        index = after + 1
        while True:
            frames = feed.frames
            while index < len(frames):
                yield frames[index]
                index += 1
            if feed.done:
                return
            try:
                await asyncio.wait_for(feed.changed(), heartbeat)
            except TimeoutError:
                yield HEARTBEAT
    finally:
        feed.detach()
