"""The offline server called in the process reads exactly as the same server over an httpx transport."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from hippo_tui.backends import extractive
from hippo_tui.backends.chat import RetryPolicy, stream_turn
from hippo_tui.backends.errors import ModelError
from hippo_tui.backends.local_client import LocalClient, _text_lines
from hippo_tui.backends.offline import OfflineServer
from hippo_tui.backends.offline_transport import OfflineTransport
from hippo_tui.prompts import system_message
from hippo_tui.store import Store
from hippo_tui.verification.llm_judge import GroundingRun, ask_judge

URL = "http://hippo.invalid/v1"


def in_process() -> LocalClient:
    return LocalClient(base_url=URL, api_key="k", server=OfflineServer(tokens_per_second=0))


def over_http() -> LocalClient:
    http = httpx.AsyncClient(transport=OfflineTransport(tokens_per_second=0))
    return LocalClient(base_url=URL, api_key="k", http=http)


async def turn(client: LocalClient, messages: list[dict[str, Any]]) -> Any:
    tools = [{"type": "function", "function": {"name": "search_kb", "parameters": {}}}]
    try:
        items = [
            i
            async for i in stream_turn(
                client, model="offline", messages=messages, tools=tools, base_url=URL, retry=RetryPolicy(0)
            )
        ]
    except ModelError as e:
        return ("error", e.kind, e.message, e.action)
    finally:
        await client.close()
    for i in items:  # the time to the first token differs run to run
        if hasattr(i, "ttft"):
            i.ttft = None
    return items


@pytest.mark.parametrize(
    "question",
    ["What dose of amlodipine is started?", "How is a gout flare treated?", "What is the capital of France?"],
)
async def test_a_turn_in_the_process_is_the_turn_over_http(store: Store, question):
    hits = await store.search(question)
    messages = [
        {"role": "system", "content": system_message("prompt", "CANARY", hits)},
        {"role": "user", "content": question},
    ]
    here, there = await turn(in_process(), messages), await turn(over_http(), messages)
    assert here == there and here[0] != "error"


async def test_a_failing_offline_model_fails_alike_either_way(monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(extractive, "answer", broken)
    messages = [{"role": "user", "content": "q"}]
    here, there = await turn(in_process(), messages), await turn(over_http(), messages)
    assert here == there and here[0] == "error" and "boom" in here[2]


async def test_the_judge_reads_the_same_verdicts_either_way(store: Store):
    (hit,) = await store.search("amlodipine starting dose", k=1)
    items = [{"source_id": hit.id, "claims": ["Amlodipine is started at 5 mg."], "excerpt": hit.excerpt}]
    verdicts = []
    for client in (in_process(), over_http()):
        run = GroundingRun(wanted=[hit.id])
        try:
            await ask_judge(client, "offline", items, run, seconds=5)
        finally:
            await client.close()
        verdicts.append((run.verdicts, [t.outcome for t in run.tries]))
    assert verdicts[0] == verdicts[1] and verdicts[0][0]


def test_a_client_needs_one_way_to_its_server():
    with pytest.raises(ValueError):
        LocalClient(base_url=URL, api_key="k")


async def lines_read(chunks: list[bytes], *, ours: bool) -> list[str]:
    async def stream() -> Any:
        for chunk in chunks:
            yield chunk

    if ours:
        return [line async for line in _text_lines(stream())]

    class Body(httpx.AsyncByteStream):
        async def __aiter__(self) -> Any:
            async for chunk in stream():
                yield chunk

    return [line async for line in httpx.Response(200, stream=Body()).aiter_lines()]


def test_a_stream_is_cut_into_lines_as_httpx_cuts_it():
    pieces = ["\n", "\r", "\r\n", "\x85", "\u2028", "\x0b", "a", "é", "data: {}", "\n\n", "\r\r\n"]
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))).encode()
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 4))))
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if b > a]
        ours, theirs = (asyncio.run(lines_read(chunks, ours=o)) for o in (True, False))
        assert ours == theirs, chunks
