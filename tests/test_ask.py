"""`hippo-tui ask`: human output, --json events, exit codes, --kb, --replay."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_MODEL, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_WITHDRAWN, main
from hippo_tui.events import EndEvent, ErrorEvent, parse_event

CASSETTES = Path(__file__).resolve().parents[1] / "hippo_tui" / "data" / "cassettes"
AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"


@pytest.fixture
def fast(hippo_home: Path) -> list[str]:
    """A config file with unlimited offline pace (there is no flag for it: it is a config setting)."""
    cfg = hippo_home / "config.toml"
    cfg.write_text("offline_tokens_per_second = 0\n")
    return ["--config", str(cfg)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["ask", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_human_output(capsys, fast):
    code, out, _ = run(capsys, "What dose of amlodipine?", *fast)
    assert code == EXIT_OK
    answer, citations, summary = out.strip().split("\n\n")
    assert "10 mg once daily. [1]" in answer and AMLO not in answer
    assert citations == "[1] Hypertension: choosing the first drug"
    assert summary.startswith("Verification: 1 cited, 1 confirmed, 1 grounded")


def test_json_prints_one_event_per_line_ending_with_end(capsys, fast):
    code, out, _ = run(capsys, "What dose of amlodipine?", "--json", *fast)
    events = [parse_event(line) for line in out.splitlines()]
    assert code == EXIT_OK and events[0].type == "thinking" and events[1].type == "sources"
    end = events[-1]
    assert isinstance(end, EndEvent) and end.audit_id == 1 and end.citations[0].id == AMLO
    assert sum(isinstance(e, EndEvent) for e in events) == 1


def test_withdrawn_answer_exits_1(capsys, hippo_home):
    code, out, _ = run(capsys, "--replay", str(CASSETTES / "safety-trip.jsonl"), "--speed", "0")
    assert code == EXIT_WITHDRAWN and out.strip() == "Withdrawn: the answer matched the safety rule “mrn”."


def test_replay_defaults_to_the_recorded_question(capsys, hippo_home):
    code, out, _ = run(capsys, "--replay", str(CASSETTES / "missing-id.jsonl"), "--speed", "0", "--json")
    first = parse_event(out.splitlines()[0])
    assert code == EXIT_OK and "amlodipine" in first.text


def test_unreachable_server_exits_3_with_an_action(capsys, hippo_home):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    code, out, err = run(capsys, "q", "--base-url", url, "--model", "m", "--json")
    last = parse_event(out.splitlines()[-1])
    assert code == EXIT_MODEL and isinstance(last, ErrorEvent) and last.kind == "connection"
    code, out, err = run(capsys, "q", "--base-url", url, "--model", "m")
    assert code == EXIT_MODEL and f"cannot connect to {url}" in err and "--base-url" in err


def test_store_error_exits_4(capsys, hippo_home, tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    code, _, err = run(capsys, "q", "--home", str(not_a_folder))
    assert code == EXIT_STORE and str(not_a_folder) in err


def test_usage_errors_exit_2(capsys, hippo_home, tmp_path):
    assert run(capsys)[0] == EXIT_USAGE
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    code, _, err = run(capsys, "q", "--replay", str(bad))
    assert code == EXIT_USAGE and "bad.jsonl" in err
    policy = tmp_path / "policy.toml"
    policy.write_text("[[rule]]\nname = 'x'\npattern = '.*'\n")
    code, _, err = run(capsys, "q", "--policy", str(policy))
    assert code == EXIT_USAGE and "x" in err


def test_own_knowledge_base(capsys, fast, hippo_home, tmp_path):
    sid = "3f1c6a52-5d0e-4a47-9d8e-2b6f4c1a7e90"
    kb = tmp_path / "ward.jsonl"
    kb.write_text(
        json.dumps(
            {
                "id": sid,
                "title": "Ward rounds",
                "excerpt": "Ward rounds start at 8 o'clock every weekday morning.",
            }
        )
        + "\n"
    )
    code, out, _ = run(capsys, "When do ward rounds start?", "--kb", str(kb), "--json", *fast)
    end = parse_event(out.splitlines()[-1])
    assert code == EXIT_OK and isinstance(end, EndEvent) and [c.id for c in end.citations] == [sid]
    dbs = sorted(p.name for p in hippo_home.glob("*.db"))
    assert len(dbs) == 1 and dbs[0].startswith("kb-ward-")


def test_the_command_in_its_own_process_against_a_real_server(hippo_home, scripted_server):
    import os
    import subprocess
    import sys

    from tests.support import scenarios as sc

    scripted_server.play(
        {
            "chat": [sc.answer(f"Amlodipine is commonly started at 5 mg once daily. [{AMLO}]")],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    cmd = [sys.executable, "-m", "hippo_tui", "ask", "amlodipine dose", "--json"]
    cmd += ["--base-url", scripted_server.url, "--model", "scripted"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=os.environ.copy(), check=False)
    assert proc.returncode == EXIT_OK, proc.stderr
    end = parse_event(proc.stdout.splitlines()[-1])
    assert isinstance(end, EndEvent) and end.text.endswith("once daily. [1]")
    assert end.backend == "openai-compatible" and end.model == "scripted"
