"""Saying "not covered": a question the knowledge base has nothing on gets no answer from a nearby source.

Next to the in-KB quality set (tests/test_offline_quality.py, reused here): every out-of-KB question in
tests/data/out_of_kb_questions.jsonl abstains (says the knowledge base does not cover it, cites nothing),
while every in-KB question is still answered.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hippo_tui.events import EndEvent, Event
from hippo_tui.prompts import DEFAULT_SYSTEM_PROMPT
from tests.test_offline_quality import CASES, _ask_all

OUT_OF_KB = [
    json.loads(line)["question"]
    for line in (Path(__file__).parent / "data" / "out_of_kb_questions.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip()
]
SEMAGLUTIDE = "What is the starting dose of semaglutide for weight loss?"


@pytest.fixture(scope="module")
def ends(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HIPPO_HOME", str(home))
        found: dict[str, list[Event]] = asyncio.run(_ask_all(home, OUT_OF_KB + [c.question for c in CASES]))
    out = {}
    for q, events in found.items():
        assert isinstance(events[-1], EndEvent) and events[-1].outcome == "complete", events[-1]
        out[q] = events[-1]
    return out


def _abstains(end: EndEvent) -> bool:
    return "does not cover" in end.text and end.citations == [] and end.verification.attempted == 0


def test_every_out_of_kb_question_abstains(ends: dict[str, EndEvent]):
    assert len(OUT_OF_KB) >= 25 and SEMAGLUTIDE in OUT_OF_KB
    answered = {q: ends[q].text for q in OUT_OF_KB if not _abstains(ends[q])}
    assert answered == {}
    # Not the proton pump inhibitor source that shares "weight loss" and "dose" with it.
    assert "proton pump" not in ends[SEMAGLUTIDE].text and "semaglutide" in ends[SEMAGLUTIDE].text


def test_every_in_kb_question_is_still_answered(ends: dict[str, EndEvent]):
    unanswered = [
        c.question
        for c in CASES
        if "does not cover" in ends[c.question].text or not ends[c.question].citations
    ]
    assert unanswered == []


def test_real_models_are_told_to_say_so_and_cite_nothing():
    prompt = DEFAULT_SYSTEM_PROMPT.lower()
    assert "do not cover the question" in prompt and "cite nothing" in prompt


def test_coverage_tells_an_abstention_from_an_answer(ends: dict[str, EndEvent]):
    # The end event's coverage recognises the answerer's "not covered" sentence (hippo_tui.verification.coverage).
    assert [q for q in OUT_OF_KB if not ends[q].coverage.abstained] == []
    in_kb = [ends[c.question].coverage for c in CASES]
    assert not any(c.abstained for c in in_kb) and all(c.backed == c.statements > 0 for c in in_kb)
