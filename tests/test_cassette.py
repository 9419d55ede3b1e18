"""Cassettes: what is recorded plays back through the same path, at the recorded pace or faster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippo_tui.backends import CassetteError, open_backend
from hippo_tui.backends.cassette import Cassette
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent, ErrorEvent, Event, ResetEvent, TextEvent, ThinkingEvent
from hippo_tui.store import Store
from tests.support import scenarios as sc
from tests.support.asking import ask_once

CASSETTES = Path(__file__).resolve().parents[1] / "hippo_tui" / "data" / "cassettes"
AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"
QUESTION = "What is the blood pressure target for hypertension and how is a gout flare treated?"


async def run(settings: Settings, store: Store, question: str) -> list[Event]:
    engine = await Engine.create(settings, store=store)
    try:
        return await ask_once(engine, question)
    finally:
        await engine.close()


def story(events: list[Event]) -> list[tuple[str, str]]:
    """The parts of an event stream that must survive record → replay (not timings, not sources)."""
    out = []
    for e in events:
        if isinstance(e, TextEvent):
            out.append(("text", e.delta))
        elif isinstance(e, ResetEvent):
            out.append(("reset", e.withdrawn))
        elif isinstance(e, EndEvent):
            out.append(("end", e.text + "|" + ",".join(f"{c.id}:{c.grounding}" for c in e.citations)))
        elif isinstance(e, ErrorEvent):
            out.append(("error", e.kind))
    return out


async def test_offline_recording_replays_identically(hippo_home: Path, store: Store, tmp_path: Path):
    tape = tmp_path / "t.jsonl"
    recorded = await run(
        Settings(home=hippo_home, offline_tokens_per_second=0, retrieval_k=1, record=tape), store, QUESTION
    )
    replayed = await run(Settings(home=hippo_home, replay=tape, replay_speed=0), store, QUESTION)
    assert story(replayed) == story(recorded)
    assert any(k == "reset" for k, _ in story(recorded))
    cassette = Cassette.load(tape)
    assert cassette.question == QUESTION and cassette.meta["backend"] == "offline"
    assert [r.kind for r in cassette.recordings] == ["chat", "chat", "grounding"]
    assert cassette.recordings[0].chunks[-1][1] == "[DONE]"


async def test_replay_paces_at_recorded_speed_or_faster(hippo_home, store, tmp_path, scripted_server):
    tape = tmp_path / "t.jsonl"
    scripted_server.play(
        {"chat": [sc.stream(sc.text_chunks("one two three four five six seven"), delay=0.04)]}
    )
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home, record=tape)
    await run(settings, store, "q")
    streamed = {}
    for speed in (1.0, 0.0):
        events = await run(Settings(home=hippo_home, replay=tape, replay_speed=speed), store, "q")
        assert isinstance(events[-1], EndEvent) and events[-1].text == "one two three four five six seven"
        phases = {e.phase: e.t for e in events if isinstance(e, ThinkingEvent)}
        streamed[speed] = phases["checking"] - phases["writing"]
    # 9 chunks 40 ms apart, timed on the answer's own stamps (from "writing" to "checking", so neither
    # start-up nor verification counts): the recorded pace takes about 0.36 s, unlimited speed a fraction.
    assert streamed[1.0] >= 0.25 and streamed[0.0] < streamed[1.0] / 2


async def test_a_cut_stream_replays_as_a_cut(hippo_home, store, tmp_path, scripted_server):
    tape = tmp_path / "t.jsonl"
    scripted_server.play({"chat": [sc.stream(sc.text_chunks("Half an answer", finish=None), cut=True)]})
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home, record=tape)
    recorded = await run(settings, store, "q")
    replayed = await run(Settings(home=hippo_home, replay=tape, replay_speed=0), store, "q")
    assert story(recorded)[-1] == story(replayed)[-1] == ("error", "stream_cut")
    assert Cassette.load(tape).recordings[0].how == "error"


async def test_replay_of_another_conversation_says_so(hippo_home, store, tmp_path):
    tape = tmp_path / "t.jsonl"
    tape.write_text(json.dumps({"type": "meta", "version": 1}) + "\n")
    err = (await run(Settings(home=hippo_home, replay=tape, replay_speed=0), store, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "bad_response"
    assert "recorded for another question" in err.message


@pytest.mark.parametrize(
    ("content", "message"),
    [("not json\n", "line 1"), (json.dumps({"type": "meta", "version": 99}) + "\n", "version 1")],
)
def test_bad_cassettes_are_refused_with_the_reason(tmp_path, content, message):
    tape = tmp_path / "bad.jsonl"
    tape.write_text(content)
    with pytest.raises(CassetteError, match=message):
        open_backend(Settings(replay=tape))
    with pytest.raises(CassetteError, match="cannot read"):
        Cassette.load(tmp_path / "missing.jsonl")


# Each demo cassette and what it must show when replayed (at unlimited speed).
DEMOS = {
    "tool-call-reset": {"outcome": "complete", "reset": "tool_call", "shown": 2},
    "safety-trip": {"outcome": "withdrawn", "reset": "safety", "shown": 0},
    "missing-id": {"outcome": "complete", "missing": 1, "shown": 1},
    "retired-source": {"outcome": "complete", "retired": 1, "shown": 1},
    "ungrounded": {"outcome": "complete", "ungrounded": 1, "shown": 1},
    "grounding-timeout": {"outcome": "complete", "unchecked": 1, "shown": 1},
    "three-outcomes": {
        "outcome": "complete",
        "ungrounded": 2,
        "contradicted": 1,
        "not_established": 1,
        "shown": 1,
    },
}


def test_every_demo_cassette_is_shipped():
    assert sorted(p.stem for p in CASSETTES.glob("*.jsonl")) == sorted(DEMOS)


@pytest.mark.parametrize("name", sorted(DEMOS))
async def test_demo_cassettes_replay_their_path(name, hippo_home, store):
    want = DEMOS[name]
    tape = CASSETTES / f"{name}.jsonl"
    settings = Settings(home=hippo_home, replay=tape, replay_speed=0, grounding_timeout=0.3)
    events = await run(settings, store, Cassette.load(tape).question or "")
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == want["outcome"]
    resets = [e.reason for e in events if isinstance(e, ResetEvent)]
    assert resets == ([want["reset"]] if "reset" in want else [])
    assert len(end.citations) == want["shown"]
    for key in ("missing", "retired", "ungrounded", "unchecked", "contradicted", "not_established"):
        if key in want:
            assert getattr(end.verification, key) == want[key]
    if name == "safety-trip":
        assert resets and next(e for e in events if isinstance(e, ResetEvent)).rule == "mrn"
