"""`hippo-tui serve` against a real uvicorn on loopback: the API, the SSE stream, errors, disconnects."""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hippo_tui.events import parse_event, to_json
from tests.support.serve import Serve, sse_frames

pytest.importorskip("fastapi")
pytestmark = pytest.mark.slow

QUESTION = "How long should uncomplicated cystitis in women be treated?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    with Serve(tmp_path_factory.mktemp("serve"), "--heartbeat", "0.2", "--header-timeout", "2") as s:
        yield s


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[Serve]:
    """Answers at 5 tokens a second: there is time to go away mid-answer."""
    with Serve(tmp_path, "--grace", "0", "--heartbeat", "0.2", tokens_per_second=5) as s:
        yield s


def ask_frames(url: str, question: str = QUESTION, **body: object) -> list[dict]:
    with httpx.stream("POST", f"{url}/v1/ask", json={"question": question, **body}, timeout=60) as r:
        assert r.status_code == 200, r.read()
        return list(sse_frames(r.iter_lines()))


def wait_for_outcome(url: str, audit_id: int, headers: dict[str, str] | None = None) -> dict:
    """The answer's record once it is no longer in flight (the server finishes it on its own time)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        record = httpx.get(f"{url}/v1/answers/{audit_id}", headers=headers).json()
        if record["outcome"] != "in_flight":
            return record
        time.sleep(0.05)
    raise AssertionError(f"answer {audit_id} still in flight")


def test_health_needs_no_token_and_says_what_serves(server: Serve):
    health = httpx.get(f"{server.url}/v1/health").json()
    assert health["status"] == "ok" and health["kb"]["name"] == "demo" and health["kb"]["size"] > 0
    assert health["backend"].startswith("offline") and health["model"] == "offline"


def test_an_answer_streams_as_the_events_of_ask_json_one_per_frame(server: Serve):
    with httpx.stream("POST", f"{server.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-cache" and r.headers["x-accel-buffering"] == "no"
        frames = [f for f in sse_frames(r.iter_lines()) if "data" in f]
    events = [parse_event(f["data"]) for f in frames]
    assert [to_json(e) for e in events] == [f["data"] for f in frames]  # the same bytes as ask --json
    start, end = events[0], events[-1]
    assert start.type == "start" and end.type == "end" and end.outcome == "complete" and end.citations
    assert [f["id"] for f in frames] == [f"{start.audit_id}.{i}" for i in range(len(frames))]
    record = httpx.get(f"{server.url}/v1/answers/{start.audit_id}").json()
    assert record["outcome"] == "complete" and record["client"] == "server:http"


def test_a_conversation_carries_its_turns_and_refuses_a_second_question_at_once(server: Serve):
    conversation = httpx.post(f"{server.url}/v1/conversations", json={}).json()["id"]
    first = ask_frames(server.url, "What is the dose of apixaban in AF?", conversation_id=conversation)
    assert first[0]["event"]["conversation_id"] == conversation
    follow = ask_frames(server.url, "When should it be reduced?", conversation_id=conversation)
    end = follow[-1]["event"]
    assert end["type"] == "end" and "2.5 mg" in end["text"]  # the subject came from the earlier turn


def test_errors_are_json_with_the_right_status(server: Serve):
    cases = [
        httpx.post(f"{server.url}/v1/ask", json={"q": "x"}),  # 422: no question
        httpx.post(f"{server.url}/v1/ask", content=b"{not json", headers={"content-type": "application/json"}),
        httpx.post(f"{server.url}/v1/ask", json={"question": "x" * 5000}),
        httpx.get(f"{server.url}/v1/nowhere"),
        httpx.post(f"{server.url}/v1/ask", json={"question": "q", "conversation_id": "nobody"}),
        httpx.post(f"{server.url}/v1/verify", content=b"x" * 300_000, headers={"content-type": "application/json"}),
        httpx.get(f"{server.url}/v1/audit/stats?by=week"),
    ]
    assert [r.status_code for r in cases] == [422, 422, 422, 404, 404, 413, 422]
    for r in cases:
        error = r.json()["error"]
        assert set(error) == {"kind", "message"} and error["message"]


def test_heartbeat_comments_keep_a_quiet_stream_alive(slow_server: Serve):
    # At 5 tokens a second the stream is quiet longer than the 0.2 s heartbeat between tokens: comments come,
    # and the answer's events go on arriving after them on the same stream.
    beats, after = 0, []
    with httpx.stream("POST", f"{slow_server.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
        for f in sse_frames(r.iter_lines()):
            beats += f.get("comment") == "keep-alive"
            if beats and "data" in f:
                after.append(f["event"]["type"])
            if len(after) >= 3:
                break
    assert beats and len(after) == 3 and "end" not in after[:-1], (beats, after)


def test_a_client_that_goes_away_cancels_its_answer_and_it_is_recorded_cancelled(slow_server: Serve):
    with httpx.stream("POST", f"{slow_server.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
        for f in sse_frames(r.iter_lines()):
            if f.get("event", {}).get("type") == "text":
                audit_id = int(f["id"].split(".")[0])
                break  # leaving the block closes the connection mid-answer
    record = wait_for_outcome(slow_server.url, audit_id)
    assert record["outcome"] == "cancelled" and record["raw_text"]
    assert "verification" not in record["timings"]  # the model call stopped before the answer ended


def test_a_dropped_stream_resumes_from_last_event_id(tmp_path: Path):
    with Serve(tmp_path, "--grace", "30", "--heartbeat", "0.2", tokens_per_second=20) as s:
        seen = []
        with httpx.stream("POST", f"{s.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
            for f in sse_frames(r.iter_lines()):
                if "data" in f:
                    seen.append(f)
                if len(seen) == 5:
                    break
        last = seen[-1]["id"]
        audit_id = last.split(".")[0]
        with httpx.stream("GET", f"{s.url}/v1/answers/{audit_id}/events", headers={"Last-Event-ID": last},
                          timeout=60) as r:  # fmt: skip
            rest = [f for f in sse_frames(r.iter_lines()) if "data" in f]
    ids = [f["id"] for f in seen + rest]
    assert ids == [f"{audit_id}.{i}" for i in range(len(ids))]  # nothing missed, nothing twice
    assert rest[-1]["event"]["type"] == "end" and rest[-1]["event"]["outcome"] == "complete"


def test_cancel_ends_the_answer_with_its_cancelled_end(slow_server: Serve):
    with httpx.stream("POST", f"{slow_server.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
        frames = sse_frames(r.iter_lines())
        for f in frames:
            if f.get("event", {}).get("type") == "text":
                audit_id = f["id"].split(".")[0]
                assert httpx.post(f"{slow_server.url}/v1/answers/{audit_id}/cancel").json()["cancelled"]
                break
        rest = list(frames)
    end = [f for f in rest if "data" in f][-1]["event"]
    assert end["type"] == "end" and end["outcome"] == "cancelled"


def test_a_server_killed_mid_answer_leaves_it_interrupted_not_lost(tmp_path: Path):
    s = Serve(tmp_path, tokens_per_second=2).start()
    try:
        with httpx.stream("POST", f"{s.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
            for f in sse_frames(r.iter_lines()):
                if f.get("event", {}).get("type") == "text":
                    audit_id = int(f["id"].split(".")[0])
                    s.stop(signal.SIGKILL)
                    break
    finally:
        s.stop()
    with Serve(tmp_path) as again:
        record = httpx.get(f"{again.url}/v1/answers/{audit_id}").json()
    assert record["outcome"] == "error" and record["error"].startswith("interrupted")


def test_without_tokens_it_refuses_to_bind_off_loopback(tmp_path: Path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "hippo_tui", "serve", "--host", "0.0.0.0"],
                         capture_output=True, text=True, env={"HIPPO_HOME": str(tmp_path), "PATH": ""})  # fmt: skip
    assert out.returncode == 2 and "only to loopback" in out.stderr and "token add" in out.stderr


def test_verify_checks_an_answer_written_elsewhere(server: Serve):
    frames = ask_frames(server.url)
    source = frames[-1]["event"]["citations"][0]["id"]
    text = f"Nitrofurantoin 100 mg modified-release twice daily for 3 days. [{source}]"
    checked = httpx.post(f"{server.url}/v1/verify", json={"text": text}).json()
    assert checked["summary"]["attempted"] == 1 and checked["attempts"][0]["source_id"] == source
    assert json.loads(json.dumps(checked))["audit_id"] > 0


def test_two_clients_on_one_conversation_the_second_is_told_it_is_busy(slow_server: Serve):
    url = slow_server.url
    conversation = httpx.post(f"{url}/v1/conversations", json={}).json()["id"]
    body = {"question": QUESTION, "conversation_id": conversation}
    with httpx.stream("POST", f"{url}/v1/ask", json=body, timeout=60) as first:
        frames = sse_frames(first.iter_lines())
        start = next(frames)["event"]
        second = httpx.post(f"{url}/v1/ask", json=body)
        assert second.status_code == 409 and second.json()["error"]["kind"] == "conflict"
        assert httpx.post(f"{url}/v1/answers/{start['audit_id']}/cancel").status_code == 200
        assert [f for f in frames if "data" in f][-1]["event"]["outcome"] == "cancelled"


def test_shutdown_with_a_stream_open_ends_it_and_records_the_answer(tmp_path: Path):
    s = Serve(tmp_path, "--grace", "60", tokens_per_second=2).start()
    try:
        with httpx.stream("POST", f"{s.url}/v1/ask", json={"question": QUESTION}, timeout=60) as r:
            frames = sse_frames(r.iter_lines())
            audit_id = next(frames)["event"]["audit_id"]
            assert s.stop(signal.SIGTERM) == 0  # returns: the open stream did not hold the server up
            with pytest.raises(httpx.HTTPError):
                list(frames)
    finally:
        s.stop()
    with Serve(tmp_path) as again:
        record = httpx.get(f"{again.url}/v1/answers/{audit_id}").json()
    assert record["outcome"] == "cancelled"


def _read_until_closed(sock: socket.socket, sending: bytes = b"") -> bytes:
    """What the server sends until it closes the connection, trickling ``sending`` a byte at a time
    meanwhile (a slow-loris client). A bounded number of reads, each with the socket's timeout, fails the test
    if the server never closes it: a count of tries, not a wall-clock deadline a busy machine could miss."""
    got = b""
    sock.settimeout(0.25)
    for byte in [sending[i : i + 1] for i in range(len(sending))] + [b""] * 1000:
        try:
            if byte:
                sock.sendall(byte)
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return got
        if not chunk:
            return got
        got += chunk
    raise AssertionError("the server never closed the connection")


def test_a_slow_loris_client_is_closed_after_the_header_timeout_without_holding_up_the_others(server: Serve):
    head = b"POST /v1/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Padding: " + b"a" * 200
    with socket.create_connection(("127.0.0.1", server.port)) as slow, \
            socket.create_connection(("127.0.0.1", server.port)) as silent:  # fmt: skip
        slow.sendall(head[:20])
        assert httpx.get(f"{server.url}/v1/health", timeout=30).status_code == 200
        frames = ask_frames(server.url)
        assert frames[-1]["event"]["type"] == "end"
        answer = _read_until_closed(slow, head[20:])  # bytes keep coming: still closed, headers unfinished
        assert answer.startswith(b"HTTP/1.1 408") and b'"kind": "timeout"' in answer
        assert _read_until_closed(silent).startswith(b"HTTP/1.1 408")  # one that never sent a byte


def test_a_kept_alive_connection_that_starts_a_request_and_stalls_is_closed_too(server: Serve):
    with socket.create_connection(("127.0.0.1", server.port)) as conn:
        conn.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b'"status":"ok"' not in first:
            first += conn.recv(4096)
        conn.sendall(b"GET /v1/hea")
        assert _read_until_closed(conn).startswith(b"HTTP/1.1 408")
