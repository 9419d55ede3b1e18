"""Check two against a real HTTP server on 127.0.0.1 (tests/support/sse_server.py): the reply schema made for
each answer, every response_format step, the refusals and replies that move on, and the lenient reader."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from hippo_tui.store import Store
from hippo_tui.verification.checks import verify
from hippo_tui.verification.llm_judge import STEPS, max_tokens, moves_on, read_reply
from tests.support import scenarios as sc

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug
DIAG = "161d3bb9-a9a9-4bf2-b928-18b327f42fea"  # another active demo source
NOWHERE = "00000000-0000-4000-8000-000000000000"
ANSWER = f"Amlodipine is commonly started at 5 mg once daily. [{AMLO}] Check the morning cortisol. [{DIAG}]"


def judge(server: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0)


def grounding_requests(server: Any) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests() if "response_format" in r["body"]]


async def check(server: Any, store: Store, scenario: dict[str, Any], limit: float = 12.0):
    server.play({**scenario})
    return await verify(ANSWER, store=store, client=judge(server), model="scripted", limit=limit)


def grounding_of(v) -> dict[str, str]:
    return {a.source_id: a.check_two for a in v.attempts}


async def test_the_schema_is_made_for_the_answers_sources(scripted_server, store: Store):
    v = await check(scripted_server, store, {"grounding": [sc.fill({DIAG: False})]})
    (body,) = grounding_requests(scripted_server)
    rf = body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["schema"] == {
        "type": "object",
        "properties": {AMLO: {"type": "boolean"}, DIAG: {"type": "boolean"}},
        "required": [AMLO, DIAG],
        "additionalProperties": False,
    }
    assert body["temperature"] == 0 and body["max_tokens"] == max_tokens(2) < max_tokens(3)
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "ungrounded"}
    assert v.grounding is not None and v.grounding.step == "json_schema"
    assert json.loads(v.grounding.raw or "") == {AMLO: True, DIAG: False}


async def test_each_step_in_turn_until_one_answers(scripted_server, store: Store):
    scenario = {
        "grounding:json_schema": [sc.error(400, "'response_format.type' must be 'text'")],
        "grounding:json_object+schema": [
            sc.error(422, "Extra inputs are not permitted: response_format.schema")
        ],
        "grounding:json_object": [sc.reply(json.dumps({AMLO: True, DIAG: True}))],
    }
    v = await check(scripted_server, store, scenario)
    bodies = grounding_requests(scripted_server)
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema", "json_object", "json_object"]
    assert "schema" in bodies[1]["response_format"] and "schema" not in bodies[2]["response_format"]
    prompts = [b["messages"][-1]["content"] for b in bodies]
    assert [DIAG in p.split("</data>")[1] for p in prompts] == [False, True, True]  # the schema in the prompt
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "grounded"}
    assert v.grounding is not None and v.grounding.step == "json_object"
    assert [(t.step, t.outcome.split(":")[0]) for t in v.grounding.tries] == [
        ("json_schema", "HTTP 400"),
        ("json_object+schema", "HTTP 422"),
        ("json_object", "answered"),
    ]


async def test_llama_cpp_python_gets_complete_verdicts_from_json_object_with_schema(scripted_server, store):
    v = await check(scripted_server, store, sc.llama_cpp_python({DIAG: False}))
    assert [b["response_format"]["type"] for b in grounding_requests(scripted_server)] == [
        "json_schema",
        "json_object",
    ]
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "ungrounded"} and v.summary.note is None
    assert v.grounding is not None and v.grounding.step == "json_object+schema"


async def test_a_reply_of_the_wrong_shape_moves_on(scripted_server, store: Store):
    scenario = {
        "grounding:json_schema": [sc.echo()],  # a server that ignored the schema: the model wrote its input
        "grounding:json_object+schema": [sc.reply(json.dumps({AMLO: True}))],  # one of two
        "grounding:json_object": [sc.reply(json.dumps({AMLO: True, DIAG: False}))],
    }
    v = await check(scripted_server, store, scenario)
    assert v.grounding is not None
    assert [t.outcome for t in v.grounding.tries] == [
        "no verdicts (JSON of another shape)",
        "incomplete: 1 of 2 verdicts",
        "answered",
    ]
    assert '"excerpt"' in (v.grounding.tries[0].raw or "")  # the echo is kept for the record
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "ungrounded"}


async def test_when_no_step_completes_the_most_complete_reply_counts(scripted_server, store: Store):
    scenario = {
        "grounding:json_schema": [sc.reply(json.dumps({AMLO: False}))],
        "grounding:json_object+schema": [sc.reply("I think both are fine.")],
        "grounding:json_object": [sc.echo()],
    }
    v = await check(scripted_server, store, scenario)
    assert grounding_of(v) == {AMLO: "ungrounded", DIAG: "unchecked"}
    assert v.grounding is not None and v.grounding.step == "json_schema"
    assert [c.id for c in v.citations] == [DIAG]  # unchecked stays shown; ungrounded does not


async def test_a_partial_reply_still_counts_when_the_next_step_times_out(scripted_server, store: Store):
    scenario = {
        "grounding:json_schema": [sc.reply(json.dumps({"checks": [{"source_id": DIAG, "grounded": True}]}))],
        "grounding:json_object+schema": [sc.fill(wait=5)],
    }
    v = await check(scripted_server, store, scenario, limit=1.0)
    assert grounding_of(v) == {AMLO: "unchecked", DIAG: "grounded"}
    assert v.summary.note == "Verification unavailable: timed out"
    assert v.grounding is not None
    assert [(t.step, t.outcome) for t in v.grounding.tries][-1] == ("json_object+schema", "timed out")


@pytest.mark.parametrize(
    ("status", "message", "steps"),
    [
        (500, "Input should be 'text' or 'json_object'", 2),  # about the format: the next step may do
        (500, "CUDA out of memory", 1),  # the server is broken: the next step would be too
        (503, "loading model", 1),
        (401, "bad key", 1),
    ],
)
async def test_which_refusals_move_on(scripted_server, store: Store, status, message, steps):
    scenario = {
        "grounding:json_schema": [sc.error(status, message)],
        "grounding:json_object+schema": [sc.fill()],
    }
    v = await check(scripted_server, store, scenario)
    assert len(grounding_requests(scripted_server)) == steps
    expected = "grounded" if steps == 2 else "unchecked"
    assert grounding_of(v) == {AMLO: expected, DIAG: expected}
    if steps == 1:
        assert v.summary.note == f"Verification unavailable: the server answered {status}"


async def test_the_last_step_refused_leaves_them_unchecked(scripted_server, store: Store):
    v = await check(scripted_server, store, {"grounding": [sc.error(400, "no structured output here")]})
    assert len(grounding_requests(scripted_server)) == len(STEPS)
    assert grounding_of(v) == {AMLO: "unchecked", DIAG: "unchecked"}
    assert v.summary.note == "Verification unavailable: the server answered 400"


@pytest.mark.parametrize(
    "content",
    [
        json.dumps({AMLO: True, DIAG: False}),
        json.dumps({AMLO: "true", DIAG: "False"}),
        json.dumps([{"source_id": AMLO, "grounded": True}, {"source_id": DIAG, "grounded": False}]),
        json.dumps({"results": [{"id": AMLO.upper(), "supported": True}, {"id": DIAG, "supported": False}]}),
        json.dumps({"verdicts": {AMLO: True, DIAG: False}}),
        json.dumps({AMLO: {"grounded": True}, DIAG: {"grounded": False}, NOWHERE: True}),
        "```json\n" + json.dumps({AMLO: True, DIAG: False, "note": "ok"}) + "\n```",
    ],
)
async def test_the_reader_takes_the_shapes_models_write(scripted_server, store: Store, content: str):
    v = await check(scripted_server, store, {"grounding": [sc.reply(content)]})
    assert len(grounding_requests(scripted_server)) == 1
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "ungrounded"}


def test_contradicting_or_unreadable_verdicts_are_no_verdict():
    content = json.dumps([{"source_id": AMLO, "grounded": True}, {"source_id": AMLO, "grounded": False},
                          {"source_id": DIAG, "grounded": "maybe"}])  # fmt: skip
    assert read_reply(content, {AMLO, DIAG}) == ({}, "no verdicts (JSON of another shape)")
    assert read_reply("", {AMLO}) == ({}, "not JSON")


def test_moves_on_needs_a_format_word_only_for_server_errors():
    import httpx

    def err(status: int, message: str) -> openai.APIStatusError:
        response = httpx.Response(status, request=httpx.Request("POST", "http://x/v1/chat/completions"))
        return openai.APIStatusError(message, response=response, body={"error": {"message": message}})

    assert moves_on(err(400, "something")) and moves_on(err(422, "Unprocessable"))
    assert moves_on(err(500, "grammar failed to compile")) and not moves_on(err(500, "segfault"))
    assert not moves_on(err(404, "response_format: no such model"))


async def test_a_judge_asking_for_max_completion_tokens_gets_it_on_the_same_step(scripted_server, store):
    refusal = sc.error(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens'.",
    )
    v = await check(scripted_server, store, {"grounding": [refusal, sc.fill()]})
    first, second = grounding_requests(scripted_server)
    assert first["response_format"]["type"] == second["response_format"]["type"] == "json_schema"
    assert "max_tokens" not in second and second["max_completion_tokens"] == max_tokens(2)
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "grounded"}
    assert v.grounding is not None and [t.outcome for t in v.grounding.tries] == ["answered"]


async def test_the_judges_read_timeout_follows_the_grounding_limit(scripted_server, store: Store):
    # The client's own read timeout (the app's is 60 s) is shorter than this check's limit: the judge that
    # answers within the limit is still heard.
    client = openai.AsyncOpenAI(base_url=scripted_server.url, api_key="k", max_retries=0, timeout=0.2)
    scripted_server.play({"grounding": [sc.fill(wait=0.6)]})
    v = await verify(ANSWER, store=store, client=client, model="scripted", limit=10.0)
    assert grounding_of(v) == {AMLO: "grounded", DIAG: "grounded"}
    (body,) = grounding_requests(scripted_server)
    assert body["response_format"]["type"] == "json_schema"


def test_a_read_timeout_says_the_server_did_not_answer_in_time():
    from hippo_tui.verification.checks import why

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    assert why(openai.APITimeoutError(request)) == "the server did not answer in time"
    assert why(openai.APIConnectionError(request=request)) == "the server could not be reached"
