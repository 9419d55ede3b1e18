"""The in-process backends' client (no SDK) reads every reply as the SDK does: the same turn, the same error.

Each scenario is played by the real loopback server twice, once to ``openai.AsyncOpenAI`` and once to
``LocalClient`` over plain httpx, and the two outcomes must be equal.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from hippo_tui.backends import open_backend
from hippo_tui.backends.chat import RetryPolicy, stream_turn
from hippo_tui.backends.errors import ModelError
from hippo_tui.backends.local_client import LocalClient
from hippo_tui.config import Settings
from hippo_tui.verification.llm_judge import GroundingRun, ask_judge
from tests.support import scenarios as sc

SID = "3f2b8c1e-0000-4000-8000-000000000001"
MSGS = [{"role": "user", "content": "q"}]
NO_RETRY = RetryPolicy(attempts=0)

USAGE = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": []}
SCENARIOS: dict[str, dict[str, Any]] = {
    "text": sc.answer("Amoxicillin 500 mg three times a day."),
    "tool call": sc.stream(sc.tool_chunks("otitis media", before="Looking. ")),
    "usage frames and no finish": sc.stream([USAGE, *sc.text_chunks("Hi.", finish=None)]),
    "401": sc.error(401, "bad key"),
    "404 without a model": sc.error(404, "404 page not found"),
    "404 model": sc.error(404, "model 'x' not found"),
    "429": sc.error(429, "slow down", headers={"Retry-After": "120"}),
    "500": sc.error(500, "down"),
    "400 tools": sc.error(400, "this model does not support tools"),
    "not JSON error body": {"status": 502, "body": "<html>Bad gateway</html>"},
    "error event in the stream": sc.stream(
        [*sc.text_chunks("Half", finish=None), {"error": {"message": "boom"}}]
    ),
    "chunk not JSON": sc.stream([*sc.text_chunks("Half", finish=None), "{not json"]),
    "stream cut": sc.stream(sc.text_chunks("Half an answer that goes on", finish=None), cut=True),
    "empty stream": sc.stream([]),
}


def sdk(url: str) -> Any:
    return openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0)


def local(url: str) -> Any:
    return LocalClient(base_url=url, api_key="k", http=httpx.AsyncClient(timeout=10))


async def outcome(client: Any, url: str, tools: bool) -> Any:
    offered = [{"type": "function", "function": {"name": "search_kb", "parameters": {}}}] if tools else None
    try:
        items = [
            i
            async for i in stream_turn(
                client, model="m", messages=MSGS, tools=offered, base_url=url, retry=NO_RETRY
            )
        ]
    except ModelError as e:
        return ("error", e.kind, e.message, e.action, e.retry_after)
    finally:
        await client.close()
    for i in items:  # the time to first token differs run to run
        if hasattr(i, "ttft"):
            i.ttft = None
    return ("turn", items)


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_the_local_client_reads_every_reply_as_the_sdk_does(scripted_server, name):
    scenario = SCENARIOS[name]
    tools = name == "400 tools"
    results = []
    for make in (sdk, local):
        scripted_server.play({"chat": [scenario, sc.answer("Without tools.")]})
        results.append(await outcome(make(scripted_server.url), scripted_server.url, tools))
    assert results[0] == results[1]
    if name == "text":
        assert results[1][0] == "turn"  # the scenario was really played: not two equal failures


async def test_the_judge_reads_a_completion_and_a_refusal_through_either_client(scripted_server):
    for make in (sdk, local):
        scripted_server.play(
            {
                "grounding:json_schema": [sc.error(400, "json_schema is not supported")],
                "grounding": [sc.grounding({SID: True})],
            }
        )
        run = GroundingRun(wanted=[SID])
        client = make(scripted_server.url)
        try:
            await ask_judge(
                client, "m", [{"source_id": SID, "claims": ["c"], "excerpt": "e"}], run, seconds=5
            )
        finally:
            await client.close()
        assert run.verdicts == {SID: True}
        assert run.tries[0].outcome == "HTTP 400: json_schema is not supported"


async def test_a_silent_server_is_a_timeout_not_a_connection_failure(scripted_server):
    scripted_server.play({"chat": [{**sc.answer("late"), "wait": 1}]})
    client = LocalClient(
        base_url=scripted_server.url, api_key="k", http=httpx.AsyncClient(timeout=httpx.Timeout(0.2))
    )
    with pytest.raises(ModelError) as e:
        async for _ in stream_turn(
            client, model="m", messages=MSGS, tools=None, base_url="u", retry=NO_RETRY
        ):
            pass
    await client.close()
    assert e.value.kind == "connection" and "did not answer in time" in e.value.message


async def test_offline_and_replay_use_the_local_client_and_a_server_the_sdk(tmp_path):
    offline = open_backend(Settings())
    remote = open_backend(Settings(base_url="http://127.0.0.1:1/v1", model="m"))
    assert isinstance(offline.client, LocalClient)
    assert isinstance(remote.client, openai.AsyncOpenAI)
    for b in (offline, remote):
        await b.aclose()
