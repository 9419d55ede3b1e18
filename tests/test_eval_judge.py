"""`hippo-tui eval judge PAIRS.jsonl`: the offline judge and a model judge on a real loopback server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.cli import main
from tests.support import scenarios as sc

SUPPORTED = {
    "claim": "Give amoxicillin 500 mg three times a day for 5 days.",
    "excerpt": "Amoxicillin 500 mg three times daily for 5 days is the first choice.",
    "grounded": True,
    "kind": "paraphrase",
}
SWAPPED = {
    "claim": "Simvastatin 20 mg at night is the usual starting dose.",
    "excerpt": "Atorvastatin 20 mg at night is the usual starting dose.",
    "grounded": False,
    "kind": "drug",
}
ADDED = {
    "claim": "Amoxicillin 500 mg three times daily is first choice and prevents mastoiditis.",
    "excerpt": "Amoxicillin 500 mg three times daily for 5 days is the first choice.",
    "label": False,  # the older key is read too
    "kind": "added fact",
}


def pairs_file(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_offline_judge_is_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "judge.json"
    code = main(["eval", "judge", str(pairs_file(tmp_path, [SUPPORTED, SWAPPED, ADDED])), "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    report = json.loads(out.read_text())
    assert report["pairs"] == 3 and report["accuracy"] == 1.0 and report["false_grounded"] == 0
    assert report["judge"].startswith("offline")
    assert report["by_kind"]["drug"] == {"right": 1, "total": 1, "false_grounded": 0}
    assert "accuracy" in printed and "100.0%" in printed and "drug" in printed


def test_a_model_judge_is_asked_and_its_grounded_checked(
    tmp_path: Path, scripted_server: Any, capsys: pytest.CaptureFixture[str]
):
    # A model that calls everything grounded: the conflict checks catch the swapped drug, not the added fact.
    scripted_server.play({"grounding": [sc.fill()]})
    out = tmp_path / "judge.json"
    path = pairs_file(tmp_path, [SUPPORTED, SWAPPED, ADDED])
    argv = ["eval", "judge", str(path), "--base-url", scripted_server.url, "--model", "judge-m", "--json", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["judge"].startswith("judge-m at ")
    assert (report["false_grounded"], report["false_ungrounded"]) == (1, 0)
    assert report["by_kind"]["added fact"]["false_grounded"] == 1
    asked = [r["body"] for r in scripted_server.requests() if "response_format" in r["body"]]
    assert len(asked) == 1 and asked[0]["model"] == "judge-m"  # three pairs, one request
    capsys.readouterr()


def test_a_judge_that_answers_nothing_is_a_model_error(
    tmp_path: Path, scripted_server: Any, capsys: pytest.CaptureFixture[str]
):
    scripted_server.play({"grounding": [{"status": 401, "json": {"error": {"message": "bad key"}}}]})
    path = pairs_file(tmp_path, [SUPPORTED])
    assert main(["eval", "judge", str(path), "--base-url", scripted_server.url, "--model", "m"]) == 3
    assert "no verdict for any pair" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: not JSON"),
        ('{"claim": "x", "excerpt": "y"}', "line 1: 'grounded' must be true or false"),
        ('{"claim": "", "excerpt": "y", "grounded": true}', "line 1: needs a non-empty"),
    ],
)
def test_a_bad_pairs_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert main(["eval", "judge", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_eval_judge_without_a_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]):
    assert main(["eval", "judge"]) == 2
    assert "needs a pairs file" in capsys.readouterr().err
