"""EventLog: grouping events into answers and the inspector's numbers, all from ``event.t``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    ResetEvent,
    SourcePreview,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.ui.event_log import EventLog, compute_metrics


def answer(t0: float = 0.0, *, seconds: float = 0.5) -> list:
    """One complete answer with a reset, the way the engine orders its events."""
    return [
        ThinkingEvent(text="Searching the knowledge base", phase="searching", t=t0),
        SourcesEvent(sources=[SourcePreview(id="a", title="A", snippet="s")], t=t0 + 0.1),
        TextEvent(delta="Half", display="Half", held=6, t=t0 + 0.25),
        ResetEvent(
            reason="tool_call",
            withdrawn="Half",
            withdrawn_display="Half",
            note="Looked something up",
            t=t0 + 0.3,
        ),
        ThinkingEvent(text="Searching again", phase="searching", t=t0 + 0.3),
        SourcesEvent(sources=[], t=t0 + 0.35),
        TextEvent(delta="Whole answer", display="Whole answer", held=2, t=t0 + 0.5),
        TextEvent(delta=".", display=".", held=0, t=t0 + 0.6),
        ThinkingEvent(text="Checking citations…", phase="checking", t=t0 + 0.7),
        EndEvent(
            text="Whole answer.",
            citations=[],
            audit_id=1,
            verification=VerificationSummary(seconds=seconds),
            t=t0 + 0.7 + seconds,
        ),
    ]


def test_an_answer_with_a_reset_stays_one_answer():
    log = EventLog()
    for e in answer():
        log.add(e)
    assert len(log.answers()) == 1
    assert len(log.entries) == len(log) == 10


def test_metrics_of_one_answer():
    m = compute_metrics(answer(seconds=0.8))
    assert m.first_text_s == pytest.approx(0.25)
    assert m.max_held == 6
    assert m.mean_held == pytest.approx((6 + 2 + 0) / 3)
    assert m.verification_s == pytest.approx(0.8)
    assert m.resets == 1 and m.withdrawn_chars == 4
    assert m.text_chars == len("Half") + len("Whole answer") + 1
    assert m.duration_s == pytest.approx(1.5)
    assert m.outcome == "complete"
    assert m.counts == {"thinking": 3, "sources": 2, "text": 3, "reset": 1, "end": 1}


def test_verification_time_falls_back_to_the_checking_span():
    events = answer(seconds=0.0)
    events[-1] = events[-1].model_copy(update={"t": 1.1})
    assert compute_metrics(events).verification_s == pytest.approx(1.1 - 0.7)


def test_an_answer_in_progress_has_no_outcome_yet():
    m = compute_metrics(answer()[:3])
    assert m.outcome == "in progress" and m.verification_s is None and m.first_text_s == pytest.approx(0.25)
    assert compute_metrics([]).first_text_s is None


def test_answers_split_at_end_and_error():
    log = EventLog()
    for e in answer():
        log.add(e)
    log.add(ThinkingEvent(text="Searching", t=0.0))
    log.add(ErrorEvent(kind="connection", message="refused", t=0.1))
    for e in answer():
        log.add(e)
    assert [len(a) for a in log.answers()] == [10, 2, 10]
    assert log.metrics(1).outcome == "error: connection"
    assert log.metrics().outcome == "complete"


def test_a_cancelled_answer_is_split_by_begin_answer_even_with_a_frozen_clock():
    log = EventLog()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    log.add(TextEvent(delta="Par", display="Par", t=0.0))  # cancelled here: no end event
    log.begin_answer()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    assert [len(a) for a in log.answers()] == [2, 1]


def test_a_cancelled_answer_is_split_when_the_clock_restarts():
    log = EventLog()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    log.add(TextEvent(delta="Par", display="Par", t=0.4))
    log.add(ThinkingEvent(text="Searching", t=0.0))
    assert [len(a) for a in log.answers()] == [2, 1]


def test_old_answers_are_pruned_past_the_bound():
    log = EventLog(max_answers=2)
    for i in range(3):
        for e in answer():
            log.add(e.model_copy(update={"t": e.t + i}) if isinstance(e, EndEvent) else e)
    assert len(log.answers()) == 2 and log.dropped_answers == 1
    assert len(log) == len(log.entries) == 20
    with pytest.raises(ValueError):
        EventLog(max_answers=0)


def test_old_answers_are_pruned_past_the_event_bound_but_never_the_current_one():
    log = EventLog(max_events=15)
    for e in answer():
        log.add(e)
    log.begin_answer()
    for i in range(30):  # one long answer, past the bound on its own
        log.add(TextEvent(delta="x", display="x", t=float(i)))
    assert len(log.answers()) == 1 and log.dropped_answers == 1
    assert len(log) == 30


def test_answers_returns_copies():
    log = EventLog()
    log.add(ThinkingEvent(text="Searching", t=0.0))
    log.answers()[0].clear()
    assert len(log) == 1
    log.clear()
    assert log.answers() == [] and log.entries == []


def _closing(t: float, error: bool):
    if error:
        return ErrorEvent(kind="server", message="boom", t=t)
    return EndEvent(text="", citations=[], audit_id=None, t=t)


_answer_shape = st.tuples(
    st.lists(st.sampled_from(["thinking", "sources", "text", "reset"]), max_size=12),
    st.booleans(),  # ends in an error rather than an end
    st.lists(st.floats(0, 5, allow_nan=False), min_size=13, max_size=13),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_answer_shape, max_size=6), st.booleans())
def test_answers_come_back_as_they_were_added(shapes, mark_boundaries):
    """Answers closed by end/error are split exactly, whatever their events and (any) timestamps."""
    expected = []
    for kinds, error, times in shapes:
        ts = sorted(times)  # t never goes backwards within an answer
        events = []
        for kind, t in zip(kinds, ts, strict=False):
            if kind == "thinking":
                events.append(ThinkingEvent(text="Searching", t=t))
            elif kind == "sources":
                events.append(SourcesEvent(sources=[], t=t))
            elif kind == "text":
                events.append(TextEvent(delta="x", display="x", held=1, t=t))
            else:
                events.append(
                    ResetEvent(reason="safety", withdrawn="x", withdrawn_display="x", note="n", t=t)
                )
        events.append(_closing(ts[-1], error))
        expected.append(events)
    log = EventLog()
    for events in expected:
        if mark_boundaries:
            log.begin_answer()
        for e in events:
            log.add(e)
    assert log.answers() == expected
    assert len(log) == sum(map(len, expected))


# --- concurrent answers ---------------------------------------------------------------------------


def test_interleaved_answers_stay_apart_by_key():
    # The second answer starts while the first still verifies; its clock happens to be ahead, so
    # time alone cannot tell them apart.
    first, second = answer(0.0, seconds=5.0), answer(1.0)
    checking = next(i for i, e in enumerate(first) if getattr(e, "phase", "") == "checking")
    log = EventLog()
    for e in first[: checking + 1]:
        log.add(e, answer=1)
    for e in second[:4]:
        log.add(e, answer=2)
    log.add(first[-1], answer=1)  # the first answer's verification ends mid-way through the second
    for e in second[4:]:
        log.add(e, answer=2)
    assert log.answers() == [first, second]
    assert log.metrics(0).outcome == "complete" and log.metrics(0).verification_s == 5.0
    assert log.metrics(1).events == len(second) and log.metrics(1).resets == 1
    assert len(log) == len(first) + len(second)


def test_without_keys_interleaving_would_mix_answers():
    # What the key is for: the same interleaving, unkeyed, cannot be split correctly.
    first, second = answer(0.0, seconds=5.0), answer(1.0)
    log = EventLog()
    for e in first[:-1] + second[:4] + [first[-1]] + second[4:]:
        log.add(e)
    assert log.answers() != [first, second]


def test_pruning_keeps_answers_still_open_and_forgets_their_keys():
    log = EventLog(max_answers=2)
    first = answer(0.0)
    log.add(first[0], answer="verifying")  # open: still writing or verifying
    for key in ("a", "b"):
        for e in answer(0.0):
            log.add(e, answer=key)
    # Three answers over a bound of two: the oldest finished one went, not the open one.
    assert log.dropped_answers == 1
    assert [a[0] for a in log.answers()] == [first[0], answer(0.0)[0]]
    log.add(first[1], answer="verifying")
    assert log.answers()[0] == first[:2]
    # A pruned key starts a new answer if it is ever used again.
    log.add(first[0], answer="a")
    assert len(log.answers()) == 2 and log.dropped_answers == 2


def test_a_closed_answer_is_pruned_before_an_open_one():
    log = EventLog(max_answers=2)
    log.add(answer()[0], answer="cancelled")
    log.close_answer("cancelled")
    log.add(answer()[0], answer="open")
    log.add(answer()[0], answer="new")
    assert log.dropped_answers == 1
    assert len(log.answers()) == 2 and log.answers()[0] == [answer()[0]]


def test_an_answer_closed_without_an_end_reads_as_cancelled():
    log = EventLog()
    log.add(answer()[0], answer="cut")
    assert log.metrics().outcome == "in progress"
    log.close_answer("cut")
    assert log.closed() == [True]
    assert log.metrics().outcome == "cancelled"
    assert compute_metrics(log.answers()[0], closed=True).outcome == "cancelled"
