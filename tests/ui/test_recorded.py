"""The recorded demos (real engine, offline backend and cassettes) and the screenshot script built on them."""

from __future__ import annotations

from hippo_tui.events import EndEvent, ResetEvent
from tests.support.recorded import counter_clock
from tools.screenshots import SHOTS, capture


def _end(events) -> EndEvent:
    end = events[-1]
    assert isinstance(end, EndEvent)
    return end


def test_counter_clock_is_fixed_and_increasing():
    clock = counter_clock(0.5)
    assert [clock(), clock(), clock()] == [0.0, 0.5, 1.0]


def test_each_demo_shows_what_it_is_named_after(recorded):
    _home, rec = recorded
    verified = _end(rec["verified"].events)
    assert verified.outcome == "complete" and verified.citations and verified.audit_id == 1
    resets = [e for e in rec["reset"].events if isinstance(e, ResetEvent)]
    assert [r.reason for r in resets] == ["tool_call"] and _end(rec["reset"].events).outcome == "complete"
    assert _end(rec["safety"].events).outcome == "withdrawn"
    timeout = _end(rec["timeout"].events)
    assert "timed out" in (timeout.verification.note or "") and timeout.citations
    # A counter clock: the same ``t`` on every run.
    assert [e.t for e in rec["verified"].events[:3]] == [0.05, 0.1, 0.2]


def test_a_screenshot_shows_the_real_store_and_audit_record(recorded):
    home, rec = recorded
    shot = next(s for s in SHOTS if s.name == "audit-80x24")
    svg = capture(shot, home, rec)
    assert "Audit:&#160;answer&#160;1" in svg or "Audit: answer 1" in svg
    assert "confirmed" in svg
