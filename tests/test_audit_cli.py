"""`hippo-tui audit …`: list, show (every attempt with its status and reason), stats, export."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_USAGE, main
from hippo_tui.events import Citation
from hippo_tui.models import CitationAttempt, ResetRecord
from hippo_tui.store import Store
from hippo_tui.verification.coverage import measure

GOOD = "8920c0a1-c079-4734-86fe-6c9b0259cc70"
OLD = "e8562efb-5edc-44da-840a-c7806e0be0ae"
GHOST = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("HIPPO_CONFIG", str(config))
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _fill(home: Path) -> None:
    async def go() -> None:
        async with await Store.open(home / "hippo.db") as s:
            a = await s.begin_answer(question="How to treat cystitis?", model="alpha", backend="openai")
            await s.record_reset(
                a, ResetRecord(reason="tool_call", withdrawn="Let me check", withdrawn_chars=12, at=0.4)
            )
            await s.record_citations(a, [
                CitationAttempt(source_id=GOOD, claims=["Nitrofurantoin for 3 days."], check_one="confirmed",
                                check_two="grounded", shown=True, number=1, title="Cystitis"),
                CitationAttempt(source_id=OLD, claims=["Trimethoprim for 7 days."], check_one="retired",
                                reason="superseded by a newer source"),
                CitationAttempt(source_id=GHOST, claims=["Invented."], check_one="missing", reason="no such source"),
                CitationAttempt(source_id=GOOD, claims=["Culture everyone."], check_one="confirmed",
                                check_two="ungrounded", reason="the excerpt says culture is not needed"),
            ])  # fmt: skip
            final = "Nitro for 3 days [1]. Culture everyone."
            coverage = measure(final, [Citation(id=GOOD, number=1, title="Cystitis", grounding="grounded")])
            await s.finish_answer(a, raw_text="Let me check… Nitro [x]", final_text=final, outcome="complete",
                                  timings={"ttft": 0.2, "total": 1.5}, coverage=coverage)  # fmt: skip
            b = await s.begin_answer(question="Cancelled one", model="beta", backend="offline")
            await s.finish_answer(b, raw_text="Par", final_text="", outcome="cancelled", timings={})
            await s.begin_answer(question="In flight", model="beta", backend="offline")

    asyncio.run(go())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    code, out, err = run(capsys, "audit", "list")
    assert code == 0 and out == "" and "empty" in err
    _fill(home)
    code, out, _ = run(capsys, "audit", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert "in_flight" in lines[0] and "cancelled" in lines[1] and "complete" in lines[2]
    assert "4 cited, 1 shown, 2 flagged, 1 ungrounded" in lines[2]
    _, out, _ = run(capsys, "audit", "list", "--limit", "1", "--json")
    assert json.loads(out)["question"] == "In flight"


def test_show_lists_every_attempt_with_status_and_reason(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    _fill(home)
    code, out, _ = run(capsys, "audit", "show", "1")
    assert code == 0
    assert "How to treat cystitis?" in out and "alpha (openai)" in out
    assert "reset at 0.40 s: tool_call, 12 characters withdrawn" in out
    assert "raw text (withdrawn parts included)" in out and "Let me check" in out
    assert f"shown   confirmed, grounded    {GOOD} Cystitis" in out
    assert f"hidden  retired                {OLD}" in out and "superseded by a newer source" in out
    assert f"hidden  missing                {GHOST}" in out and "no such source" in out
    assert "confirmed, ungrounded" in out and "the excerpt says culture is not needed" in out
    assert "Nitro for 3 days [1]. Culture everyone. [unverified]" in out
    assert (
        "coverage: 1 of 2 statements backed by a verified source (unbacked ones marked [unverified])" in out
    )
    _, out, _ = run(capsys, "audit", "show", "1", "--json")
    assert json.loads(out)["coverage"] == {
        "statements": 2,
        "backed": 1,
        "unbacked": [[22, 39]],
        "abstained": False,
    }
    _, out, _ = run(capsys, "audit", "show", "2", "--json")
    assert json.loads(out)["outcome"] == "cancelled" and json.loads(out)["coverage"] is None
    _, out, _ = run(capsys, "audit", "show", "2")
    assert "coverage:" not in out  # a cancelled answer was never verified
    code, _, err = run(capsys, "audit", "show", "42")
    assert code == EXIT_USAGE and "no answer with id 42" in err


def _move_to_day(home: Path, answer_id: int, day: str) -> None:
    with sqlite3.connect(home / "hippo.db") as db:
        db.execute("UPDATE answers SET created = ? WHERE id = ?", (f"{day}T09:30:00.000+00:00", answer_id))


def test_stats_by_model(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    _fill(home)
    code, out, _ = run(capsys, "audit", "stats")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:5] == ["model", "answers", "citations", "flagged", "ungrounded"]
    # alpha: 4 citations, 2 flagged (missing, retired) and 1 ungrounded: 3 failed; 1 of 1 answers failed some.
    assert lines[0].split()[-2:] == ["abstained", "backed"]
    assert lines[1].split() == ["alpha", "1", "4", "50.0%", "25.0%", "0.0%", "100.0%", "0", "50.0%"]
    assert lines[2].split() == ["beta", "2", "0", "-", "-", "-", "0.0%", "0", "-"]
    retired = lines[lines.index("sources most often cited while retired:") + 1]
    assert retired.split()[:4] == ["1×", "in", "1", "answers"] and OLD in retired and "(superseded" in retired
    failed = lines[lines.index("answers with the most failed citations (audit show ID):") + 1]
    assert failed.split()[:5] == ["1", "3", "of", "4", "failed"] and "How to treat cystitis?" in failed


def test_stats_by_day_json(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    _fill(home)
    _move_to_day(home, 2, "2026-11-29")
    _move_to_day(home, 3, "2026-11-29")
    code, out, _ = run(capsys, "audit", "stats", "--by", "day", "--json")
    stats = json.loads(out)
    days = {g["key"]: g for g in stats["groups"]}
    assert code == 0 and stats["by"] == "day" and len(days) == 2
    assert days["2026-11-29"]["answers"] == 2 and days["2026-11-29"]["flagged_pct"] is None
    (today,) = (g for k, g in days.items() if k != "2026-11-29")
    assert today["answers"] == 1 and today["flagged_pct"] == 50.0 and today["answers_flagged_pct"] == 100.0
    assert [r["source_id"] for r in stats["retired_sources"]] == [OLD]
    assert stats["retired_sources"][0]["superseded_by"]  # the demo KB names its successor
    assert [(a["audit_id"], a["failed"], a["citations"]) for a in stats["most_failed"]] == [(1, 3, 4)]
    code, out, _ = run(capsys, "audit", "stats", "--by", "day")
    assert code == 0 and out.splitlines()[1].split()[0] == "2026-11-29"


def test_export_jsonl(capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path) -> None:
    _fill(home)
    code, out, _ = run(capsys, "audit", "export", "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["id"] for r in records] == [1, 2, 3]
    assert len(records[0]["citations"]) == 4 and records[0]["resets"][0]["withdrawn"] == "Let me check"
    target = tmp_path / "audit.jsonl"
    code, _, err = run(capsys, "audit", "export", "-o", str(target))
    assert code == 0 and "exported 3 answers" in err and len(target.read_text().splitlines()) == 3
    with pytest.raises(SystemExit):
        main(["audit", "export", "--format", "csv"])


def test_untrusted_model_text_is_inert_in_every_output(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    hostile = "Take \x1b[2J\x9b2J\u202eevil\x07 now"

    async def go() -> None:
        async with await Store.open(home / "hippo.db") as s:
            a = await s.begin_answer(question=hostile, model="m\x1b[31m", backend="b")
            await s.finish_answer(
                a, raw_text=hostile, final_text=hostile, outcome="error", timings={}, error=hostile
            )

    asyncio.run(go())
    for argv in (["audit", "show", "1"], ["audit", "show", "1", "--json"], ["audit", "list"], ["audit", "list", "--json"],
                 ["audit", "stats"]):  # fmt: skip
        code, out, _ = run(capsys, *argv)
        assert code == 0
        assert not any(c in out for c in "\x1b\x9b\u202e\x07"), argv
    _, out, _ = run(capsys, "audit", "show", "1", "--json")
    assert json.loads(out)["raw_text"] == hostile  # escaped, not altered
    # An export to a file (not a terminal) keeps readable UTF-8; JSON still escapes C0 controls.
    _, out, _ = run(capsys, "audit", "export")
    assert "\x1b" not in out and "\x07" not in out and json.loads(out)["error"] == hostile


def test_show_notes_an_answer_cut_at_the_output_limit(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    from hippo_tui.engine.answer import CUT_NOTE

    async def go() -> None:
        async with await Store.open(home / "hippo.db") as s:
            a = await s.begin_answer(question="Long one", model="alpha", backend="openai")
            await s.finish_answer(
                a, raw_text="Half", final_text="Half", outcome="complete", timings={}, error=CUT_NOTE
            )

    asyncio.run(go())
    code, out, _ = run(capsys, "audit", "show", "1")
    assert code == 0 and f"  note:     {CUT_NOTE}" in out and "error:" not in out
