"""Each answer the server makes runs as a task of its own (a ``Feed``), not inside the HTTP response: the
frames it sent are kept, so a client whose connection broke can come back with ``Last-Event-ID`` and get
what it missed, and the answer ends and is recorded whatever the connections do.

A feed with no one listening is cancelled after ``grace`` seconds (the client went away, or its connection
is half-open and the server noticed on a heartbeat): a model must not keep generating for nobody. Every
answer also has a hard ``deadline``; either way it ends with its ``cancelled`` end, recorded as such.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable

from hippo_tui.engine.conversation import LocalConversation
from hippo_tui.events import ErrorEvent, Event
from hippo_tui.server.sse import ROLE, frame

KEPT_FEEDS = 256  # finished answers whose frames are kept for a reconnect, newest first


class Feed:
    def __init__(
        self,
        owner: str,
        conversation: LocalConversation,
        question: str,
        *,
        grace: float,
        deadline: float,
        on_start: Callable[[Feed], None],
    ) -> None:
        self.owner = owner
        self.conversation = conversation
        self.question = question
        self.audit_id: int | None = None
        self.frames: list[bytes] = []
        self.done = False
        self._grace, self._deadline = grace, deadline
        self._on_start = on_start
        self._wake = asyncio.Event()
        self._listeners = 0
        self._orphan: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._cancels: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._produce())
        limit = loop.call_later(self._deadline, self.cancel_soon)
        self._task.add_done_callback(lambda _: limit.cancel())

    async def _produce(self) -> None:
        try:
            async for event in self.conversation.ask(self.question):
                self._push(event)
        except Exception as e:  # an engine bug still ends the stream with an error, never a hang
            self._push(ErrorEvent(kind="internal", message=f"internal error: {type(e).__name__}"))
        finally:
            self.done = True
            self._notify()

    def _push(self, event: Event) -> None:
        if ROLE[event.type] == "opens" and self.audit_id is None:
            self.audit_id = getattr(event, "audit_id", None)
            self._on_start(self)
        self.frames.append(frame(event, self.audit_id, len(self.frames)))
        self._notify()

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    async def changed(self) -> None:
        await self._wake.wait()

    def when_done(self, callback: Callable[[], None]) -> None:
        assert self._task is not None, "started"
        self._task.add_done_callback(lambda _: callback())

    async def wait(self) -> None:
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    # -- who is listening -------------------------------------------------------------------------

    def attach(self) -> None:
        self._listeners += 1
        if self._orphan is not None:
            self._orphan.cancel()
            self._orphan = None

    def detach(self) -> None:
        self._listeners -= 1
        if self._listeners == 0 and not self.done:
            self._orphan = asyncio.get_running_loop().call_later(self._grace, self._if_orphaned)

    def _if_orphaned(self) -> None:
        if self._listeners == 0:
            self.cancel_soon()

    def cancel_soon(self) -> None:
        """Cancel the answer (from a timer or a route): it ends with its recorded ``cancelled`` end."""
        if self.done:
            return
        task = asyncio.get_running_loop().create_task(self.conversation.cancel())
        self._cancels.add(task)
        task.add_done_callback(self._cancels.discard)


class Feeds:
    """The feeds by audit id (running, and the last ``KEPT_FEEDS`` finished), and who runs how many."""

    def __init__(self) -> None:
        self._by_answer: OrderedDict[int, Feed] = OrderedDict()
        self._running: set[Feed] = set()

    def running_for(self, owner: str) -> int:
        return sum(1 for f in self._running if f.owner == owner)

    def add(self, feed: Feed) -> None:
        self._running.add(feed)
        feed.when_done(lambda: self._running.discard(feed))

    def started(self, feed: Feed) -> None:
        assert feed.audit_id is not None
        self._by_answer[feed.audit_id] = feed
        while len(self._by_answer) > KEPT_FEEDS:
            oldest = next(iter(self._by_answer.values()))
            if not oldest.done:
                break
            self._by_answer.popitem(last=False)

    def get(self, audit_id: int) -> Feed | None:
        return self._by_answer.get(audit_id)

    async def close(self) -> None:
        """Cancel every running answer and wait for each to record its end."""
        running = list(self._running)
        for feed in running:
            feed.cancel_soon()
        for feed in running:
            await feed.wait()
