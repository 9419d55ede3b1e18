"""The answer session without the app: a scripted engine implementing the protocol, no Textual."""

from __future__ import annotations

import asyncio

from hippo_tui.engine.protocol import AnswerEngine, Conversation
from hippo_tui.events import EndEvent, ErrorEvent, Event, StartEvent, TextEvent, ThinkingEvent
from hippo_tui.ui.session import Answer, AnswerSession
from tests.support.scripted import QUESTION, ScriptedEngine, answer_events


def _started(audit_id: int) -> list[Event]:
    start = StartEvent(audit_id=audit_id, question=QUESTION, backend="offline", model="offline")
    return [start, *answer_events(audit_id=audit_id)]


class Drawn:
    """What a front end would draw: every event delivered, per answer, and each answer's end reported back."""

    def __init__(self, session: AnswerSession) -> None:
        self.session = session
        self.events: dict[int, list[Event]] = {}
        self.batches: dict[int, list[list[Event]]] = {}
        self._more = asyncio.Event()

    async def until(self, number: int, count: int) -> None:
        """Until answer ``number`` has delivered ``count`` events."""
        while len(self.events.get(number, [])) < count:
            self._more.clear()
            await self._more.wait()

    async def __call__(self, answer: Answer, batch: list[Event]) -> None:
        self.events.setdefault(answer.number, []).extend(batch)
        self.batches.setdefault(answer.number, []).append(batch)
        self._more.set()
        event = batch[-1]
        if isinstance(event, EndEvent):
            self.session.finish(answer, event, event.text)
        elif isinstance(event, ErrorEvent):
            self.session.finish(answer, event, event.partial_text)
        elif isinstance(event, ThinkingEvent) and event.phase == "checking":
            self.session.release(answer)


async def test_the_scripted_engine_implements_the_protocol():
    engine = ScriptedEngine([])
    assert isinstance(engine, AnswerEngine)
    assert isinstance(await engine.open_conversation(), Conversation)


async def test_an_answer_runs_to_its_turn_with_the_audit_id_of_its_start():
    session = AnswerSession(ScriptedEngine(_started(7)))
    drawn = Drawn(session)
    await session.open()
    answer = session.start(QUESTION)
    assert session.active is answer and session.is_current(answer)
    await session.run(answer, drawn)
    assert answer.audit_id == 7 and answer.done and session.active is None
    assert drawn.events[1][0].type == "start" and drawn.events[1][-1].type == "end"
    [turn] = session.turns
    assert turn.outcome == "complete" and turn.audit_id == 7 and [c.number for c in turn.citations] == [1, 2]


async def test_cancel_keeps_the_record_of_the_answer_cancelled_when_the_same_question_was_asked_twice():
    engine = ScriptedEngine([_started(1), _started(2)], pause_after=5)
    session = AnswerSession(engine)
    drawn = Drawn(session)
    await session.open()
    first = session.start(QUESTION)
    engine.release()
    await session.run(first, drawn)
    engine.pause_after = 5
    second = session.start(QUESTION)  # the same question again
    running = asyncio.ensure_future(session.run(second, drawn))
    await drawn.until(2, 5)
    assert await session.cancel() is second
    assert session.active is None  # the prompt is free at once
    assert await session.latest_audit_id() == 2  # waits for the cancelled end: its record is written
    await running
    end = drawn.events[2][-1]
    assert isinstance(end, EndEvent) and end.outcome == "cancelled" and end.audit_id == 2
    assert [t.audit_id for t in session.turns] == [1, 2] and session.turns[-1].outcome == "cancelled"
    assert "[·" not in session.turns[-1].text and session.turns[-1].text.startswith("Adults with")
    assert engine.cancelled == [QUESTION]


async def test_a_stream_that_stops_without_an_end_becomes_an_error_and_frees_the_prompt():
    session = AnswerSession(ScriptedEngine([TextEvent(delta="Half ", display="Half ")]))
    drawn = Drawn(session)
    await session.open()
    answer = session.start(QUESTION)
    await session.run(answer, drawn)
    last = drawn.events[1][-1]
    assert isinstance(last, ErrorEvent) and last.kind == "stream_cut"
    assert session.active is None and session.turns[-1].outcome == "error"


async def test_an_engine_bug_becomes_an_internal_error_not_an_exception():
    class Broken(ScriptedEngine):
        async def play(self, question, prompt):
            yield ThinkingEvent(text="Searching", phase="searching")
            raise RuntimeError("boom")

    session = AnswerSession(Broken([]))
    drawn = Drawn(session)
    await session.open()
    answer = session.start(QUESTION)
    await session.run(answer, drawn)
    last = drawn.events[1][-1]
    assert isinstance(last, ErrorEvent) and last.kind == "internal" and "boom" in last.message


async def test_a_new_conversation_forgets_the_turns_and_an_earlier_answer_no_longer_counts():
    engine = ScriptedEngine(_started(3), pause_after=2)
    session = AnswerSession(engine)
    drawn = Drawn(session)
    await session.open()
    answer = session.start(QUESTION)
    running = asyncio.ensure_future(session.run(answer, drawn))
    await drawn.until(1, 2)
    await session.cancel()
    await session.new_conversation()
    await running
    assert engine.new_conversations == 1 and session.turns == []
    assert not session.is_current(answer) and await session.latest_audit_id() is None


def test_a_question_asked_before_the_engine_opens_waits_once():
    session = AnswerSession()
    assert session.queue("first?") and not session.queue("second?")
    assert session.take_queued() == "first?" and session.take_queued() is None
