"""`hippo-tui eval`: a question set on the demo KB with the offline backend, cassettes per question, compare."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_USAGE, main
from hippo_tui.evaluation import DEMO_QUESTIONS, METRICS, EvalRun, QuestionResult, load_questions, load_run
from tests.support import scenarios as sc

CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"
CYSTITIS_OLD = "e8562efb-5edc-44da-840a-c7806e0be0ae"  # retired: 7-day treatment
AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"

SMALL = [
    {"question": "How long should uncomplicated cystitis in women be treated?", "expect_sources": [CYSTITIS],
     "expect_abstain": False},
    {"question": "What is the first-line drug for hypertension in adults aged 55 or over?",
     "expect_sources": [AMLO], "expect_abstain": False},
    {"question": "What is the treatment for Lyme disease?", "expect_sources": [], "expect_abstain": True},
]  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_questions(path: Path, rows: Sequence[dict | str]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def assert_abstains_where_expected(results: Sequence[QuestionResult]) -> None:
    """Abstention comes from the end event's coverage: every out-of-KB question abstains, and no other."""
    assert any(r.statements for r in results)
    assert [r.line for r in results if r.abstained] == [r.line for r in results if r.expect_abstain]


def test_full_run_on_the_demo_kb(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.json"
    code, stdout, _ = run(capsys, "eval", "--json", str(out))
    assert code == 0
    r = load_run(out)
    questions = load_questions(DEMO_QUESTIONS)
    assert r.total_questions == len(questions) == len(r.results) == 18 and not r.interrupted
    assert r.backend.startswith("offline") and r.model == "offline"
    in_kb = [x for x in r.results if not x.expect_abstain]
    out_of_kb = [x for x in r.results if x.expect_abstain]
    # Every in-KB answer shows exactly the source the question set expects; the out-of-KB ones cite nothing.
    assert [x.shown for x in in_kb] == [q.expect_sources for q in questions if not q.expect_abstain]
    assert all(x.attempted == x.confirmed == x.grounded == 1 for x in in_kb)
    assert all(x.attempted == 0 and x.shown == [] for x in out_of_kb) and len(out_of_kb) == 4
    assert_abstains_where_expected(r.results)
    s = r.summary
    assert (s.questions, s.citations, s.complete_rate, s.flagged_rate, s.citation_flagged_rate) == (
        18,
        14,
        1,
        0,
        0,
    )
    assert (s.ungrounded_rate, s.unchecked_rate, s.precision, s.recall) == (0, 0, 1, 1)
    assert all(x.ttft is not None and 0 <= x.ttft <= x.total for x in r.results)
    assert s.ttft_p50 is not None and s.ttft_p95 is not None and s.ttft_p50 <= s.ttft_p95
    assert all(x.audit_id for x in r.results) and len({x.audit_id for x in r.results}) == 18
    # The tables: one line per question, then the summary.
    assert (
        "citation recall                  100.0%" in stdout
        and "answers flagged                    0.0%" in stdout
    )
    assert stdout.count("  complete  ") == 18
    # The README shows this run's summary: the same lines, apart from the times.
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    shown = readme.split("The summary on the demo knowledge base")[1].split("```")[1].strip().splitlines()
    summary = stdout.split("metric                            value")[1].strip().splitlines()
    assert [ln for ln in shown[1:] if not ln.endswith(" s")] == [
        ln for ln in summary if not ln.endswith(" s")
    ]
    assert all(f"`{name}`" in readme for name in METRICS)  # every --fail-on name is explained


def test_concurrent_run_gives_the_same_results_in_file_order(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, tmp_path: Path
) -> None:
    qs = write_questions(tmp_path / "q.jsonl", SMALL * 2)
    one, four = tmp_path / "one.json", tmp_path / "four.json"
    assert run(capsys, "eval", str(qs), "--json", str(one))[0] == 0
    assert run(capsys, "eval", str(qs), "--json", str(four), "--concurrency", "4")[0] == 0

    def key(r: EvalRun) -> list[tuple]:
        return [(x.line, x.outcome, x.shown, x.attempted, x.grounded) for x in r.results]

    assert key(load_run(one)) == key(load_run(four)) and [x.line for x in load_run(four).results] == list(
        range(1, 7)
    )


def test_bad_lines_are_named_and_nothing_runs(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, tmp_path: Path
) -> None:
    qs = write_questions(tmp_path / "q.jsonl", [
        SMALL[0],
        "{not json",
        {"expect_sources": [AMLO]},
        {"question": "Dose?", "expect_sources": AMLO},
        {"question": "Dose?", "expect": True},
        "",
        '["a list"]',
        {"question": "   "},
    ])  # fmt: skip
    out = tmp_path / "run.json"
    code, stdout, err = run(capsys, "eval", str(qs), "--json", str(out))
    assert code == EXIT_USAGE and stdout == "" and not out.exists()
    lines = err.splitlines()
    assert [re.search(r"q.jsonl: line (\d+):", ln).group(1) for ln in lines] == ["2", "3", "4", "5", "7", "8"]
    assert "not JSON" in lines[0] and "field 'question': Field required" in lines[1]
    assert "field 'expect_sources'" in lines[2] and "field 'expect': unknown field" in lines[3]
    assert "not a JSON object" in lines[4] and "blank" in lines[5]
    code, _, err = run(capsys, "audit", "list")
    assert "empty" in err  # not one question was asked
    code, _, err = run(capsys, "eval", str(tmp_path / "nope.jsonl"))
    assert code == EXIT_USAGE and "no such question file" in err
    code, _, err = run(capsys, "eval", "--fail-on", "recall")
    assert code == EXIT_USAGE and "--compare" in err
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    code, _, err = run(capsys, "eval", str(tmp_path / "q.jsonl"), "--prompt", str(tmp_path / "empty.md"))
    assert code == EXIT_USAGE and "the prompt file is empty" in err
    code, _, err = run(capsys, "eval", "--kb", str(tmp_path / "own.jsonl"))
    assert code == EXIT_USAGE and "give the question file for your knowledge base" in err
    with pytest.raises(SystemExit):
        main(["eval", "--concurrency", "0"])


def _scripted_b(scripted_server) -> None:
    """Prompt B's model: cites the retired 7-day source for cystitis, answers the others as before."""
    scripted_server.play({
        "chat": [
            sc.answer(f"Uncomplicated cystitis in women is treated with trimethoprim for 7 days. [{CYSTITIS_OLD}]"),
            sc.answer("For adults aged 55 or over, a calcium-channel blocker such as amlodipine is the usual "
                      f"first-line drug. [{AMLO}]"),
            sc.answer("The knowledge base I was given does not cover Lyme disease."),
        ],
        "grounding": [sc.fill()],
    })  # fmt: skip


def test_a_changed_prompt_recorded_replayed_and_compared(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, tmp_path: Path, scripted_server
) -> None:
    qs = write_questions(tmp_path / "q.jsonl", SMALL)
    (tmp_path / "a.txt").write_text("Answer from the sources. Cite every sentence.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Answer briefly. PROMPT-B.", encoding="utf-8")
    a_dir, b_dir = tmp_path / "cassettes-a", tmp_path / "cassettes-b"
    code, _, _ = run(capsys, "eval", str(qs), "--prompt", str(tmp_path / "a.txt"), "--record", str(a_dir),
                     "--json", str(tmp_path / "a.json"))  # fmt: skip
    assert code == 0 and len(list(a_dir.glob("*.jsonl"))) == 3
    _scripted_b(scripted_server)
    code, _, _ = run(capsys, "eval", str(qs), "--base-url", scripted_server.url, "--model", "scripted",
                     "--prompt", str(tmp_path / "b.txt"), "--record", str(b_dir), "--json", str(tmp_path / "b.json"))  # fmt: skip
    assert code == 0
    # The prompt reached the model: it is the system message of every recorded answer request.
    cassette = next(b_dir.glob("q001-*.jsonl")).read_text(encoding="utf-8")
    assert "PROMPT-B" in cassette and "Cite every sentence" in next(a_dir.glob("q001-*.jsonl")).read_text()

    # Replayed, each run gives what it gave live: no model, no server.
    for name, folder in (("a", a_dir), ("b", b_dir)):
        code, _, _ = run(capsys, "eval", str(qs), "--replay", str(folder), "--speed", "0",
                         "--json", str(tmp_path / f"{name}2.json"))  # fmt: skip
        live, replayed = load_run(tmp_path / f"{name}.json"), load_run(tmp_path / f"{name}2.json")
        assert code == 0 and replayed.backend == "replay"
        assert [x.model_dump(exclude={"audit_id", "ttft", "total"}) for x in replayed.results] == [
            x.model_dump(exclude={"audit_id", "ttft", "total"}) for x in live.results
        ]
    b2 = load_run(tmp_path / "b2.json")
    assert (
        b2.results[0].retired == 1
        and b2.results[0].shown == []
        and b2.summary.flagged_rate == pytest.approx(1 / 3, abs=1e-4)
    )

    a2, b2p = str(tmp_path / "a2.json"), str(tmp_path / "b2.json")
    code, out, _ = run(capsys, "eval", "--compare", a2, b2p, "--json", str(tmp_path / "cmp.json"))
    assert code == 0
    assert "answers flagged                    0.0%       33.3%    +33.3 pp  worse" in out
    assert "citation recall                  100.0%       50.0%    -50.0 pp  worse" in out
    assert "Questions whose answer changed (1):" in out
    assert f"newly flagged; lost a verified citation: {CYSTITIS}" in out
    assert json.loads((tmp_path / "cmp.json").read_text())["questions"][0]["line_b"] == 1

    code, _, err = run(capsys, "eval", "--compare", a2, b2p, "--fail-on", "flagged_rate,complete_rate")
    assert code == 1 and "worse than A on flagged_rate" in err
    assert run(capsys, "eval", "--compare", a2, b2p, "--fail-on", "recall")[0] == 1
    assert run(capsys, "eval", "--compare", a2, b2p, "--fail-on", "complete_rate,unchecked_rate")[0] == 0
    assert run(capsys, "eval", "--compare", b2p, a2, "--fail-on", "flagged_rate,recall")[0] == 0  # B better
    code, _, err = run(capsys, "eval", "--compare", a2, b2p, "--fail-on", "flaggd_rate")
    assert code == EXIT_USAGE and "unknown metric flaggd_rate" in err and "flagged_rate" in err
    code, _, err = run(capsys, "eval", "--compare", a2, str(qs))
    assert code == EXIT_USAGE and "not a run written by hippo-tui eval --json" in err


def test_replay_names_the_questions_without_a_cassette(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, tmp_path: Path
) -> None:
    qs = write_questions(tmp_path / "q.jsonl", SMALL[:1])
    assert run(capsys, "eval", str(qs), "--record", str(tmp_path / "c"))[0] == 0
    more = write_questions(tmp_path / "more.jsonl", SMALL[:2])
    code, out, err = run(capsys, "eval", str(more), "--replay", str(tmp_path / "c"))
    assert code == EXIT_USAGE and out == ""
    assert "no cassette for line 2: What is the first-line drug" in err


def test_ctrl_c_stops_cleanly_keeping_what_finished(hippo_home: Path, tmp_path: Path) -> None:
    """SIGINT to a real process: the run stops, the finished questions are written and summarised, exit 130."""
    config = tmp_path / "config.toml"
    config.write_text("offline_tokens_per_second = 15\n", encoding="utf-8")  # slow enough to stop mid-answer
    qs = write_questions(tmp_path / "q.jsonl", SMALL * 3)
    out = tmp_path / "run.json"
    env = {**os.environ, "HIPPO_CONFIG": str(config), "HIPPO_HOME": str(hippo_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hippo_tui", "eval", str(qs), "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        # No clock: the run is finite, so a run that never writes a result ends and fails the assert below.
        while not (out.exists() and load_run(out).results):  # the first question has finished
            assert proc.poll() is None, "the run ended before it was stopped"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    r = load_run(out)
    assert r.interrupted and 1 <= len(r.results) < 9 and r.total_questions == 9
    assert all(x.outcome == "complete" for x in r.results) and r.summary.questions == len(r.results)
    assert f"Stopped: {len(r.results)} of 9 questions ran." in stdout and "Stopping:" in stderr
    assert "citation recall" in stdout  # the summary of what ran
    audit = subprocess.run(
        [sys.executable, "-m", "hippo_tui", "audit", "list", "--json"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    outcomes = [json.loads(line)["outcome"] for line in audit.stdout.splitlines()]
    # The answer being written when ctrl+c came is recorded as cancelled; nothing is left in flight.
    assert outcomes.count("complete") == len(r.results) and set(outcomes) <= {"complete", "cancelled"}
    assert outcomes.count("cancelled") <= 1


def test_on_a_terminal_a_progress_bar_shows_and_esc_stops_the_run(hippo_home: Path, tmp_path: Path) -> None:
    """stdin and stderr on a pseudo-terminal: Rich's bar draws on stderr, and Esc stops the run like ctrl+c."""
    config = tmp_path / "config.toml"
    config.write_text("offline_tokens_per_second = 15\n", encoding="utf-8")
    qs = write_questions(tmp_path / "q.jsonl", SMALL * 3)
    out = tmp_path / "run.json"
    env = {**os.environ, "HIPPO_CONFIG": str(config), "HIPPO_HOME": str(hippo_home), "COLUMNS": "100"}
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hippo_tui", "eval", str(qs), "--json", str(out)],
        stdin=slave, stdout=subprocess.PIPE, stderr=slave, text=True, env=env,
    )  # fmt: skip
    os.close(slave)
    screen: list[bytes] = []

    def drain() -> None:  # the bar redraws often: a pty nobody reads would fill and block the run
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            screen.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        # No clock: the run is finite, so a run that never writes a result ends and fails the assert below.
        while not (out.exists() and load_run(out).results):
            assert proc.poll() is None, "the run ended before it was stopped"
            time.sleep(0.05)
        os.write(master, b"\x1b")
        stdout, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
        reader.join(timeout=5)
        os.close(master)
    drawn = b"".join(screen).decode("utf-8", "replace")
    assert proc.returncode == 130
    assert "/9" in drawn and "flagged" in drawn  # the bar: questions done of 9, and the tally
    assert "Stopping:" in drawn and "Stopped:" in stdout and load_run(out).interrupted
