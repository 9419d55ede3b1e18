"""`hippo-tui ask`: human output, --json events, exit codes, --kb, --replay."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_MODEL, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_WITHDRAWN, main
from hippo_tui.commands.ask_run import LiveStatus, answer
from hippo_tui.config import Settings
from hippo_tui.events import EndEvent, ErrorEvent, StartEvent, parse_event

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
    start = events[0]
    assert (
        code == EXIT_OK
        and isinstance(start, StartEvent)
        and [e.type for e in events[1:3]]
        == [
            "thinking",
            "sources",
        ]
    )
    assert start.audit_id == 1 and start.question == "What dose of amlodipine?" and start.backend
    end = events[-1]
    assert isinstance(end, EndEvent) and end.audit_id == start.audit_id and end.citations[0].id == AMLO
    assert sum(isinstance(e, EndEvent) for e in events) == 1


def test_withdrawn_answer_exits_1(capsys, hippo_home):
    code, out, _ = run(capsys, "--replay", str(CASSETTES / "safety-trip.jsonl"), "--speed", "0")
    assert code == EXIT_WITHDRAWN and out.strip() == "Withdrawn: the answer matched the safety rule “mrn”."


def test_replay_defaults_to_the_recorded_question(capsys, hippo_home):
    code, out, _ = run(capsys, "--replay", str(CASSETTES / "missing-id.jsonl"), "--speed", "0", "--json")
    first = parse_event(out.splitlines()[0])
    assert code == EXIT_OK and isinstance(first, StartEvent) and "amlodipine" in first.question


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


# -- the live status line on a terminal ----------------------------------------------------------


class Log:
    """stdout and stderr writing into one ordered log; stderr says it is a terminal when ``tty``."""

    def __init__(self, tty: bool) -> None:
        self.writes: list[tuple[str, str]] = []
        self.out, self.err = self._Stream(self, "out", False), self._Stream(self, "err", tty)

    class _Stream(io.StringIO):
        def __init__(self, log: Log, name: str, tty: bool) -> None:
            super().__init__()
            self.log, self.name, self.tty = log, name, tty

        def write(self, s: str) -> int:
            if s:
                self.log.writes.append((self.name, s))
            return super().write(s)

        def isatty(self) -> bool:
            return self.tty


def _ask(settings: Settings, question: str, log: Log) -> int:
    return asyncio.run(answer(settings, question, as_json=False, out=log.out, err=log.err))


def test_a_terminal_sees_a_live_status_cleared_before_the_answer(hippo_home, monkeypatch):
    monkeypatch.setattr(LiveStatus, "REDRAW", 0.0)  # every count update drawn, however fast the stream
    log = Log(tty=True)
    question = "What is the blood pressure target for hypertension and how is a gout flare treated?"
    settings = Settings(home=hippo_home, offline_tokens_per_second=0, retrieval_k=1)  # a mid-answer search
    assert _ask(settings, question, log) == EXIT_OK
    err = [s for name, s in log.writes if name == "err"]
    lines = [s.removeprefix(LiveStatus.CLEAR) for s in err]
    assert all(s.startswith(LiveStatus.CLEAR) for s in err)  # every draw replaces the line
    assert lines[0].startswith("Searching the knowledge base for “What is the blood pressure")
    assert "Writing the answer…" in lines
    counts = [int(s.split()[1].replace(",", "")) for s in lines if s.startswith("Writing… ")]
    assert counts and counts[-1] > 200
    assert "Withdrawn while the assistant looks something up…" in lines  # the reset's note
    assert lines[-2] == "Checking citations…" and lines[-1] == ""  # then cleared
    first_out = next(i for i, (name, _) in enumerate(log.writes) if name == "out")
    assert all(name == "out" for name, _ in log.writes[first_out:])  # cleared before the answer
    assert "Colchicine is given as 500 micrograms" in log.out.getvalue()
    assert all(len(s) <= 79 for s in lines)  # one line of an 80-column terminal (the fallback width)


def test_not_a_terminal_gets_no_status(hippo_home):
    log = Log(tty=False)
    settings = Settings(home=hippo_home, offline_tokens_per_second=0)
    assert _ask(settings, "What dose of amlodipine?", log) == EXIT_OK
    assert log.err.getvalue() == "" and "5 mg once daily" in log.out.getvalue()


def test_json_mode_on_a_terminal_gets_no_status(hippo_home):
    log = Log(tty=True)
    settings = Settings(home=hippo_home, offline_tokens_per_second=0)
    assert (
        asyncio.run(answer(settings, "What dose of amlodipine?", as_json=True, out=log.out, err=log.err)) == 0
    )
    assert log.err.getvalue() == ""


def test_a_withdrawn_answer_clears_the_status_before_the_note(hippo_home):
    log = Log(tty=True)
    settings = Settings(home=hippo_home, replay=CASSETTES / "safety-trip.jsonl", replay_speed=0)
    assert _ask(settings, "What dose of amlodipine should my patient start on?", log) == EXIT_WITHDRAWN
    err = log.err.getvalue()
    assert "Withdrawn: the answer matched the safety rule “mrn”." in err and err.endswith(LiveStatus.CLEAR)
    assert log.writes[-1][0] == "out" and "safety rule" in log.out.getvalue()


@pytest.mark.parametrize("argv", [["kb", "list"], ["ask", "amlodipine dose", "--json"]])
def test_a_reader_that_stops_early_gets_no_traceback(hippo_home, argv):
    """`hippo-tui kb list | head -1`: the pipe closes before the output ends; that is not a crash."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(hippo_home)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hippo_tui", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line: every write hits a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) != 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_json_mode_ends_with_an_error_event_when_the_answer_cannot_start(capsys, hippo_home, tmp_path):
    """A script reading --json always finds the outcome on the last line, even for a bad flag or file."""
    bad_cassette = tmp_path / "bad.jsonl"
    bad_cassette.write_text("nope\n")
    bad_config = tmp_path / "config.toml"
    bad_config.write_text("modle = 'x'\n")
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    cases = [
        ((), "usage", EXIT_USAGE, "give a question"),
        (("q", "--replay", str(bad_cassette)), "usage", EXIT_USAGE, "bad.jsonl"),
        (("q", "--config", str(bad_config)), "usage", EXIT_USAGE, "modle"),
        (("q", "--home", str(not_a_folder)), "store", EXIT_STORE, str(not_a_folder)),
    ]
    for argv, kind, code, says in cases:
        got, out, err = run(capsys, *argv, "--json")
        last = parse_event(out.splitlines()[-1])
        assert got == code and isinstance(last, ErrorEvent), (argv, out)
        assert last.kind == kind and says in last.message and says in err


def test_an_answer_cut_at_the_output_limit_says_so(capsys, hippo_home, scripted_server):
    from tests.support import scenarios as sc

    text = f"Amlodipine is commonly started at 5 mg once daily. [{AMLO}] It can be raised to"
    for _ in range(2):
        scripted_server.play(
            {
                "chat": [sc.stream(sc.text_chunks(text, finish="length"))],
                "grounding": [sc.grounding({AMLO: True})],
            }
        )
    server = ["--base-url", scripted_server.url, "--model", "scripted"]
    code, out, _ = run(capsys, "amlodipine dose", *server)
    answer_text, citations, _summary = out.strip().split("\n\n")
    assert code == EXIT_OK and answer_text.splitlines() == [
        # The cut-off half sentence cites nothing: it is marked like any unbacked statement.
        "Amlodipine is commonly started at 5 mg once daily. [1] It can be raised to [unverified]",
        "(Cut short: the model reached its output limit; raise max_tokens for a longer answer.)",
    ]
    assert citations == "[1] Hypertension: choosing the first drug"
    code, out, _ = run(capsys, "amlodipine dose", "--json", *server)
    end = json.loads(out.splitlines()[-1])
    assert code == EXIT_OK and end["type"] == "end" and end["cut"] is True and end["outcome"] == "complete"


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGINT"), reason="needs POSIX signals")
def test_ctrl_c_while_streaming_cancels_through_the_engine(hippo_home, scripted_server):
    """The --json stream still ends with the cancelled ``end`` of the same audit record; exit 1."""
    import os
    import signal
    import subprocess
    import sys

    from hippo_tui.store import Store
    from tests.support import scenarios as sc

    words = "Amlodipine is a calcium channel blocker taken once a day. " * 20
    scripted_server.play({"chat": [sc.stream(sc.text_chunks(words, size=6), delay=0.05)]})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(hippo_home)
    cmd = [sys.executable, "-m", "hippo_tui", "ask", "amlodipine", "--json"]
    cmd += ["--base-url", scripted_server.url, "--model", "scripted"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:  # wait for the answer to be streaming (never for a time)
        lines.append(line)
        if json.loads(line)["type"] == "text":
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    events = [parse_event(x) for x in [*lines, *out.splitlines()]]
    start, end = events[0], events[-1]
    assert proc.returncode == EXIT_WITHDRAWN, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert isinstance(start, StartEvent) and isinstance(end, EndEvent)
    assert end.outcome == "cancelled" and end.audit_id == start.audit_id
    assert end.text and words.startswith(end.text.strip())

    async def record() -> tuple[str, str]:
        store = await Store.open(Settings(home=hippo_home).db_path(), seed=None)
        try:
            a = await store.get_answer(start.audit_id)
            assert a is not None
            return a.outcome, a.raw_text
        finally:
            await store.close()

    outcome, raw = asyncio.run(record())
    assert outcome == "cancelled" and raw and words.startswith(raw)


def test_a_question_too_long_is_refused_before_the_knowledge_base_is_searched(capsys, fast):
    code, out, _ = run(capsys, "What dose " * 500, "--json", *fast)
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "error"
    assert events[-1]["kind"] == "usage" and "characters long; the longest is 4,000" in events[-1]["message"]
    assert not any(e["type"] == "sources" for e in events)  # nothing was searched
    assert code != EXIT_OK
