"""Tokens and roles on a real `hippo-tui serve`: who may call, who reads what, and what never leaks."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.serve import Serve, sse_frames

pytest.importorskip("fastapi")
pytestmark = pytest.mark.slow

QUESTION = "How long should uncomplicated cystitis in women be treated?"
API_KEY = "sk-test-never-shown-0123456789"


def token_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hippo_tui", "token", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})  # fmt: skip


def add(tokens: Path, name: str, role: str) -> str:
    out = token_cli("add", name, "--role", role, "--tokens", str(tokens))
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Serve, dict[str, str]]]:
    home = tmp_path_factory.mktemp("team")
    tokens = home / "tokens.json"
    who = {name: add(tokens, name, role) for name, role in
           (("ana", "clinician"), ("ben", "clinician"), ("eve", "editor"), ("aud", "auditor"))}  # fmt: skip
    os.environ["HIPPO_API_KEY"] = API_KEY  # the server's model key: must never come back out
    try:
        with Serve(home, "--answers-per-token", "1", tokens=tokens) as s:
            yield s, who
    finally:
        del os.environ["HIPPO_API_KEY"]


def ask(s: Serve, token: str, **body: object) -> list[dict]:
    with httpx.stream("POST", f"{s.url}/v1/ask", json={"question": QUESTION, **body}, headers=bearer(token),
                      timeout=60) as r:  # fmt: skip
        assert r.status_code == 200, r.read()
        return [f for f in sse_frames(r.iter_lines()) if "data" in f]


def test_a_token_is_shown_once_and_only_its_hash_is_kept(tmp_path: Path):
    tokens = tmp_path / "tokens.json"
    token = add(tokens, "ana", "clinician")
    assert token.startswith("hippo_") and len(token) > 40
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    stored = tokens.read_text()
    assert token not in stored and '"sha256"' in stored
    listed = token_cli("list", "--tokens", str(tokens)).stdout
    assert "ana" in listed and "clinician" in listed and "sha256" not in listed
    import hashlib

    assert hashlib.sha256(token.encode()).hexdigest() not in listed
    assert token_cli("add", "ana", "--role", "auditor", "--tokens", str(tokens)).returncode == 2
    assert token_cli("revoke", "ana", "--tokens", str(tokens)).returncode == 0
    assert "revoked" in token_cli("list", "--tokens", str(tokens)).stdout


def test_every_route_but_health_needs_a_valid_token(team):
    s, _ = team
    assert httpx.get(f"{s.url}/v1/health").status_code == 200
    for headers in ({}, bearer("hippo_not-a-token"), {"Authorization": "Basic eDp5"}):
        r = httpx.post(f"{s.url}/v1/ask", json={"question": QUESTION}, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["kind"] == "unauthorized"
        assert "ana" not in r.text and "ben" not in r.text  # says nothing of which tokens exist
        assert httpx.get(f"{s.url}/v1/answers", headers=headers).status_code == 401


def test_a_clinician_reads_only_their_own_answers_and_conversations(team):
    s, who = team
    frames = ask(s, who["ana"])
    audit_id = frames[0]["event"]["audit_id"]
    conversation = frames[0]["event"]["conversation_id"]
    ana, ben, aud = bearer(who["ana"]), bearer(who["ben"]), bearer(who["aud"])
    assert httpx.get(f"{s.url}/v1/answers/{audit_id}", headers=ana).json()["asked_by"] == "ana"
    others = [  # every id-taking route, with another user's id
        httpx.get(f"{s.url}/v1/answers/{audit_id}", headers=ben),
        httpx.get(f"{s.url}/v1/answers/{audit_id}/events", headers=ben),
        httpx.post(f"{s.url}/v1/answers/{audit_id}/cancel", headers=ben),
        httpx.post(f"{s.url}/v1/ask", json={"question": "q", "conversation_id": conversation}, headers=ben),
        httpx.put(f"{s.url}/v1/conversations/{conversation}", json={"system_prompt": "x"}, headers=ben),
        httpx.delete(f"{s.url}/v1/conversations/{conversation}", headers=ben),
    ]
    assert [r.status_code for r in others] == [404] * len(others)
    assert audit_id not in [a["id"] for a in httpx.get(f"{s.url}/v1/answers", headers=ben).json()]
    assert httpx.get(f"{s.url}/v1/answers/{audit_id}", headers=aud).json()["asked_by"] == "ana"
    assert audit_id in [a["id"] for a in httpx.get(f"{s.url}/v1/answers", headers=aud).json()]


def test_roles_decide_the_stats_and_retiring(team):
    s, who = team
    assert httpx.get(f"{s.url}/v1/audit/stats", headers=bearer(who["ana"])).status_code == 403
    stats = httpx.get(f"{s.url}/v1/audit/stats?by=day", headers=bearer(who["aud"]))
    assert stats.status_code == 200 and stats.json()["by"] == "day"
    hit = httpx.get(f"{s.url}/v1/kb/search", params={"q": "gout"}, headers=bearer(who["ana"])).json()[0]
    body = {"reason": "withdrawn by the practice"}
    url = f"{s.url}/v1/kb/sources/{hit['id']}/retire"
    assert httpx.post(url, json=body, headers=bearer(who["ana"])).status_code == 403
    assert httpx.post(url, json=body, headers=bearer(who["eve"])).json()["status"] == "retired"


def test_a_second_answer_at_once_for_one_token_is_429_with_retry_after(tmp_path: Path):
    tokens = tmp_path / "tokens.json"
    token = add(tokens, "ana", "clinician")
    with Serve(tmp_path, "--answers-per-token", "1", tokens=tokens, tokens_per_second=5) as s, \
         httpx.stream("POST", f"{s.url}/v1/ask", json={"question": QUESTION}, headers=bearer(token),
                      timeout=60) as first:  # fmt: skip
        next(sse_frames(first.iter_lines()))
        second = httpx.post(f"{s.url}/v1/ask", json={"question": QUESTION}, headers=bearer(token))
    assert second.status_code == 429 and int(second.headers["retry-after"]) > 0


def test_a_token_revoked_mid_session_is_refused_at_its_next_request(tmp_path: Path):
    tokens = tmp_path / "tokens.json"
    token = add(tokens, "ana", "clinician")
    with Serve(tmp_path, tokens=tokens) as s:
        assert httpx.get(f"{s.url}/v1/answers", headers=bearer(token)).status_code == 200
        assert token_cli("revoke", "ana", "--tokens", str(tokens)).returncode == 0
        assert httpx.get(f"{s.url}/v1/answers", headers=bearer(token)).status_code == 401


def test_failed_attempts_from_one_address_are_held_off(tmp_path: Path):
    tokens = tmp_path / "tokens.json"
    add(tokens, "ana", "clinician")
    with Serve(tmp_path, tokens=tokens) as s:
        codes = [httpx.get(f"{s.url}/v1/answers", headers=bearer("hippo_guess")).status_code for _ in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


def test_secrets_never_appear_in_health_errors_records_logs_or_help(team):
    s, who = team
    frames = ask(s, who["ana"])
    record = httpx.get(f"{s.url}/v1/answers/{frames[0]['event']['audit_id']}", headers=bearer(who["ana"]))
    seen = [httpx.get(f"{s.url}/v1/health").text, record.text,
            httpx.get(f"{s.url}/v1/answers", headers=bearer(who["ana"] + "x")).text, s.log.read_text()]  # fmt: skip
    for page in ("serve", "token"):
        seen.append(subprocess.run([sys.executable, "-m", "hippo_tui", page, "--help"], capture_output=True,
                                   text=True, env={**os.environ, "HIPPO_API_KEY": API_KEY}).stdout)  # fmt: skip
    for text in seen:
        assert API_KEY not in text and not any(t in text for t in who.values())
