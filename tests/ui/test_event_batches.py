"""Reading an answer's events ahead of the drawing, in batches: order, bounds, failures, early stops."""

from __future__ import annotations

import asyncio

import pytest

from hippo_tui.events import EndEvent, Event, ResetEvent, TextEvent, ThinkingEvent
from hippo_tui.ui.event_batches import EventBatches, text_runs


def _texts(n: int, size: int = 24) -> list[Event]:
    return [TextEvent(delta="x" * size, display=f"{i:0{size}d}"[-size:]) for i in range(n)]


class Engine:
    """An engine at unlimited speed: yields its events without waiting; notes how far it got."""

    def __init__(self, events: list[Event], fail_after: int | None = None) -> None:
        self.events = events
        self.fail_after = fail_after
        self.yielded = 0
        self.closed = False

    async def ask(self):
        try:
            for i, event in enumerate(self.events):
                if i == self.fail_after:
                    raise RuntimeError("boom")
                self.yielded += 1
                yield event
        finally:
            self.closed = True  # the real engine writes the answer's record here


async def _drain(batches: EventBatches) -> list[list[Event]]:
    out = []
    async for batch in batches:
        out.append(batch)
        await asyncio.sleep(0)  # the drawing: the reader runs meanwhile
    return out


async def test_a_fast_engines_text_comes_in_few_batches_with_nothing_lost_or_reordered():
    events = [ThinkingEvent(text="Searching", phase="searching"), *_texts(2_000)]
    events.append(EndEvent(text="done", citations=[], audit_id=1))
    batches = await _drain(EventBatches(Engine(events).ask(), read_ahead=64, draw_interval=0))
    flat = [e for b in batches for e in b]
    assert flat == events
    assert len(batches) < 200  # not one draw per piece
    assert batches[0] == [events[0]]  # non-text events come alone
    assert all(all(isinstance(e, TextEvent) for e in b) for b in batches[1:-1])
    # The end was read behind the last pieces: they come with it, to be drawn once as the final text.
    assert batches[-1][-1] == events[-1] and len(batches[-1]) > 1


async def test_text_the_end_already_follows_comes_with_the_end_and_nothing_else_does():
    """The model finished while text was still to draw: that text is not drawn piece by piece before the
    final text (the reader would wait for "verified" through every frame of it); a reset is never skipped."""
    checking = ThinkingEvent(text="Checking", phase="checking")
    end = EndEvent(text="done", citations=[], audit_id=1)
    texts = _texts(30)
    engine = Engine([*texts, checking, end])
    batches = EventBatches(engine.ask(), read_ahead=64, draw_interval=0)
    for _ in range(5):
        await asyncio.sleep(0)  # a slow screen: everything is read before the first draw
    got = await _drain(batches)
    assert got == [[*texts, checking, end]]

    reset = ResetEvent(reason="tool_call", withdrawn="w", withdrawn_display="w", note="Looking up")
    engine = Engine([*texts, reset, *texts, end])
    batches = EventBatches(engine.ask(), read_ahead=64, draw_interval=0)
    for _ in range(5):
        await asyncio.sleep(0)
    got = await _drain(batches)
    assert got[0] == texts and got[1] == [reset] and got[2] == [*texts, end]


async def test_text_the_end_has_not_caught_up_with_is_drawn_as_it_comes():
    """A model still writing (the end not read yet): every piece is drawn, nothing is held back."""
    end = EndEvent(text="done", citations=[], audit_id=1)
    released = asyncio.Event()

    async def slow():
        for e in _texts(3):
            yield e
        await released.wait()
        yield end

    batches = EventBatches(slow(), draw_interval=0)
    drawn: list[Event] = []
    while len(drawn) < 3:  # the end is not read yet: the three pieces come on their own
        drawn += await batches.__anext__()
    assert drawn == _texts(3)
    released.set()
    assert await batches.__anext__() == [end]


async def test_a_reset_arriving_mid_batch_ends_the_batch_and_comes_alone_after_the_text_before_it():
    before, after = _texts(10), _texts(10)
    reset = ResetEvent(reason="safety", withdrawn="w", withdrawn_display="w", note="Withdrawn")
    events = [*before, reset, *after]
    batches = await _drain(EventBatches(Engine(events).ask(), draw_interval=0))
    at = next(i for i, b in enumerate(batches) if reset in b)
    assert batches[at] == [reset]
    assert [e for b in batches[:at] for e in b] == before
    assert [e for b in batches[at + 1 :] for e in b] == after


async def test_a_batch_holds_at_most_about_batch_chars():
    batches = await _drain(EventBatches(Engine(_texts(500)).ask(), draw_interval=0, batch_chars=240))
    assert all(sum(len(e.display) for e in b) < 240 + 24 for b in batches)
    assert sum(len(b) for b in batches) == 500


async def test_the_engine_runs_at_most_read_ahead_events_in_front_of_the_drawing():
    engine = Engine(_texts(1_000))
    batches = EventBatches(engine.ask(), read_ahead=16, draw_interval=0)
    taken = 0
    async for batch in batches:
        taken += len(batch)
        for _ in range(5):
            await asyncio.sleep(0)  # a slow screen: the reader has every chance to run ahead
        assert engine.yielded <= taken + 16 + 1
        if taken > 300:
            break
    await batches.close()
    assert engine.closed and engine.yielded < 1_000


async def test_an_engine_that_raises_has_its_earlier_events_handed_out_first():
    events = _texts(5)
    batches = EventBatches(Engine(events, fail_after=3).ask(), draw_interval=0)
    seen: list[Event] = []
    with pytest.raises(RuntimeError, match="boom"):
        async for batch in batches:
            seen += batch
    assert seen == events[:3]
    await batches.close()


async def test_closing_early_closes_the_engines_stream():
    engine = Engine(_texts(100))
    batches = EventBatches(engine.ask(), draw_interval=0)
    await anext(aiter(batches))
    await batches.close()
    assert engine.closed


async def test_text_right_before_the_streams_end_is_handed_out_and_the_batches_stop():
    engine = Engine(_texts(3))
    batches = EventBatches(engine.ask(), draw_interval=0)
    for _ in range(10):
        await asyncio.sleep(0)  # the reader has queued everything, the end of the stream included
    assert [e for b in await _drain(batches) for e in b] == engine.events


def test_a_catch_up_is_appended_in_batch_sized_runs_cut_between_pieces():
    """Text the end took with it is appended as batches are (a segment's worth at a time, never inside a
    piece, where a marker could be cut in half)."""
    texts = _texts(500)
    runs = text_runs([*texts, EndEvent(text="done", citations=[], audit_id=1)], limit=240)
    assert "".join(runs) == "".join(e.display for e in texts)
    assert all(len(r) % 24 == 0 and len(r) <= 240 + 24 for r in runs) and len(runs) > 40
