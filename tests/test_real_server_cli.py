"""`hippo-tui ask` in its own process, pointed by --base-url at a real OpenAI-compatible SSE server on 127.0.0.1.

The server (tests/support/sse_server.py) is a subprocess speaking real HTTP/1.1 with chunked SSE; nothing here is
a mock transport. Each test is what a developer meets pointing the app at a server: a normal answer, a
mid-answer tool call, a server that refuses json_schema structured output (llama.cpp), a grounding reply slower
than the limit, and a connection dropped mid-stream.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hippo_tui.cli import EXIT_MODEL, EXIT_OK
from hippo_tui.events import EndEvent, ErrorEvent, ResetEvent, TextEvent, ThinkingEvent, parse_event
from hippo_tui.store import Store
from hippo_tui.verification.llm_judge import max_tokens
from tests.support import scenarios as sc

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug (demo KB)
AMLO_CLAIM = "Amlodipine is commonly started at 5 mg once daily."


def ask(
    server, home, *extra: str, question: str = "amlodipine starting dose", keep_env: tuple[str, ...] = ()
) -> tuple[int, list, str]:
    cmd = [sys.executable, "-m", "hippo_tui", "ask", question, "--json"]
    cmd += ["--base-url", server.url, "--model", "scripted", "--api-key", "test-key", *extra]
    env = {k: v for k, v in os.environ.items() if k in keep_env or not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, check=False)
    events = [parse_event(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, events, proc.stderr


async def audit(home, answer_id):
    store = await Store.open(home / "hippo.db")
    try:
        return await store.get_answer(answer_id)
    finally:
        await store.close()


def test_normal_answer(scripted_server, hippo_home):
    scripted_server.play(
        {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({AMLO: True})]}
    )
    code, events, err = ask(scripted_server, hippo_home)
    assert code == EXIT_OK, err
    end = events[-1]
    assert isinstance(end, EndEvent) and end.text == f"{AMLO_CLAIM} [1]"
    assert [(c.number, c.grounding) for c in end.citations] == [(1, "grounded")]
    chat = [r for r in scripted_server.requests() if r["path"].endswith("/chat/completions")]
    assert chat[0]["headers"].get("Authorization") == "Bearer test-key"
    assert chat[0]["body"]["stream"] is True and chat[0]["body"]["model"] == "scripted"
    assert chat[0]["body"]["max_tokens"] == 1024  # the answer is bounded even when nobody set a limit


def test_max_tokens_from_the_flag_or_the_environment_reaches_the_server(
    scripted_server, hippo_home, monkeypatch
):
    scenario = {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({AMLO: True})]}
    monkeypatch.setenv("HIPPO_MAX_TOKENS", "300")
    seen = []
    for flags in (("--max-tokens", "200"), ()):  # the flag wins over the environment
        scripted_server.play(scenario)
        assert ask(scripted_server, hippo_home, *flags, keep_env=("HIPPO_MAX_TOKENS",))[0] == EXIT_OK
        bodies = [r["body"] for r in scripted_server.requests() if r["path"].endswith("/chat/completions")]
        seen.append([b["max_tokens"] for b in bodies if "response_format" not in b])
        # The judge's limit is its own, sized to the sources it is asked about.
        assert [b["max_tokens"] for b in bodies if "response_format" in b] == [max_tokens(1)]
    assert seen == [[200], [300]]


def test_a_server_asking_for_max_completion_tokens_gets_it(scripted_server, hippo_home):
    refusal = sc.error(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
    )
    scripted_server.play(
        {"chat": [refusal, sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({AMLO: True})]}
    )
    code, _, err = ask(scripted_server, hippo_home, "--max-tokens", "256")
    assert code == EXIT_OK, err
    first, second = [
        r["body"] for r in scripted_server.requests()
        if r["path"].endswith("/chat/completions") and "response_format" not in r["body"]
    ]  # fmt: skip
    assert first["max_tokens"] == 256 and "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 256 and "max_tokens" not in second


async def test_mid_answer_tool_call_withdraws_and_continues(scripted_server, hippo_home):
    scripted_server.play(
        {
            "chat": [
                sc.stream(sc.tool_chunks("amlodipine dose", before="Let me check the dose")),
                sc.answer(f"{AMLO_CLAIM} [{AMLO}]"),
            ],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    code, events, err = ask(scripted_server, hippo_home)
    assert code == EXIT_OK, err
    resets = [e for e in events if isinstance(e, ResetEvent)]
    assert [r.reason for r in resets] == ["tool_call"]
    shown_before = "".join(e.display for e in events[: events.index(resets[0])] if isinstance(e, TextEvent))
    assert resets[0].withdrawn_display == shown_before  # exactly what was on screen is withdrawn
    assert sum(e.type == "sources" for e in events) == 2  # the search's results are added
    end = events[-1]
    assert isinstance(end, EndEvent) and end.text == f"{AMLO_CLAIM} [1]"
    record = await audit(hippo_home, end.audit_id)
    assert record.resets[0].reason == "tool_call"
    assert "Let me check the dose" in record.raw_text  # the withdrawn text stays in the record


def test_server_refusing_json_schema_falls_back_to_json_object(scripted_server, hippo_home):
    scripted_server.play(
        {
            "chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")],
            "grounding": [sc.error(500, "json_schema is not supported"), sc.grounding({AMLO: True})],
        }
    )
    code, events, err = ask(scripted_server, hippo_home)
    assert code == EXIT_OK, err
    end = events[-1]
    assert isinstance(end, EndEvent) and [c.grounding for c in end.citations] == ["grounded"]
    formats = [
        r["body"]["response_format"]["type"]
        for r in scripted_server.requests()
        if "response_format" in r["body"]
    ]
    assert formats == ["json_schema", "json_object"]


def test_llama_cpp_python_ends_on_json_object_with_schema_and_the_audit_says_so(scripted_server, hippo_home):
    scripted_server.play({"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], **sc.llama_cpp_python()})
    code, events, err = ask(scripted_server, hippo_home)
    assert code == EXIT_OK, err
    end = events[-1]
    assert isinstance(end, EndEvent) and [c.grounding for c in end.citations] == ["grounded"]
    cmd = [sys.executable, "-m", "hippo_tui", "audit", "show", str(end.audit_id)]
    env = {**os.environ, "HIPPO_HOME": str(hippo_home)}
    shown = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, check=True).stdout
    assert "check two (the json_object+schema step answered)" in shown
    assert "json_schema         HTTP 500: 1 validation error" in shown
    assert f'reply:  {{"{AMLO}": true}}' in shown


async def test_slow_grounding_past_the_limit_keeps_citations_unchecked(scripted_server, hippo_home):
    limit, slow = 0.5, 10.0  # the grounding reply comes long after the limit
    scripted_server.play(
        {"chat": [sc.answer(f"{AMLO_CLAIM} [{AMLO}]")], "grounding": [sc.grounding({AMLO: False}, wait=slow)]}
    )
    code, events, err = ask(scripted_server, hippo_home, "--grounding-timeout", str(limit))
    assert code == EXIT_OK, err
    end = events[-1]
    assert isinstance(end, EndEvent)
    assert [(c.number, c.grounding) for c in end.citations] == [(1, "unchecked")]  # still shown
    # "timed out" is only written when the limit fired before the reply came: the slow reply was not waited
    # for (no wall-clock bound here: a busy machine starts the process slowly).
    assert "timed out" in (end.verification.note or "")
    # And on the answer's own clock (never the process's): check two gave up after the limit, long
    # before the slow reply came.
    checking = next(e for e in events if isinstance(e, ThinkingEvent) and e.phase == "checking")
    assert limit - 0.01 <= end.t - checking.t < slow  # 0.01: the stamps are rounded
    record = await audit(hippo_home, end.audit_id)
    assert [(a.check_one, a.check_two, a.shown) for a in record.citations] == [
        ("confirmed", "unchecked", True)
    ]


async def test_connection_dropped_mid_stream(scripted_server, hippo_home):
    partial = "Amlodipine is commonly started at"
    scripted_server.play({"chat": [sc.stream(sc.text_chunks(partial, finish=None), cut=True, done=False)]})
    code, events, _err = ask(scripted_server, hippo_home)
    assert code == EXIT_MODEL
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.kind == "stream_cut"
    assert last.action  # it says what to do
    record = await audit(hippo_home, last.audit_id)
    assert record.outcome == "error" and partial in record.raw_text


@pytest.mark.parametrize(
    ("response", "kind", "says"),
    [
        (sc.error(401, "invalid api key"), "auth", "API key"),
        (sc.error(404, "model 'scripted' not found"), "not_found", "scripted"),
        (sc.error(429, "slow down", headers={"Retry-After": "120"}), "rate_limit", ""),
    ],
)
def test_http_errors_say_what_to_do(scripted_server, hippo_home, response, kind, says):
    scripted_server.play({"chat": [response]})
    code, events, _err = ask(scripted_server, hippo_home)
    assert code == EXIT_MODEL
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.kind == kind
    assert says in last.action + last.message
