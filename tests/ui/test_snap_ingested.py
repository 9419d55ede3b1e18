"""The audit panel on an answer that cites an ingested PDF: the attempt says where the passage comes from
("Document › Section, p. 2"), as the sidebar does.

The record is real: a PDF made by the tests is ingested into a real store, the offline engine answers from
it, and the store reads the record back. Only its clock (asked at, timings) is pinned for the snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent
from hippo_tui.ingest.reading import Overrides, collect
from hippo_tui.ingest.run import ingest_paths
from hippo_tui.models import AnswerRecord
from hippo_tui.store import Store
from hippo_tui.ui.app import HippoApp
from tests.support.asking import ask_once
from tests.support.documents import pdf_bytes
from tests.support.scripted import ScriptedEngine, ScriptedStore, answer_events
from tests.ui.test_snap_panels import PROMPT, SIZES, open_panel

QUESTION = "What amoxicillin dose for children?"
PAGES = [
    [
        "Give amoxicillin 500 mg three times daily for 5 days to adults.",
        "Reduce the dose in severe renal impairment.",
    ],
    ["Children are given amoxicillin 40 mg/kg a day in three doses.", "Review the child at 48 hours."],
]


async def _record(home: Path, folder: Path) -> AnswerRecord:
    async with Store.open(home / "hippo.db", seed=None, kb_name="clinic") as store:
        paths = collect([folder])
        await ingest_paths(store, paths, overrides=Overrides(), when=datetime(2026, 11, 30, tzinfo=UTC))
    engine = await Engine.create(Settings(home=home, offline_tokens_per_second=0))
    try:
        end = (await ask_once(engine, QUESTION))[-1]
        assert isinstance(end, EndEvent) and end.audit_id is not None
        record = await engine.store.get_answer(end.audit_id)
    finally:
        await engine.close()
    assert record is not None
    # The passage's id comes from the document's path, here a temporary folder: pinned with the clock.
    pinned = [
        a.model_copy(update={"source_id": f"5e1f0c3a-9d2b-5c47-8a61-{i:012d}"})
        for i, a in enumerate(record.citations)
    ]
    return record.model_copy(
        update={
            "id": 42,
            "citations": pinned,
            "created": "2026-12-01T09:30:00.000+00:00",
            "timings": {"first_text": 0.05, "total": 0.2},
        }
    )


@pytest.fixture
def pdf_record(tmp_path: Path) -> AnswerRecord:
    folder = tmp_path / "guidance"
    folder.mkdir()
    outline = [("Adults", 0), ("Children", 1)]
    (folder / "amoxicillin.pdf").write_bytes(pdf_bytes(PAGES, title="Amoxicillin guideline", outline=outline))
    home = tmp_path / "home"
    home.mkdir()
    return asyncio.run(_record(home, folder))


@pytest.fixture
def pdf_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pdf_record: AnswerRecord
) -> Callable[[], HippoApp]:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)

    def make() -> HippoApp:
        store = ScriptedStore()
        store.records[42] = pdf_record
        engine = ScriptedEngine(answer_events(audit_id=42), store=store)
        engine.system_prompt = PROMPT
        return HippoApp(Settings(home=tmp_path, offline_tokens_per_second=0), engine=engine, animate=False)

    return make


def test_the_record_names_the_page(pdf_record: AnswerRecord) -> None:
    (attempt,) = [a for a in pdf_record.citations if a.shown]
    assert (attempt.title, attempt.where) == (
        "Amoxicillin guideline › Children",
        "Amoxicillin guideline › Children, p. 2",
    )


@pytest.mark.parametrize("size", SIZES)
def test_audit_of_an_ingested_pdf_citation(snap_compare, pdf_app, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pdf_app(), terminal_size=size, run_before=open_panel("show_audit", ask=True))
