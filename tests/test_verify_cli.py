"""`hippo-tui verify FILE`: an answer written elsewhere, checked against the knowledge base and audited."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_OK, EXIT_STORE, EXIT_USAGE, main
from hippo_tui.commands.verify import EXIT_FLAGGED, EXIT_NOT_ALL_CHECKED
from hippo_tui.events import Citation
from hippo_tui.export import Turn, answer_with_citations, to_json, to_markdown
from hippo_tui.store import Store
from tests.support import scenarios as sc

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug
CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"  # Uncomplicated cystitis in adults
RETIRED = "5b0d2bf0-a79c-4ce5-b758-d85dcd04650b"  # retired in the demo KB
NOWHERE = "00000000-0000-4000-8000-000000000000"
AMLO_CLAIM = "Amlodipine is commonly started at 5 mg once daily."
CYSTITIS_CLAIM = "Nitrofurantoin 100 mg modified-release twice daily for 3 days is first-line if the eGFR is 45 or more."


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["verify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli(home: Path, *argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    cmd = [sys.executable, "-m", "hippo_tui", "verify", *argv]
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=60, env=env, check=False)


def answers(home: Path) -> list:
    async def read() -> list:
        async with await Store.open(home / "hippo.db") as store:
            return await store.list_answers()

    return asyncio.run(read())


def two_turns() -> list[Turn]:
    return [
        Turn(
            question="What about cystitis?",
            text=f"{CYSTITIS_CLAIM} [1]",
            citations=[Citation(id=CYSTITIS, number=1, title="Cystitis", grounding="grounded")],
            audit_id=3,
        ),
        Turn(
            question="What dose of amlodipine?",
            text=f"{AMLO_CLAIM} [1]",
            citations=[Citation(id=AMLO, number=1, title="Hypertension", grounding="grounded")],
            audit_id=4,
        ),
    ]


@pytest.mark.parametrize("form", ["md", "json"])
def test_an_exported_conversation_checks_its_last_answer(capsys, hippo_home, tmp_path, form):
    path = tmp_path / f"conversation.{form}"
    path.write_text(to_markdown(two_turns()) if form == "md" else to_json(two_turns()), encoding="utf-8")
    code, out, err = run(capsys, str(path), "--json")
    assert code == EXIT_OK, err
    report = json.loads(out)
    assert set(report) == {"citations", "summary", "text"}
    (c,) = report["citations"]
    assert {k: c[k] for k in ("id", "check_one", "check_two", "shown", "claims", "reason")} == {
        "id": AMLO,
        "check_one": "confirmed",
        "check_two": "grounded",
        "shown": True,
        "claims": [AMLO_CLAIM],
        "reason": "",
    }
    assert report["text"] == f"{AMLO_CLAIM} [1]"
    assert report["summary"]["result"] == "passed" and report["summary"]["turn"] == 2
    (record,) = answers(hippo_home)
    assert (record.backend, record.model, record.question) == (
        "verify",
        "offline",
        "What dose of amlodipine?",
    )
    assert record.raw_text == f"{AMLO_CLAIM} [{AMLO}]" and record.grounding is not None
    assert record.id == report["summary"]["audit_id"]


def test_turn_picks_another_answer_and_says_which(capsys, hippo_home, tmp_path):
    path = tmp_path / "conversation.md"
    path.write_text(to_markdown(two_turns()), encoding="utf-8")
    code, out, _ = run(capsys, str(path), "--turn", "1")
    assert "conversation export (Markdown), answer 1 of 2" in out
    assert f"source     {CYSTITIS}" in out and AMLO not in out
    assert code == EXIT_OK and f"claim      {CYSTITIS_CLAIM}" in out
    code, _, err = run(capsys, str(path), "--turn", "3")
    assert code == EXIT_USAGE and "has answers 1 to 2; there is no answer 3" in err


def test_a_source_retired_since_the_export_is_flagged(capsys, hippo_home, tmp_path):
    path = tmp_path / "conversation.md"
    path.write_text(to_markdown(two_turns()), encoding="utf-8")
    assert main(["kb", "retire", AMLO, "--reason", "new guidance"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, str(path))
    assert code == EXIT_FLAGGED
    assert "result     FLAGGED: retired" in out and "reason     the source is retired" in out
    assert "Result: failed: 0 of 1 citations passed, 1 flagged." in out
    assert f"  {AMLO_CLAIM}\n" in out  # the text as checked: the flagged marker removed


def test_a_plain_text_answer_on_stdin_citing_a_retired_and_a_missing_source(hippo_home):
    text = f"{AMLO_CLAIM} [{AMLO}] Atenolol is first line. [{RETIRED}] Made up. [{NOWHERE}]\n"
    proc = cli(hippo_home, "-", "--json", stdin=text.encode())
    assert proc.returncode == EXIT_FLAGGED, proc.stderr
    report = json.loads(proc.stdout)
    assert [(c["id"], c["check_one"], c["shown"]) for c in report["citations"]] == [
        (AMLO, "confirmed", True),
        (RETIRED, "retired", False),
        (NOWHERE, "missing", False),
    ]
    assert report["text"] == f"{AMLO_CLAIM} [1] Atenolol is first line. Made up."
    assert report["summary"]["input"] == "text" and report["summary"]["result"] == "failed"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)), "is not text (it holds binary data)"),
        (b"caf\xe9 au lait [1]", "is not UTF-8 text"),
        (b"  \n\t\n", "is empty: there is no answer to check"),
        (
            b'{"name": "some other tool", "answer": 42}',
            "is JSON, but neither a hippo-tui conversation export",
        ),
        (b'{"type": "thinking", "text": "x"}\n{"broken', "line 2: not an event of `hippo-tui ask --json`"),
    ],
)
def test_garbage_is_a_usage_error_and_nothing_is_recorded(hippo_home, data, message):
    proc = cli(hippo_home, "-", stdin=data)
    assert proc.returncode == EXIT_USAGE and proc.stdout == b""
    assert message in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()
    assert answers(hippo_home) == []


def test_a_missing_file_is_a_usage_error(capsys, hippo_home, tmp_path):
    code, _, err = run(capsys, str(tmp_path / "nope.txt"))
    assert code == EXIT_USAGE and "nope.txt: No such file or directory" in err


def test_an_answer_citing_nothing_says_nothing_was_checked(capsys, hippo_home, tmp_path):
    path = tmp_path / "note.txt"
    path.write_text("Amlodipine is started at 5 mg once daily.\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert code == EXIT_NOT_ALL_CHECKED
    assert "Nothing in it was checked" in out and "Result: not all checked: the answer cites nothing." in out
    (record,) = answers(hippo_home)  # a check was made, and is on the record
    assert record.backend == "verify" and record.citations == [] and record.grounding is None


def test_a_copied_answer_and_numbers_without_a_source_list(capsys, hippo_home, tmp_path):
    turn = two_turns()[1]
    copied = tmp_path / "copied.txt"
    copied.write_text(answer_with_citations(turn), encoding="utf-8")
    code, out, _ = run(capsys, str(copied), "--json")
    assert code == EXIT_OK and [c["id"] for c in json.loads(out)["citations"]] == [AMLO]
    bare = tmp_path / "bare.txt"
    bare.write_text(f"{AMLO_CLAIM} [{AMLO}] See also [2].\n", encoding="utf-8")
    code, out, _ = run(capsys, str(bare))
    assert code == EXIT_NOT_ALL_CHECKED and "Not checked: [2] name no source id" in out


def test_a_numbered_list_citing_ids_is_the_answer_not_a_source_list(capsys, hippo_home, tmp_path):
    path = tmp_path / "list.md"
    path.write_text(f"Options:\n\n1. {AMLO_CLAIM} [{AMLO}]\n2. Review in 4 weeks.\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path), "--json")
    assert code == EXIT_OK and json.loads(out)["citations"][0]["claims"] == [AMLO_CLAIM]


def test_ask_json_output_is_checked_from_its_end_event(hippo_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(hippo_home)
    cmd = [sys.executable, "-m", "hippo_tui", "ask", "What dose of amlodipine?", "--json"]
    asked = subprocess.run(cmd, capture_output=True, timeout=60, env=env, check=True).stdout
    proc = cli(hippo_home, "-", "--json", stdin=asked)
    assert proc.returncode == EXIT_OK, proc.stderr
    report = json.loads(proc.stdout)
    end = json.loads(asked.splitlines()[-1])
    assert report["text"] == end["text"] and report["summary"]["input"] == "`ask --json` output"
    assert [c["id"] for c in report["citations"]] == [c["id"] for c in end["citations"]]


def test_the_servers_model_judges_with_base_url(scripted_server, hippo_home, tmp_path):
    scripted_server.play(sc.llama_cpp_python({AMLO: False}))
    path = tmp_path / "answer.txt"
    path.write_text(f"Amlodipine is started at 50 mg. [{AMLO}]\n", encoding="utf-8")
    proc = cli(hippo_home, str(path), "--json", "--base-url", scripted_server.url, "--model", "scripted")
    assert proc.returncode == EXIT_FLAGGED, proc.stderr
    report = json.loads(proc.stdout)
    assert report["citations"][0]["check_two"] == "ungrounded"
    assert report["summary"]["grounding_step"] == "json_object+schema"
    (record,) = answers(hippo_home)
    assert (record.backend, record.model) == ("verify", "scripted")
    assert record.grounding is not None and record.grounding.raw == json.dumps({AMLO: False})


def test_a_judge_that_cannot_be_reached_leaves_them_unchecked(capsys, hippo_home, tmp_path):
    path = tmp_path / "answer.txt"
    path.write_text(f"{AMLO_CLAIM} [{AMLO}]\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path), "--base-url", "http://127.0.0.1:9/v1", "--grounding-timeout", "5")
    assert code == EXIT_NOT_ALL_CHECKED
    assert (
        "result     unchecked" in out and "Verification unavailable: the server could not be reached" in out
    )


def test_untrusted_text_is_inert_in_the_report(capsys, hippo_home, tmp_path):
    path = tmp_path / "answer.txt"
    path.write_text(f"{AMLO_CLAIM} \x1b]0;owned\x07\x1b[31mred [{AMLO}]\n", encoding="utf-8")
    _, out, _ = run(capsys, str(path))
    assert "\x1b" not in out and "\x07" not in out


def test_a_database_that_is_not_one_is_a_store_error(capsys, hippo_home, tmp_path):
    (hippo_home / "hippo.db").write_text("not a database", encoding="utf-8")
    path = tmp_path / "answer.txt"
    path.write_text(f"{AMLO_CLAIM} [{AMLO}]\n", encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert code == EXIT_STORE and out == "" and "hippo.db" in err
