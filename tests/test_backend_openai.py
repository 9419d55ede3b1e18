"""The OpenAI-compatible turn: tool-call assembly, retries before the first token, error mapping."""

from __future__ import annotations

import asyncio

import httpx
import openai
import pytest

from hippo_tui.backends import open_backend, sse
from hippo_tui.backends.chat import RetryPolicy, TextDelta, TurnEnd, stream_turn
from hippo_tui.backends.errors import ModelError, classify, is_retryable
from hippo_tui.config import Settings
from tests.support import scenarios as sc

MSGS = [{"role": "user", "content": "q"}]
FAST = RetryPolicy(attempts=2, base=0.01)


def client_for(url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0)


async def turn(url: str, retry: RetryPolicy = FAST) -> list[TextDelta | TurnEnd]:
    c = client_for(url)
    try:
        return [
            i async for i in stream_turn(c, model="m", messages=MSGS, tools=None, base_url=url, retry=retry)
        ]
    finally:
        await c.close()


async def test_parallel_tool_calls_are_assembled_by_index(scripted_server):
    m = sc.MODEL
    frag = sse.tool_call_fragment
    chunks = [
        sse.chunk(m, role="assistant", content="Looking. "),
        sse.chunk(m, tool_calls=[frag(0, id="a", name="search_kb", arguments='{"qu')]),
        sse.chunk(m, tool_calls=[frag(1, id="b", name="search_kb", arguments='{"query"')]),
        sse.chunk(m, tool_calls=[frag(0, arguments='ery": "gout"}')]),
        # Some servers repeat the id on later fragments: it must not be appended or replace the first.
        sse.chunk(m, tool_calls=[{"index": 1, "id": "b", "function": {"arguments": ': "lice"}'}}]),
        sse.chunk(m, finish_reason="tool_calls"),
    ]
    scripted_server.play({"chat": [sc.stream(chunks)]})
    items = await turn(scripted_server.url)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "Looking. "
    end = items[-1]
    assert isinstance(end, TurnEnd) and end.finish_reason == "tool_calls" and end.ttft is not None
    assert [(c.id, c.name, c.arguments) for c in end.tool_calls] == [
        ("a", "search_kb", '{"query": "gout"}'),
        ("b", "search_kb", '{"query": "lice"}'),
    ]


async def test_keepalive_comments_and_usage_frames_are_ignored(scripted_server):
    usage = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [],
        "usage": {},
    }
    scripted_server.play({"chat": [sc.stream([usage, *sc.text_chunks("Hi there."), usage])]})
    items = await turn(scripted_server.url)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "Hi there."
    assert items[-1] == TurnEnd("stop", [], items[-1].ttft)


async def test_retry_gives_up_after_the_policy(scripted_server):
    scripted_server.play({"chat": [sc.error(500, "down")]})
    with pytest.raises(ModelError) as e:
        await turn(scripted_server.url, RetryPolicy(attempts=2, base=0.01))
    assert e.value.kind == "server" and "down" in e.value.message
    assert len(scripted_server.requests()) == 3


async def test_a_long_retry_after_is_reported_not_waited(scripted_server):
    delays: list[float | None] = []

    class Watched(RetryPolicy):  # the default policy, with its decisions written down
        def delay(self, attempt: int, e: BaseException) -> float | None:
            delays.append(super().delay(attempt, e))
            return delays[-1]

    scripted_server.play({"chat": [sc.error(429, "quota", headers={"Retry-After": "3600"})]})
    with pytest.raises(ModelError) as e:
        await turn(scripted_server.url, Watched(attempts=2, base=0.01))
    assert delays == [None]  # no wait at all: the error goes straight to the user
    assert e.value.kind == "rate_limit" and e.value.retry_after == 3600
    assert len(scripted_server.requests()) == 1


async def test_retry_wait_is_cancellable(scripted_server):
    waiting = asyncio.Event()

    class Slow(RetryPolicy):
        def delay(self, attempt: int, e: BaseException) -> float | None:
            waiting.set()
            return 30.0

    scripted_server.play({"chat": [sc.error(503, "busy")]})
    task = asyncio.create_task(turn(scripted_server.url, Slow()))
    await waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


async def test_nothing_is_retried_after_the_first_chunk(scripted_server):
    scripted_server.play({"chat": [sc.stream(sc.text_chunks("Half", finish=None), cut=True)]})
    got: list[str] = []
    with pytest.raises(ModelError) as e:
        c = client_for(scripted_server.url)
        async for i in stream_turn(c, model="m", messages=MSGS, tools=None, base_url="u", retry=FAST):
            if isinstance(i, TextDelta):
                got.append(i.text)
    assert e.value.kind == "stream_cut" and got == ["Half"]
    assert len(scripted_server.requests()) == 1


async def test_dns_failure_is_named_and_not_retried():
    calls = 0

    def fail(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ConnectError("[Errno -2] Name or service not known")

    c = openai.AsyncOpenAI(
        base_url="http://no-such-host.example/v1",
        api_key="k",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(fail)),
    )
    with pytest.raises(ModelError) as e:
        async for _ in stream_turn(
            c, model="m", messages=MSGS, tools=None, base_url=str(c.base_url), retry=FAST
        ):
            pass
    assert e.value.kind == "connection" and "no-such-host.example" in e.value.message
    assert "--base-url" in e.value.action and calls == 1


def test_classify_timeouts_and_unknown_errors():
    req = httpx.Request("POST", "http://h/v1/chat/completions")
    timeout = classify(openai.APITimeoutError(request=req), base_url="http://h/v1", model="m")
    assert timeout.kind == "connection" and "in time" in timeout.message
    assert classify(RuntimeError("x"), base_url="u", model="m").kind == "internal"
    assert is_retryable(openai.APIConnectionError(request=req))
    assert is_retryable(openai.APITimeoutError(request=req))
    assert not is_retryable(ValueError("x"))


async def test_backends_are_built_from_settings(tmp_path):
    offline = open_backend(Settings())
    assert (offline.name, offline.label, offline.model) == (
        "offline",
        "offline (extractive, no LLM)",
        "offline",
    )
    remote = open_backend(Settings(base_url="http://127.0.0.1:1/v1", model="llama3"))
    assert (remote.name, remote.label, remote.model) == ("openai", "openai-compatible", "llama3")
    assert remote.client.max_retries == 0 and str(remote.client.base_url).startswith("http://127.0.0.1:1/v1")
    rec = open_backend(Settings(record=tmp_path / "r.jsonl"))
    assert rec.recorder is not None and (tmp_path / "r.jsonl").read_text().startswith('{"type": "meta"')
    for b in (offline, remote, rec):
        await b.aclose()
