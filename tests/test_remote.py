"""The thin client: the remote engine against a real `hippo-tui serve`, and `ask --server`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_tui.engine.protocol import AnswerEngine, Conversation
from hippo_tui.events import ErrorEvent, parse_event
from tests.support.cutting_proxy import CuttingProxy
from tests.support.serve import Serve, free_port

pytest.importorskip("fastapi")
pytestmark = pytest.mark.slow

QUESTION = "How long should uncomplicated cystitis in women be treated?"


def add_token(tokens: Path, name: str = "ana", role: str = "clinician") -> str:
    out = subprocess.run([sys.executable, "-m", "hippo_tui", "token", "add", name, "--role", role,
                          "--tokens", str(tokens)], capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.strip()


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HIPPO_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "hippo_tui", *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("remote")
    tokens = home / "tokens.json"
    token = add_token(tokens)
    with Serve(home, "--answers-per-token", "1", "--grace", "30", tokens=tokens, tokens_per_second=200) as s:
        yield s, token


async def test_the_remote_engine_implements_the_protocol_and_answers(served):
    from hippo_tui.engine.remote import RemoteEngine

    s, token = served
    engine = await RemoteEngine.connect(s.url, token)
    try:
        assert isinstance(engine, AnswerEngine)
        conversation = await engine.open_conversation()
        assert isinstance(conversation, Conversation)
        events = [e async for e in conversation.ask(QUESTION)]
        assert events[0].type == "start" and events[-1].type == "end" and events[-1].citations
        record = await engine.get_answer(events[0].audit_id)
        assert record is not None and record.asked_by == "ana" and record.client == "server:tui"
        assert (await engine.info()).kb_name == "demo" and engine.default_system_prompt
        checked = await engine.verify(events[-1].text)
        assert checked.audit_id > 0
    finally:
        await engine.close()


def test_ask_with_server_prints_the_same_events(served, tmp_path: Path):
    s, token = served
    out = cli("ask", QUESTION, "--json", "--server", s.url, "--token", token, home=tmp_path)
    assert out.returncode == 0, out.stderr
    events = [parse_event(line) for line in out.stdout.splitlines()]
    assert events[0].type == "start" and events[-1].type == "end" and events[-1].outcome == "complete"
    assert not (tmp_path / "hippo.db").exists()  # the thin client opened no store of its own


def test_server_down_and_a_bad_token_are_clear_messages(served, tmp_path: Path):
    s, _ = served
    down = cli("ask", QUESTION, "--server", f"http://127.0.0.1:{free_port()}", "--token", "t", home=tmp_path)
    assert down.returncode == 3 and "cannot connect to the hippo-tui server at http://127.0.0.1:" in down.stderr
    refused = cli("ask", QUESTION, "--server", s.url, "--token", "hippo_wrong", home=tmp_path)
    assert refused.returncode == 3 and "refused the token (401)" in refused.stderr and "HIPPO_TOKEN" in refused.stderr
    assert "hippo_wrong" not in refused.stderr


async def test_too_many_answers_at_once_says_when_to_retry(tmp_path: Path):
    from hippo_tui.engine.remote import RemoteEngine

    tokens = tmp_path / "tokens.json"
    token = add_token(tokens)
    with Serve(tmp_path, "--answers-per-token", "1", tokens=tokens, tokens_per_second=5) as s:
        engine = await RemoteEngine.connect(s.url, token)
        try:
            one, two = await engine.open_conversation(), await engine.open_conversation()
            first = one.ask(QUESTION)
            assert (await anext(first)).type == "start"
            [error] = [e async for e in two.ask(QUESTION)]
            assert isinstance(error, ErrorEvent) and error.kind == "rate_limit" and "wait 5 s" in error.action
            await one.cancel()
            assert [e async for e in first][-1].outcome == "cancelled"
        finally:
            await engine.close()


async def test_a_stream_cut_mid_answer_is_resumed_with_nothing_lost_or_doubled(served):
    from hippo_tui.engine.remote import RemoteEngine

    s, token = served
    async with CuttingProxy(s.port, cut_after=3000) as proxy:
        engine = await RemoteEngine.connect(proxy.url, token)
        try:
            conversation = await engine.open_conversation()
            events = [e async for e in conversation.ask(QUESTION)]
        finally:
            await engine.close()
    assert proxy.cuts == 1
    assert events[-1].type == "end" and events[-1].outcome == "complete"
    assert [e.type for e in events].count("start") == 1 and [e.type for e in events].count("end") == 1
    shown = "".join(e.display for e in events if e.type == "text")
    assert shown.replace("·", "") == events[-1].text  # every text piece once, in order


async def test_a_server_killed_mid_answer_is_a_clear_error_and_the_record_survives(tmp_path: Path, monkeypatch):
    from hippo_tui.engine import remote_conversation
    from hippo_tui.engine.remote import RemoteEngine

    monkeypatch.setattr(remote_conversation, "RESUME_WITHIN", 1.0)  # for a server that is not coming back
    s = Serve(tmp_path, tokens_per_second=2).start()
    engine = await RemoteEngine.connect(s.url, None)
    try:
        stream = (await engine.open_conversation()).ask(QUESTION)
        events = []
        async for event in stream:
            events.append(event)
            if event.type == "text":
                s.stop(9)
        last = events[-1]
    finally:
        await engine.close()
    assert isinstance(last, ErrorEvent) and last.kind == "stream_cut" and "broke mid-answer" in last.message
    assert last.audit_id == events[0].audit_id and last.partial_text
    with Serve(tmp_path) as again:  # restarted: the answer is in the record, marked interrupted
        engine = await RemoteEngine.connect(again.url, None)
        try:
            record = await engine.get_answer(last.audit_id)
        finally:
            await engine.close()
    assert record is not None and record.outcome == "error" and record.error.startswith("interrupted")


def test_verify_with_server_prints_the_same_report(served, tmp_path: Path):
    s, token = served
    answer = tmp_path / "answer.md"
    answer.write_text("Nitrofurantoin is given for 3 days. [00000000-0000-4000-8000-000000000000]\n")
    out = cli("verify", str(answer), "--json", "--server", s.url, "--token", token, home=tmp_path)
    assert out.returncode == 5, out.stderr  # the cited source does not exist on the server: flagged
    import json

    report = json.loads(out.stdout)
    assert report["citations"][0]["check_one"] == "missing" and report["summary"]["audit_id"] > 0
    assert not (tmp_path / "hippo.db").exists()


def test_audit_and_kb_search_read_the_servers_records(served, tmp_path: Path):
    s, token = served
    remote = ("--server", s.url, "--token", token)
    ask = cli("ask", QUESTION, "--json", *remote, home=tmp_path)
    audit_id = parse_event(ask.stdout.splitlines()[0]).audit_id
    listed = cli("audit", "list", *remote, home=tmp_path)
    assert listed.returncode == 0 and str(audit_id) in listed.stdout, listed.stderr
    shown = cli("audit", "show", str(audit_id), *remote, home=tmp_path)
    assert shown.returncode == 0 and "cystitis" in shown.stdout
    found = cli("kb", "search", "gout flare", "--json", *remote, home=tmp_path)
    assert found.returncode == 0 and "gout" in found.stdout.lower()
    refused = cli("kb", "import", str(tmp_path / "x.jsonl"), *remote, home=tmp_path)
    assert refused.returncode == 2 and "does not run with --server" in refused.stderr
    assert not (tmp_path / "hippo.db").exists()
