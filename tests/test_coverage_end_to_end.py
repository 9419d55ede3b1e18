"""Coverage through the whole path: the engine (offline, and against the scripted SSE server), `ask` readable
and --json, `verify`, and the audit record."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_OK, main
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import Coverage, EndEvent, parse_event
from hippo_tui.store import Store
from tests.support import scenarios as sc
from tests.support.asking import ask_once

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug (demo KB)
AMLO_CLAIM = "Amlodipine is commonly started at 5 mg once daily."
UNBACKED = "Review the blood pressure after 4 weeks."


async def _end(engine: Engine, question: str) -> EndEvent:
    events = await ask_once(engine, question)
    assert isinstance(events[-1], EndEvent)
    return events[-1]


async def test_offline_answers_are_backed_and_recorded(hippo_home: Path, store: Store):
    engine = await Engine.create(Settings(home=hippo_home, offline_tokens_per_second=0), store=store)
    try:
        end = await _end(engine, "What dose of amlodipine?")
        out_of_kb = await _end(engine, "What is the antidote to zebrafish venom?")
    finally:
        await engine.close()
    cov = end.coverage
    assert cov.statements >= 1 and cov.backed == cov.statements and cov.unbacked == []
    assert (await store.get_answer(end.audit_id)).coverage == cov
    assert out_of_kb.citations == [] and out_of_kb.coverage == Coverage(abstained=True)
    assert (await store.get_answer(out_of_kb.audit_id)).coverage.abstained


def _ask(capsys: pytest.CaptureFixture[str], server, *extra: str) -> tuple[int, str]:
    code = main(["ask", "amlodipine starting dose", "--base-url", server.url, "--model", "scripted", *extra])
    return code, capsys.readouterr().out


def _record(home: Path, answer_id: int):
    async def read():
        async with await Store.open(home / "hippo.db") as s:
            return await s.get_answer(answer_id)

    return asyncio.run(read())


def test_ask_marks_what_no_verified_source_backs(capsys, scripted_server, hippo_home):
    answer = f"## Dosing\n\n{AMLO_CLAIM} [{AMLO}] {UNBACKED}\n\nSources:\n- [{AMLO}] Hypertension"
    scripted_server.play({"chat": [sc.answer(answer)], "grounding": [sc.grounding({AMLO: True})]})
    code, out = _ask(capsys, scripted_server)
    assert code == EXIT_OK
    assert f"{AMLO_CLAIM} [1] {UNBACKED} [unverified]\n" in out
    assert out.count("[unverified]") == 2  # the statement, and the legend
    assert out.rstrip().endswith(
        "Coverage: 1 of 2 statements backed by a verified source; unbacked ones marked [unverified]."
    )
    code, out = _ask(capsys, scripted_server, "--json")
    end = parse_event(out.splitlines()[-1])
    assert isinstance(end, EndEvent) and (end.coverage.statements, end.coverage.backed) == (2, 1)
    (span,) = end.coverage.unbacked
    assert end.text[span[0] : span[1]] == UNBACKED
    assert json.loads(out.splitlines()[-1])["coverage"]["unbacked"] == [list(span)]
    assert _record(hippo_home, end.audit_id).coverage == end.coverage


def test_a_statement_whose_citation_failed_check_two_is_unbacked(capsys, scripted_server, hippo_home):
    answer = f"{AMLO_CLAIM} [{AMLO}] Amlodipine is started at 50 mg. [{AMLO}]"
    scripted_server.play({"chat": [sc.answer(answer)], "grounding": [sc.grounding({AMLO: False})]})
    code, out = _ask(capsys, scripted_server)
    assert code == EXIT_OK
    assert f"{AMLO_CLAIM} [unverified] Amlodipine is started at 50 mg. [unverified]" in out
    assert "Coverage: Nothing in this answer was checked against a source; unbacked ones marked" in out


def test_an_answer_citing_nothing_says_nothing_was_checked(capsys, scripted_server, hippo_home):
    scripted_server.play({"chat": [sc.answer(f"{AMLO_CLAIM} {UNBACKED}")]})
    code, out = _ask(capsys, scripted_server)
    assert code == EXIT_OK
    assert f"{AMLO_CLAIM} [unverified] {UNBACKED} [unverified]" in out
    assert "Not verified: the answer cites no source, so nothing in it was checked." in out
    assert "Verification: no citations." not in out


def test_a_model_saying_the_sources_do_not_cover_it_abstains(capsys, scripted_server, hippo_home):
    scripted_server.play({"chat": [sc.answer("The sources do not cover semaglutide for weight loss.")]})
    code, out = _ask(capsys, scripted_server, "--json")
    end = parse_event(out.splitlines()[-1])
    assert code == EXIT_OK and isinstance(end, EndEvent) and end.coverage.abstained
    code, out = _ask(capsys, scripted_server)
    assert "[unverified]" not in out
    assert "The knowledge base does not cover this question: the answer says so, and cites nothing." in out


def test_verify_reports_coverage(capsys, hippo_home, tmp_path):
    path = tmp_path / "answer.md"
    path.write_text(f"Options:\n\n- {AMLO_CLAIM} [{AMLO}]\n- {UNBACKED}\n", encoding="utf-8")
    main(["verify", str(path)])
    out = capsys.readouterr().out
    assert f"- {UNBACKED} [unverified]" in out
    assert "Coverage: 1 of 2 statements backed by a verified source." in out
    main(["verify", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    cov = report["summary"]["coverage"]
    assert (cov["statements"], cov["backed"], cov["abstained"]) == (2, 1, False)
    ((start, end),) = cov["unbacked"]
    assert report["text"][start:end] == UNBACKED
    assert _record(hippo_home, report["summary"]["audit_id"]).coverage.backed == 1
