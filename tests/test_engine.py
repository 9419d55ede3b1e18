"""The engine end to end: offline backend and a real SSE server on 127.0.0.1, the real guard and store."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.backends.chat import RetryPolicy
from hippo_tui.config import Settings
from hippo_tui.engine import MAX_TOOL_ROUNDS, AnswerEngine, Engine
from hippo_tui.engine.conversation import LocalConversation
from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    Event,
    ResetEvent,
    SourcesEvent,
    StartEvent,
    TextEvent,
    ThinkingEvent,
)
from hippo_tui.store import Store
from hippo_tui.verification.llm_judge import reply_schema
from tests.support import scenarios as sc
from tests.support.asking import ask_once

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug
OTITIS = "ce873155-276e-4bae-b327-dab9ecc47bce"
RETIRED = "5b0d2bf0-a79c-4ce5-b758-d85dcd04650b"  # atenolol first-line (superseded)
NOWHERE = "00000000-0000-4000-8000-000000000000"

AMLO_CLAIM = "Amlodipine is commonly started at 5 mg once daily."


async def collect(engine: Engine | LocalConversation, question: str) -> list[Event]:
    """One question on a conversation of its own, or on the conversation given."""
    if isinstance(engine, LocalConversation):
        return [e async for e in engine.ask(question)]
    return await ask_once(engine, question)


def kinds(events: list[Event]) -> list[str]:
    out: list[str] = []
    for e in events:
        k = e.type if not isinstance(e, ThinkingEvent) else f"thinking:{e.phase}"
        if not (out and out[-1] == k == "text"):
            out.append(k)
    return out


def shown(events: list[Event]) -> str:
    """What a front end shows after applying text and reset events."""
    text = ""
    for e in events:
        if isinstance(e, TextEvent):
            text += e.display
        elif isinstance(e, ResetEvent):
            assert text.endswith(e.withdrawn_display)
            text = text[: len(text) - len(e.withdrawn_display)]
    return text


@pytest.fixture
async def offline(hippo_home: Path, store: Store):
    engine = await Engine.create(Settings(home=hippo_home, offline_tokens_per_second=0), store=store)
    yield engine
    await engine.close()


@pytest.fixture
async def remote(hippo_home: Path, store: Store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="scripted", api_key="k", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    engine.retry = RetryPolicy(attempts=2, base=0.01)
    yield engine
    await engine.close()


async def test_offline_answer_event_order_and_audit(offline: Engine, store: Store):
    events = await collect(offline, "What dose of amlodipine?")
    assert kinds(events) == [
        "start",
        "thinking:searching",
        "sources",
        "thinking:writing",
        "text",
        "thinking:checking",
        "end",
    ]
    assert all(b.t >= a.t for a, b in itertools.pairwise(events))
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete"
    assert end.backend == "offline (extractive, no LLM)" and end.model == "offline"
    assert "5 mg once daily" in end.text and "[1]" in end.text and AMLO not in end.text
    assert [(c.id, c.number, c.grounding) for c in end.citations] == [(AMLO, 1, "grounded")]
    # The deltas carry the raw markers; the display carries pending numbers.
    assert AMLO in "".join(e.delta for e in events if isinstance(e, TextEvent))
    assert "[·1]" in shown(events)
    record = await store.get_answer(end.audit_id)
    assert record is not None and record.outcome == "complete" and record.final_text == end.text
    assert AMLO in record.raw_text
    assert [(c.source_id, c.check_one, c.check_two, c.shown) for c in record.citations] == [
        (AMLO, "confirmed", "grounded", True)
    ]
    assert {"ttft", "total", "verification"} <= set(record.timings)


async def test_offline_mid_answer_search_resets_the_turn(hippo_home: Path, store: Store):
    # One source in context: the second part of the question is not covered, so the model searches.
    settings = Settings(home=hippo_home, offline_tokens_per_second=0, retrieval_k=1)
    engine = await Engine.create(settings, store=store)
    events = await collect(
        engine, "What is the blood pressure target for hypertension and how is a gout flare treated?"
    )
    await engine.close()
    k = kinds(events)
    assert k[:7] == [
        "start",
        "thinking:searching",
        "sources",
        "thinking:writing",
        "text",
        "reset",
        "thinking:searching",
    ]
    reset = next(e for e in events if isinstance(e, ResetEvent))
    assert reset.reason == "tool_call" and reset.withdrawn and reset.rule is None
    sources = [e for e in events if isinstance(e, SourcesEvent)]
    first_ids = {s.id for s in sources[0].sources}
    assert all(s.id not in first_ids for s in sources[1].sources)  # added, never repeated
    # Either part may be the one retrieved first (both score alike); the search is for the other part.
    first = sources[0].sources[0].title.lower()
    other_part, other_topic = ("blood pressure", "hypertension") if "gout" in first else ("gout flare", "gout")
    assert other_part in sources[1].query
    assert other_topic in sources[1].sources[0].title.lower()
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete"
    assert shown(events).replace("·", "") == end.text  # what stays on screen is what ends up final
    record = await store.get_answer(end.audit_id)
    assert [r.reason for r in record.resets] == ["tool_call"]
    assert record.resets[0].withdrawn == reset.withdrawn


async def test_follow_up_carries_earlier_turns(remote: Engine, scripted_server):
    scripted_server.play({"chat": [sc.answer("First answer.")], "grounding": [sc.grounding({})]})
    conversation = await remote.open_conversation()
    await collect(conversation, "first question")
    await collect(conversation, "second question")
    msgs = scripted_server.requests()[-1]["body"]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[1]["content"] == "first question" and msgs[2]["content"] == "First answer."
    other = await remote.open_conversation()
    await collect(other, "third")
    assert [m["role"] for m in scripted_server.requests()[-1]["body"]["messages"]] == ["system", "user"]
    await collect(conversation, "fourth")  # the first conversation still has its own turns
    assert len(scripted_server.requests()[-1]["body"]["messages"]) == 6


async def test_system_prompt_canary_and_sources_reach_the_model(remote: Engine, scripted_server):
    scripted_server.play({"chat": [sc.answer("Nothing to cite.")]})
    conversation = await remote.open_conversation(system_prompt="CUSTOM PROMPT")
    await collect(conversation, "amlodipine dose")
    body = scripted_server.requests()[0]["body"]
    system = body["messages"][0]["content"]
    assert system.startswith("CUSTOM PROMPT") and "HIPPO-CANARY-" in system
    assert f'<source id="{AMLO}"' in system
    assert body["tools"][0]["function"]["name"] == "search_kb" and body["stream"] is True
    assert body["model"] == "scripted"


async def test_remote_tool_call_after_text_withdraws_and_continues(
    remote: Engine, scripted_server, store: Store
):
    scripted_server.play(
        {
            "chat": [
                sc.stream(sc.tool_chunks("otitis media antibiotics", before="Let me check that for you. ")),
                sc.answer(f"{AMLO_CLAIM} [{AMLO}]", delay=0),
            ],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    events = await collect(remote, "amlodipine dose")
    assert "reset" in kinds(events)
    reset = next(e for e in events if isinstance(e, ResetEvent))
    assert reset.reason == "tool_call"
    end = events[-1]
    assert isinstance(end, EndEvent) and end.text == f"{AMLO_CLAIM} [1]"
    second = scripted_server.requests()[1]["body"]["messages"]
    assistant, tool = second[-2], second[-1]
    assert assistant["tool_calls"][0]["function"] == {
        "name": "search_kb",
        "arguments": '{"query": "otitis media antibiotics"}',
    }
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_1" and OTITIS in tool["content"]


async def test_tool_call_arguments_not_json_get_an_error_reply(remote: Engine, scripted_server):
    scripted_server.play(
        {
            "chat": [sc.stream(sc.tool_chunks(raw_args='{"query": amlo')), sc.answer("Done.")],
            "grounding": [sc.grounding({})],
        }
    )
    events = await collect(remote, "q")
    assert isinstance(events[-1], EndEvent) and events[-1].outcome == "complete"
    assert "reset" not in kinds(events)  # no text before the call: nothing to withdraw
    tool = scripted_server.requests()[1]["body"]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error: the arguments were not valid JSON")


async def test_safety_trip_withdraws_everything_and_ends_withdrawn(
    remote: Engine, scripted_server, store: Store
):
    text = f"{AMLO_CLAIM} [{AMLO}] The patient's number is 123-45-6789 and more text follows here."
    scripted_server.play({"chat": [sc.answer(text)]})
    events = await collect(remote, "q")
    reset = next(e for e in events if isinstance(e, ResetEvent))
    assert reset.reason == "safety" and reset.rule == "us-ssn" and "us-ssn" in reset.note
    assert shown(events) == ""
    assert all("123-45" not in e.delta for e in events if isinstance(e, TextEvent))
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "withdrawn" and end.citations == [] and end.text == ""
    record = await store.get_answer(end.audit_id)
    assert record.outcome == "withdrawn" and "123-45-6789" in record.raw_text
    assert record.resets[0].rule == "us-ssn"


async def test_the_policy_file_is_read_once_and_every_answer_has_its_own_canary(
    hippo_home, store, scripted_server, tmp_path
):
    policy = tmp_path / "policy.toml"
    policy.write_text("[[rule]]\nname = 'ward'\npattern = 'Ward 7[A-Z]'\n")
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home, policy=policy)
    engine = await Engine.create(settings, store=store)
    policy.write_text("this is not TOML [[[")  # edited after start: the running engine keeps what it read
    scripted_server.play({"chat": [sc.answer("Seen on Ward 7B today."), sc.answer("Fine.")]})
    first = await collect(engine, "q")
    second = await collect(engine, "q")
    await engine.close()
    assert (
        first[-1].outcome == "withdrawn"
        and next(e for e in first if isinstance(e, ResetEvent)).rule == "ward"
    )
    assert second[-1].outcome == "complete"
    prompts = [r["body"]["messages"][0]["content"] for r in scripted_server.requests()]
    canaries = {m for p in prompts for m in re.findall(r"HIPPO-CANARY-\w+", p)}
    assert len(canaries) == 2  # a fresh canary per answer, each watched by that answer's guard


async def test_citations_missing_retired_ungrounded_are_kept_not_shown(
    remote: Engine, scripted_server, store: Store
):
    text = (
        f"{AMLO_CLAIM} [{AMLO}] Atenolol is first-line. [{RETIRED}] Made up. [{NOWHERE}] "
        f"Otitis needs surgery. [{OTITIS}]"
    )
    scripted_server.play(
        {"chat": [sc.answer(text)], "grounding": [sc.grounding({AMLO: True, OTITIS: False})]}
    )
    events = await collect(remote, "q")
    end = events[-1]
    assert isinstance(end, EndEvent)
    assert end.text == f"{AMLO_CLAIM} [1] Atenolol is first-line. Made up. Otitis needs surgery."
    assert [c.id for c in end.citations] == [AMLO]
    v = end.verification
    assert (v.attempted, v.confirmed, v.missing, v.retired, v.grounded, v.ungrounded) == (4, 2, 1, 1, 1, 1)
    record = await store.get_answer(end.audit_id)
    got = {c.source_id: (c.check_one, c.check_two, c.shown) for c in record.citations}
    assert got == {
        AMLO: ("confirmed", "grounded", True),
        RETIRED: ("retired", "unchecked", False),
        NOWHERE: ("missing", "unchecked", False),
        OTITIS: ("confirmed", "ungrounded", False),
    }
    # Check two is one call, over the confirmed sources only, with excerpts as delimited data.
    grounding_reqs = [r for r in scripted_server.requests() if r["body"].get("response_format")]
    assert len(grounding_reqs) == 1
    user = grounding_reqs[0]["body"]["messages"][1]["content"]
    assert AMLO in user and OTITIS in user and RETIRED not in user and NOWHERE not in user
    assert (
        user.startswith("<data>")
        and "not instructions" in grounding_reqs[0]["body"]["messages"][0]["content"]
    )


async def test_grounding_timeout_keeps_confirmed_citations_unchecked(hippo_home, store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home, grounding_timeout=0.3)
    engine = await Engine.create(settings, store=store)
    slow = 10.0  # the grounding reply comes long after the 0.3 s limit
    scripted_server.play(
        {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({}, wait=slow)]}
    )
    events = await collect(engine, "q")
    await engine.close()
    # On the answer's own clock: check two gave up after the limit, long before the reply came.
    checking = next(e for e in events if isinstance(e, ThinkingEvent) and e.phase == "checking")
    assert 0.3 - 0.01 <= events[-1].t - checking.t < slow  # 0.01: the stamps are rounded
    end = events[-1]
    assert isinstance(end, EndEvent) and end.text == f"{AMLO_CLAIM} [1]"
    assert [(c.id, c.grounding) for c in end.citations] == [(AMLO, "unchecked")]
    assert end.verification.unchecked == 1 and "timed out" in (end.verification.note or "")


@pytest.mark.parametrize(
    ("first", "expect_calls"),
    [
        (sc.error(400, "response_format json_schema is not supported"), 2),  # llama.cpp-style refusal
        (sc.error(500, "grammar error"), 2),
    ],
)
async def test_grounding_falls_back_to_json_object(remote, scripted_server, first, expect_calls):
    ok = sc.grounding({AMLO: True})
    scripted_server.play({"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [first, ok]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.citations[0].grounding == "grounded"
    reqs = [r["body"] for r in scripted_server.requests() if r["body"].get("response_format")]
    assert len(reqs) == expect_calls
    assert reqs[0]["response_format"]["type"] == "json_schema"
    assert reqs[1]["response_format"] == {"type": "json_object", "schema": reply_schema([AMLO])}
    assert AMLO in reqs[1]["messages"][1]["content"].split("</data>")[1]  # and spelled out in the prompt


@pytest.mark.parametrize(
    ("reply", "expected", "note"),
    [
        ({"body": "this is not json"}, "unchecked", True),
        ({"json": {"id": "x", "object": "chat.completion", "choices": []}}, "unchecked", True),
        (sc.grounding([(NOWHERE, False), (AMLO.upper(), True)]), "grounded", False),  # unknown id ignored
        (sc.grounding([(AMLO, True), (AMLO, False)]), "unchecked", True),  # contradictory duplicates
        (sc.grounding([(AMLO, False), (AMLO, False)]), None, False),  # consistent duplicates count once
        (sc.grounding({}), "unchecked", True),  # no verdict for it, in any of the ways it was asked
    ],
)
async def test_grounding_replies_that_are_odd(remote, scripted_server, reply, expected, note):
    scripted_server.play({"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [reply]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete"
    assert [c.grounding for c in end.citations] == ([expected] if expected else [])
    assert (end.verification.note is not None) == note


async def test_cancel_records_the_answer_as_cancelled(hippo_home, store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    scripted_server.play({"chat": [sc.stream(sc.text_chunks("word " * 400), delay=0.01)]})
    seen: list[Event] = []
    streaming = asyncio.Event()

    async def consume() -> None:
        async for e in (await engine.open_conversation()).ask("q"):
            seen.append(e)
            if sum(isinstance(x, TextEvent) for x in seen) >= 3:
                streaming.set()

    task = asyncio.create_task(consume())
    await streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await engine.close()
    answers = await store.list_answers()
    assert answers[0].outcome == "cancelled" and answers[0].raw_text.startswith("word word")


@pytest.mark.parametrize(
    ("chunks", "kind"),
    [
        (sc.text_chunks("Half an answer", finish="content_filter"), "content_filter"),
        (sc.text_chunks("Half an answer that never ends", finish=None), "stream_cut"),
        ([*sc.text_chunks("Half an answer", finish=None), "{not json"], "bad_response"),
    ],
)
async def test_stream_problems_end_with_an_error_and_a_record(remote, scripted_server, store, chunks, kind):
    scripted_server.play({"chat": [sc.stream(chunks, done=False)]})
    events = await collect(remote, "q")
    err = events[-1]
    assert isinstance(err, ErrorEvent) and err.kind == kind and err.action
    assert not any(isinstance(e, EndEvent) for e in events)
    record = await store.get_answer(err.audit_id)
    assert record.outcome == "error" and record.raw_text.startswith("Half an answer")
    assert err.partial_text.startswith("Half")


async def test_an_answer_at_the_output_limit_is_kept_verified_and_marked_cut(remote, scripted_server, store):
    # The guard still holds the end of the text when the stream stops (a marker could be starting): the cut
    # answer gets it too, and its citation is checked like any other.
    text = f"{AMLO_CLAIM} [{AMLO}] It is taken once a day and the dose is 5"
    scripted_server.play(
        {
            "chat": [sc.stream(sc.text_chunks(text, size=7, finish="length"))],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    events = await collect(remote, "q")
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete" and end.cut
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert end.text == f"{AMLO_CLAIM} [1] It is taken once a day and the dose is 5"
    assert [(c.id, c.grounding) for c in end.citations] == [(AMLO, "grounded")]
    assert shown(events).endswith("the dose is 5")  # the held tail reached the text events too
    record = await store.get_answer(end.audit_id)
    assert record.outcome == "complete" and record.final_text == end.text
    assert record.error is not None and "output limit" in record.error
    assert [(c.source_id, c.shown) for c in record.citations] == [(AMLO, True)]


async def test_an_answer_stopped_at_the_limit_before_any_text_is_an_error(remote, scripted_server, store):
    scripted_server.play({"chat": [sc.stream(sc.text_chunks("", finish="length"))]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "length" and "max_tokens" in err.action
    assert (await store.get_answer(err.audit_id)).outcome == "error"


async def test_a_whole_answer_is_not_marked_cut(remote, scripted_server):
    scripted_server.play({"chat": [sc.answer("A whole answer.")]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete" and not end.cut


async def test_connection_cut_mid_answer_is_reported(remote, scripted_server, store):
    scripted_server.play({"chat": [sc.stream(sc.text_chunks("Half an answer " * 5, finish=None), cut=True)]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "stream_cut"
    assert (await store.get_answer(err.audit_id)).raw_text.startswith("Half an answer")


async def test_empty_choices_frames_are_skipped(remote, scripted_server):
    usage = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": []}
    chunks = sc.text_chunks("All good.")
    scripted_server.play({"chat": [sc.stream([usage, *chunks[:2], usage, *chunks[2:], usage])]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.text == "All good."


@pytest.mark.parametrize(
    ("response", "kind", "action_has"),
    [
        (sc.error(401, "bad key"), "auth", "HIPPO_API_KEY"),
        (sc.error(403, "forbidden"), "auth", "HIPPO_API_KEY"),
        (sc.error(404, "model 'scripted' does not exist"), "not_found", "--model"),
        (sc.error(429, "slow down", headers={"Retry-After": "0"}), "rate_limit", "wait"),
        (sc.error(503, "overloaded"), "server", "try again"),
    ],
)
async def test_http_errors_map_to_actions(remote, scripted_server, store, response, kind, action_has):
    scripted_server.play({"chat": [response]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == kind and action_has in err.action
    if kind == "not_found":
        assert "'scripted'" in err.message
    record = await store.get_answer(err.audit_id)
    assert record.outcome == "error" and kind in (record.error or "")
    calls = len(scripted_server.requests())
    assert calls == (3 if kind in ("rate_limit", "server") else 1)  # retried only what can get better


async def test_a_404_that_is_not_about_the_model_points_at_the_base_url(remote, scripted_server):
    # `--base-url http://localhost:11434` (no /v1): Ollama answers "404 page not found", vLLM {"detail": …}.
    scripted_server.play({"chat": [sc.error(404, "404 page not found")]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "not_found"
    assert "--base-url" in err.action and "/v1" in err.action and "'scripted'" not in err.message


@pytest.mark.parametrize(
    "first", [sc.error(429, "later", headers={"Retry-After": "0.05"}), sc.error(502, "hiccup")]
)
async def test_retry_before_the_first_token_then_succeed(remote, scripted_server, first):
    scripted_server.play({"chat": [first, sc.answer("Fine now.")], "grounding": [sc.grounding({})]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.text == "Fine now."
    assert len(scripted_server.requests()) == 2


async def test_connection_refused(hippo_home, store):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    engine = await Engine.create(Settings(base_url=url, model="m", home=hippo_home), store=store)
    engine.retry = RetryPolicy(attempts=1, base=0.01)
    err = (await collect(engine, "q"))[-1]
    await engine.close()
    assert isinstance(err, ErrorEvent) and err.kind == "connection"
    assert url in err.message and "--base-url" in err.action and url in err.action


async def test_reconfigure_switches_backend(offline: Engine, scripted_server):
    scripted_server.play({"chat": [sc.answer("From the server.")], "grounding": [sc.grounding({})]})
    await offline.reconfigure(base_url=scripted_server.url, model="other", api_key="k")
    assert offline.backend_label == "openai-compatible" and offline.model == "other"
    end = (await collect(offline, "q"))[-1]
    assert isinstance(end, EndEvent) and end.text == "From the server." and end.model == "other"
    await offline.reconfigure(base_url=None, model=None, api_key=None, backend="offline")
    assert offline.model == "offline"


async def test_store_failure_mid_answer_is_an_error_event(offline: Engine, store: Store, monkeypatch):
    from hippo_tui.store import StoreError

    async def broken(*a: Any, **k: Any):
        raise StoreError("disk on fire")

    monkeypatch.setattr(store, "search", broken)
    events = await collect(offline, "q")
    err = events[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "store" and "disk on fire" in err.message
    assert (await store.get_answer(err.audit_id)).outcome == "error"


async def test_a_servers_error_text_is_made_inert(remote, scripted_server):
    scripted_server.play({"chat": [sc.error(400, "bad \x1b]52;c;ZXZpbA==\x07 request \x1b[2J" + "x" * 2000)]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and "\x1b" not in err.message and "bad" in err.message
    assert len(err.message) <= 400


async def test_reconfigure_while_recording_starts_a_sibling_cassette(hippo_home, store, tmp_path):
    tape = tmp_path / "session.jsonl"
    settings = Settings(home=hippo_home, offline_tokens_per_second=0, record=tape)
    engine = await Engine.create(settings, store=store)
    await collect(engine, "What dose of amlodipine?")
    await engine.reconfigure(backend="offline")
    await collect(engine, "What dose of amlodipine?")
    await engine.reconfigure(backend="offline")
    await engine.close()
    assert '"question"' in tape.read_text() and '"question"' in (tmp_path / "session.1.jsonl").read_text()
    assert (tmp_path / "session.2.jsonl").exists() and not (tmp_path / "session.1.2.jsonl").exists()


async def test_closing_the_stream_early_records_a_cancelled_answer(offline: Engine, store: Store):
    stream = (await offline.open_conversation()).ask("What dose of amlodipine?")
    async for event in stream:
        if isinstance(event, TextEvent):
            break
    await stream.aclose()  # what a consumer that stops reading does (or the loop does at GC)
    answers = await store.list_answers()
    assert answers[0].outcome == "cancelled" and answers[0].raw_text


@pytest.mark.parametrize("stage", ["stalled stream", "grounding"])
async def test_cancel_while_waiting_on_the_network(hippo_home, store, scripted_server, stage):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    if stage == "stalled stream":  # the model sends a little, then nothing (keep-alives only)
        scenario = {"chat": [sc.stream(sc.text_chunks("Some text that stalls", finish=None), hang=True)]}
        reached = lambda e: isinstance(e, TextEvent)  # noqa: E731
    else:
        scenario = {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({}, wait=5)]}
        reached = lambda e: isinstance(e, ThinkingEvent) and e.phase == "checking"  # noqa: E731
    scripted_server.play(scenario)
    there = asyncio.Event()

    async def consume() -> None:
        async for e in (await engine.open_conversation()).ask("q"):
            if reached(e):
                there.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(there.wait(), 5)
    await asyncio.sleep(0.1)  # now blocked on the network
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    await engine.close()
    answers = await store.list_answers()
    assert answers[0].outcome == "cancelled" and answers[0].raw_text.startswith(("Some text", "Amlodipine"))


async def test_history_is_bounded(hippo_home, store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home, history_turns=1)
    engine = await Engine.create(settings, store=store)
    scripted_server.play({"chat": [sc.answer("An answer.")]})
    conversation = await engine.open_conversation()
    for q in ("one", "two", "three"):
        await collect(conversation, q)
    await engine.close()
    msgs = scripted_server.requests()[-1]["body"]["messages"]
    assert [(m["role"], m["content"]) for m in msgs[1:]] == [
        ("user", "two"),
        ("assistant", "An answer."),
        ("user", "three"),
    ]


# -- an answer nobody is shown keeps its citation attempts ------------------------------------------


def count_lookups(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = store.get_many

    async def get_many(ids):
        calls.append(list(ids))
        return await real(ids)

    monkeypatch.setattr(store, "get_many", get_many)
    return calls


def unshown(record: Any, reason: str) -> dict[str, tuple[str, str]]:
    """Each attempt: check one done, check two unchecked for ``reason``, not shown. Id -> (check one, claim)."""
    for a in record.citations:
        assert a.check_two == "unchecked" and not a.shown and a.number is None and a.reason.endswith(reason)
    return {a.source_id: (a.check_one, a.claims[0]) for a in record.citations}


async def test_a_withdrawn_answer_records_its_citations_checked_once(
    remote: Engine, scripted_server, store: Store, monkeypatch
):
    lookups = count_lookups(store, monkeypatch)
    text = (
        f"{AMLO_CLAIM} [{AMLO}] Atenolol is first-line. [{RETIRED}] Made up. [{NOWHERE}] "
        "The patient's number is 123-45-6789 and more text follows here."
    )
    scripted_server.play({"chat": [sc.answer(text)]})
    end = (await collect(remote, "q"))[-1]
    assert isinstance(end, EndEvent) and end.outcome == "withdrawn"
    record = await store.get_answer(end.audit_id)
    reason = "answer withdrawn (safety rule us-ssn)"
    assert unshown(record, reason) == {
        AMLO: ("confirmed", AMLO_CLAIM),
        RETIRED: ("retired", "Atenolol is first-line."),
        NOWHERE: ("missing", "Made up."),
    }
    assert next(a for a in record.citations if a.source_id == AMLO).reason == reason
    assert lookups == [[AMLO, RETIRED, NOWHERE]]  # check one: one query; no grounding call for it
    assert [bool(r["body"].get("response_format")) for r in scripted_server.requests()] == [False]


async def test_a_failed_answer_records_its_citations(remote: Engine, scripted_server, store: Store):
    chunks = sc.text_chunks(f"{AMLO_CLAIM} [{AMLO}] And then the stream", finish=None)
    scripted_server.play({"chat": [sc.stream(chunks, done=False)]})
    err = (await collect(remote, "q"))[-1]
    assert isinstance(err, ErrorEvent) and err.kind == "stream_cut"
    record = await store.get_answer(err.audit_id)
    assert record.outcome == "error"
    assert unshown(record, "answer failed") == {AMLO: ("confirmed", AMLO_CLAIM)}


async def test_a_cancelled_answer_records_its_citations(hippo_home, store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    text = f"{AMLO_CLAIM} [{AMLO}] " + "word " * 400
    scripted_server.play({"chat": [sc.stream(sc.text_chunks(text, size=8), delay=0.005)]})
    streaming = asyncio.Event()

    async def consume() -> None:
        async for e in (await engine.open_conversation()).ask("q"):
            if isinstance(e, TextEvent) and "word" in e.delta:
                streaming.set()

    task = asyncio.create_task(consume())
    await streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await engine.close()
    record = (await store.list_answers())[0]
    assert record.outcome == "cancelled"
    full = await store.get_answer(record.id)
    [(check, claim)] = unshown(full, "answer cancelled").values()
    assert full.citations[0].source_id == AMLO and check == "confirmed" and claim.startswith(AMLO_CLAIM)


async def test_a_complete_answer_is_not_marked_unshown(offline: Engine, store: Store):
    end = (await collect(offline, "What dose of amlodipine?"))[-1]
    record = await store.get_answer(end.audit_id)
    assert record.citations and all(a.shown and a.check_two == "grounded" for a in record.citations)


async def test_the_engine_joins_the_text_once_per_turn_not_per_delta(
    remote: Engine, scripted_server, store: Store, monkeypatch
):
    """Reading the whole text after every delta is quadratic on a long answer: count the joins."""
    from hippo_tui.guard import StreamGuard

    reads = {"raw": 0, "released": 0}
    for name in reads:
        real = getattr(StreamGuard, name)

        def counted(self, real=real, name=name):
            reads[name] += 1
            return real.fget(self)

        monkeypatch.setattr(StreamGuard, name, property(counted))
    text = f"{AMLO_CLAIM} [{AMLO}] " * 200
    scripted_server.play(
        {"chat": [sc.stream(sc.text_chunks(text, size=5))], "grounding": [sc.grounding({AMLO: True})]}
    )
    events = await collect(remote, "q")
    deltas = sum(isinstance(e, TextEvent) for e in events)
    assert deltas > 1000 and isinstance(events[-1], EndEvent) and events[-1].outcome == "complete"
    assert reads["raw"] <= 2 and reads["released"] <= 2, reads


@pytest.mark.parametrize("before", [f"{AMLO_CLAIM} [{AMLO}] ", ""])
async def test_a_model_that_keeps_calling_tools_is_not_asked_forever(remote: Engine, scripted_server, before):
    # The server repeats its last response: a model that calls search_kb every turn, even when not offered it.
    scripted_server.play(
        {
            "chat": [sc.stream(sc.tool_chunks("amlodipine", before=before))],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    events = await asyncio.wait_for(collect(remote, "amlodipine dose"), timeout=20)
    chat = [r for r in scripted_server.requests() if "response_format" not in r["body"]]
    assert len(chat) == MAX_TOOL_ROUNDS + 1  # the last turn offers no tools, and its calls are not run
    assert "tools" not in chat[-1]["body"]
    end = events[-1]
    if before:  # the text of the last turn is the answer
        assert isinstance(end, EndEvent) and end.text.strip() == f"{AMLO_CLAIM} [1]"
    else:  # nothing written at all: an error that says why, not an empty "answer"
        assert isinstance(end, ErrorEvent) and end.kind == "bad_response" and "search_kb" in end.message


@pytest.mark.parametrize("said", ["", "  \n "])
async def test_an_answer_with_no_text_is_an_error_not_an_empty_success(
    remote: Engine, scripted_server, store, said
):
    scripted_server.play({"chat": [sc.stream(sc.text_chunks(said))]})
    err = (await collect(remote, "amlodipine dose"))[-1]
    assert (
        isinstance(err, ErrorEvent)
        and err.kind == "bad_response"
        and "without writing anything" in err.message
    )
    assert (await store.get_answer(err.audit_id)).outcome == "error"


@pytest.mark.parametrize("stage", ["streaming", "stalled stream", "grounding"])
async def test_cancel_through_the_engine_ends_with_a_cancelled_event_and_its_audit_id(
    hippo_home, store, scripted_server, stage
):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    if stage == "streaming":
        scenario = {
            "chat": [sc.stream(sc.text_chunks(f"{AMLO_CLAIM} [{AMLO}] " + "word " * 400), delay=0.01)]
        }
        reached = lambda e: isinstance(e, TextEvent) and AMLO in e.delta  # noqa: E731
    elif stage == "stalled stream":
        scenario = {"chat": [sc.stream(sc.text_chunks("Some text that stalls", finish=None), hang=True)]}
        reached = lambda e: isinstance(e, TextEvent)  # noqa: E731
    else:
        scenario = {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({}, wait=5)]}
        reached = lambda e: isinstance(e, ThinkingEvent) and e.phase == "checking"  # noqa: E731
    scripted_server.play(scenario)
    seen: list[Event] = []
    conversation = await engine.open_conversation()
    async for e in conversation.ask("q"):
        seen.append(e)
        if reached(e):
            await conversation.cancel()
    await engine.close()
    start, end = seen[0], seen[-1]
    assert isinstance(start, StartEvent) and isinstance(end, EndEvent)
    assert end.outcome == "cancelled" and end.audit_id == start.audit_id and not end.citations
    # What was on screen stays, every marker removed: none of them was checked.
    assert end.text == shown(seen).replace(" [·1]", "") and AMLO not in end.text and "[·" not in end.text
    record = await store.get_answer(start.audit_id)
    assert record is not None and record.outcome == "cancelled" and record.final_text == end.text
    if stage != "stalled stream":
        assert [c.source_id for c in record.citations] == [AMLO]  # the attempt is kept, not shown


async def test_cancel_with_no_answer_running_does_nothing(offline: Engine):
    conversation = await offline.open_conversation()
    await conversation.cancel()
    events = await collect(conversation, "What dose of amlodipine?")
    assert isinstance(events[-1], EndEvent) and events[-1].outcome == "complete"


async def test_text_events_carry_the_pending_numbers_of_the_turn(remote: Engine, scripted_server):
    scripted_server.play(
        {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}] Otitis needs no antibiotic. [{OTITIS}] Again. [{AMLO}]")]}
    )
    events = await collect(remote, "q")
    texts = [e for e in events if isinstance(e, TextEvent)]
    assert texts[-1].numbers == {AMLO: 1, OTITIS: 2}
    assert "[·1]" in shown(events) and "[·2]" in shown(events)
    first_with_amlo = next(e for e in texts if e.numbers)
    assert first_with_amlo.numbers == {AMLO: 1}


async def test_engine_satisfies_the_protocol(offline: Engine):
    assert isinstance(offline, AnswerEngine)
    info = await offline.info()
    assert info.kb_size > 0 and info.backend.startswith("offline") and info.kb_name


async def test_cancel_while_the_record_is_being_written_still_finishes_it(
    offline: Engine, store: Store, monkeypatch
):
    written, gate = asyncio.Event(), asyncio.Event()
    begin = store.begin_answer

    async def slow_begin(**kw: Any) -> int:
        answer_id = await begin(**kw)
        written.set()
        await gate.wait()  # the row exists; the call has not returned yet
        return answer_id

    monkeypatch.setattr(store, "begin_answer", slow_begin)
    events: list[Event] = []

    conversation = await offline.open_conversation()

    async def consume() -> None:
        events.extend(await collect(conversation, "What dose of amlodipine?"))

    task = asyncio.create_task(consume())
    await written.wait()
    await conversation.cancel()
    gate.set()
    await asyncio.wait_for(task, 10)
    (record,) = await store.list_answers()
    assert record.outcome == "cancelled"  # never left "in flight"
    assert isinstance(events[-1], EndEvent) and events[-1].outcome == "cancelled"


def test_an_answer_does_not_reach_back_into_the_engine():
    """Answer takes explicit inputs: no import of the engine or the conversation that runs it."""
    import ast

    import hippo_tui.engine.answer as answer_module

    tree = ast.parse(Path(answer_module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"hippo_tui.engine.local", "hippo_tui.engine.conversation"}


async def test_two_conversations_on_one_engine_answer_at_once_each_with_its_own_id(offline: Engine, store):
    one, two = await offline.open_conversation(), await offline.open_conversation()
    first, second = await asyncio.gather(
        collect(one, "What dose of amlodipine?"), collect(two, "How is a gout flare treated?")
    )
    assert one.id != two.id
    assert isinstance(first[0], StartEvent) and first[0].conversation_id == one.id
    assert isinstance(second[0], StartEvent) and second[0].conversation_id == two.id
    assert first[-1].outcome == second[-1].outcome == "complete"


async def test_a_second_question_while_one_is_written_is_refused(offline: Engine):
    from hippo_tui.engine.conversation import ConversationBusy

    conversation = await offline.open_conversation()
    stream = conversation.ask("What dose of amlodipine?")
    await anext(stream)
    with pytest.raises(ConversationBusy):
        await anext(conversation.ask("again?"))
    await stream.aclose()


async def test_a_bounded_engine_starts_every_answer_at_once_and_runs_them_in_turn(hippo_home: Path, store):
    engine = await Engine.create(Settings(home=hippo_home, offline_tokens_per_second=0), store=store, max_answers=1)
    seen: list[tuple[str, str]] = []

    async def consume(name: str, question: str) -> None:
        conversation = await engine.open_conversation()
        async for e in conversation.ask(question):
            seen.append((name, e.type))

    try:
        await asyncio.gather(consume("one", "What dose of amlodipine?"), consume("two", "How is a gout flare treated?"))
    finally:
        await engine.close()
    assert seen.index(("two", "start")) < seen.index(("one", "end"))  # its record exists at once
    assert seen.index(("two", "thinking")) > seen.index(("one", "end"))  # its work waits for the slot
    assert seen[-1] == ("two", "end")


async def test_every_answer_records_which_front_end_asked(hippo_home: Path, store):
    engine = await Engine.create(Settings(home=hippo_home, offline_tokens_per_second=0), store=store, client="ask")
    try:
        events = await ask_once(engine, "What dose of amlodipine?")
        checked = await engine.verify(events[-1].text)
    finally:
        await engine.close()
    assert (await store.get_answer(events[0].audit_id)).client == "ask"
    assert (await store.get_answer(checked.audit_id)).client == "ask"
