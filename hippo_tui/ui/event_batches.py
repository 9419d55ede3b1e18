"""An answer's events read ahead of the drawing and handed over in batches. No Textual here.

Drawing one event costs at least a frame's share of work, so a fast engine (a remote server's burst, a
replayed cassette, the offline backend at full speed) would wait on the screen event by event. A reader
task keeps up to ``READ_AHEAD`` events waiting (then the engine waits: memory stays bounded) and the
drawing takes, each time, every text event already there as one batch. Nothing waits for a batch to
fill: a slow model's pieces are drawn one by one as they come, as before; only text that comes faster
than ``DRAW_INTERVAL`` waits for the next draw (and a reset or the end never waits).

When the end has already been read behind the text still to draw (the model finished and the check was
quick), that text is not drawn piece by piece first: it comes in one batch with the end, whose final
text the pane draws at once. The reader waits for "verified" one frame, not the whole backlog's frames.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from hippo_tui.events import EndEvent, Event, TextEvent, ThinkingEvent

# Events the engine may run ahead of the screen (about 1,500 characters at 24 a piece): the more it may,
# the more is still to draw when the model stops, which is when the reader waits for "verified"; the
# fewer, the smaller the batches (bench_ui at 16: a third less throughput, no steadier end).
READ_AHEAD = 64
# Text is drawn at most this often (seconds): what comes sooner joins the next batch. A frame of the
# answer pane costs tens of milliseconds here, so drawing on every 60 Hz tick would spend the time on
# frames the reader cannot tell apart.
DRAW_INTERVAL = 1 / 30
# Characters of one batch at most: about a Markdown segment, so one draw never mounts a whole answer.
BATCH_CHARS = 2_000


@dataclass(frozen=True)
class Failed:
    """The engine raised instead of yielding its next event."""

    error: Exception


@dataclass(frozen=True)
class Finished:
    """The engine's stream ended."""


class EventBatches:
    """``async for batch in EventBatches(events)``: lists of events in order, never empty.

    A batch is one event, or a run of consecutive text events; anything else (a reset, the end) comes
    alone, after the text before it, so a withdrawal still applies to exactly what was shown before it.
    One exception: text (and phase notes) already followed by the end come with it, the end last.
    Should the engine raise, its exception is raised here once the events before it are handed out.
    """

    def __init__(
        self,
        events: AsyncIterator[Event],
        *,
        read_ahead: int = READ_AHEAD,
        draw_interval: float = DRAW_INTERVAL,
        batch_chars: int = BATCH_CHARS,
    ) -> None:
        self._events = events
        self._read_ahead = read_ahead
        self._draw_interval = draw_interval
        self._batch_chars = batch_chars
        # Read and not yet handed out, in order (a deque, not a Queue: the end is looked for behind the text).
        self._waiting: deque[Event | Failed | Finished] = deque()
        self._arrived = asyncio.Event()
        self._room = asyncio.Event()
        self._done = False
        self._reader: asyncio.Task[None] | None = None
        self._last_text = 0.0

    async def _put(self, item: Event | Failed | Finished) -> None:
        while len(self._waiting) >= self._read_ahead:  # the engine waits: memory stays bounded
            self._room.clear()
            await self._room.wait()
        self._waiting.append(item)
        self._arrived.set()

    async def _get(self) -> Event | Failed | Finished:
        while not self._waiting:
            self._arrived.clear()
            await self._arrived.wait()
        self._room.set()
        return self._waiting.popleft()

    async def _read(self) -> None:
        try:
            async for event in self._events:
                await self._put(event)
        except Exception as e:  # an engine bug: the events before it are drawn first
            await self._put(Failed(e))
            return
        await self._put(Finished())

    def __aiter__(self) -> EventBatches:
        return self

    async def __anext__(self) -> list[Event]:
        if self._done:
            raise StopAsyncIteration
        if self._reader is None:
            self._reader = asyncio.create_task(self._read())
        first = await self._get()
        if isinstance(first, Finished):
            self._done = True
            raise StopAsyncIteration
        if isinstance(first, Failed):
            self._done = True
            raise first.error
        if isinstance(first, TextEvent) and (caught_up := self._through_the_end(first)):
            return caught_up
        if isinstance(first, TextEvent):
            wait = self._last_text + self._draw_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_text = time.monotonic()
        batch: list[Event] = [first]
        chars = len(first.display) if isinstance(first, TextEvent) else self._batch_chars
        while chars < self._batch_chars and self._waiting and isinstance(self._waiting[0], TextEvent):
            item = self._waiting.popleft()
            assert isinstance(item, TextEvent)
            batch.append(item)
            chars += len(item.display)
        self._room.set()
        return batch

    def _through_the_end(self, first: TextEvent) -> list[Event] | None:
        """``first`` and what waits behind it through the end, if the end waits behind only text and notes."""
        for i, item in enumerate(self._waiting):
            if isinstance(item, EndEvent):
                batch: list[Event] = [first]
                for _ in range(i + 1):
                    event = self._waiting.popleft()
                    assert not isinstance(event, Failed | Finished)
                    batch.append(event)
                self._room.set()
                return batch
            if not isinstance(item, TextEvent | ThinkingEvent):
                return None
        return None

    async def close(self) -> None:
        """Stop reading (the answer is done, or its consumer was stopped) and close the engine's stream,
        so an answer stopped early still writes its record."""
        self._done = True
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.wait({self._reader})  # a cancellation of the caller still goes through
        if isinstance(self._events, AsyncGenerator):
            await self._events.aclose()


def text_runs(events: list[Event], limit: int = BATCH_CHARS) -> list[str]:
    """The display text of ``events``' text events in runs of about ``limit`` characters, cut between
    events (where streaming cuts: never inside a marker), so a catch-up is appended as batches are."""
    runs: list[str] = []
    run = ""
    for event in events:
        if isinstance(event, TextEvent):
            run += event.display
            if len(run) >= limit:
                runs.append(run)
                run = ""
    return [*runs, run] if run else runs
