"""Coverage and provenance where a reader looks: the marked answer, the status line, the turn's footer and
the sidebar, as snapshots and as the words the app shows.

The coverage is the engine's own (``coverage.measure`` of the final text) and the ingested source's preview is
the engine's ``preview`` of a search hit with provenance, so the app shows what the engine would send.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from textual.pilot import Pilot

from hippo_tui.config import Settings
from hippo_tui.engine.answer import preview
from hippo_tui.events import (
    Citation,
    EndEvent,
    Event,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
    VerificationSummary,
)
from hippo_tui.models import Provenance, SearchHit
from hippo_tui.provenance import where
from hippo_tui.ui.app import HippoApp
from hippo_tui.verification.coverage import UNBACKED_MARK, measure
from tests.ui.fakes import QUESTION, ScriptedEngine, answer_events, play, until

SIZES = {"40x20": (40, 20), "80x24": (80, 24)}

UNCITED = (
    "Cystitis is usually treated with a short course of antibiotics. "
    "Drink plenty of fluids and review after 48 hours if symptoms persist.\n"
)
ABSTAINED = "The knowledge base does not cover the starting dose of semaglutide for weight loss.\n"

HIT = SearchHit(
    id="5d7e9f10-2a3b-4c4d-8e5f-6a7b8c9d0e11",
    title="Cystitis protocol › Treatment › First line",
    snippet="Give «nitrofurantoin» 100 mg modified-release twice daily for 3 days…",
    excerpt="Give nitrofurantoin 100 mg modified-release twice daily for 3 days.",
    score=1.0,
    publisher="Riverside clinic",
    updated=date(2026, 10, 1),
    provenance=Provenance(
        document="/srv/guidance/cystitis.pdf",
        section="first-line",
        page=3,
        version="ab" * 32,
        ingested="2026-11-30T09:00:00Z",
    ),
)
INGESTED_TEXT = "Nitrofurantoin 100 mg modified-release twice daily for 3 days is first line [1].\n"


def _with_coverage(events: list[Event]) -> list[Event]:
    """The events with the end's coverage measured as the engine measures it."""
    end = events[-1]
    assert isinstance(end, EndEvent)
    return [*events[:-1], end.model_copy(update={"coverage": measure(end.text, end.citations)})]


def _plain(text: str, sources: list, citations: list[Citation], attempted: int) -> list[Event]:
    return _with_coverage(
        [
            ThinkingEvent(text="Searching the knowledge base…", phase="searching", t=0.0),
            SourcesEvent(sources=sources, query=QUESTION, t=0.05),
            ThinkingEvent(text="Writing the answer…", phase="writing", t=0.1),
            TextEvent(delta=text, display=text, t=0.2),
            ThinkingEvent(text="Checking citations…", phase="checking", t=0.3),
            EndEvent(
                text=text,
                citations=citations,
                audit_id=7,
                verification=VerificationSummary(
                    attempted=attempted, confirmed=attempted, grounded=attempted
                ),
                backend="offline",
                model="offline",
                t=0.5,
            ),
        ]
    )


def unbacked_events() -> list[Event]:
    return _with_coverage(answer_events(audit_id=7))


def uncited_events() -> list[Event]:
    return _plain(UNCITED, [], [], 0)


def abstained_events() -> list[Event]:
    return _plain(ABSTAINED, [], [], 0)


def ingested_events() -> list[Event]:
    p = preview(HIT)
    citation = Citation(
        id=HIT.id, number=1, title=HIT.title, grounding="grounded", where=where(HIT.title, HIT.provenance)
    )
    return _plain(INGESTED_TEXT, [p], [citation], 1)


SCENARIOS = {"unbacked": unbacked_events, "uncited": uncited_events, "ingested": ingested_events}


def _app(home: Path, events: list[Event]) -> HippoApp:
    return HippoApp(
        Settings(home=home, offline_tokens_per_second=0), engine=ScriptedEngine(events), animate=False
    )


def _run(sidebar: bool = False):
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, HippoApp)
        await until(pilot, lambda: app.engine is not None and not app.prompt.disabled)
        await play(pilot, QUESTION, None)
        if sidebar and app.screen.has_class("-narrow"):
            await pilot.press("ctrl+b")  # thin: the sources are an overlay, opened on demand
        await pilot.pause()

    return run_before


@pytest.mark.parametrize(
    ("scenario", "size"),
    [
        ("unbacked", "80x24"),
        ("unbacked", "40x20"),
        ("uncited", "80x24"),
        ("ingested", "80x24"),
        ("ingested", "40x20"),
    ],
)
def test_coverage_snapshot(snap_compare, tmp_path, monkeypatch, scenario: str, size: str) -> None:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    app = _app(tmp_path, SCENARIOS[scenario]())
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_run(sidebar=scenario == "ingested"))


def _footer(app: HippoApp) -> str:
    return str(app.pane.turns[-1].footer.render())


async def _answer(pilot: Pilot, app: HippoApp) -> None:
    await until(pilot, lambda: app.engine is not None and not app.prompt.disabled)
    await play(pilot, QUESTION, None)
    await pilot.pause()


async def test_unbacked_statements_are_marked_and_counted(tmp_path) -> None:
    events = unbacked_events()
    end = events[-1]
    assert isinstance(end, EndEvent) and end.coverage.statements == 5 and end.coverage.backed == 2
    app = _app(tmp_path, events)
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer(pilot, app)
        source = app.pane.turns[-1].source
        assert source.count(UNBACKED_MARK.strip()) == 3
        assert "antibiotics." + UNBACKED_MARK in source and "first choice [1]." + UNBACKED_MARK not in source
        assert app.status.phase == "✓ 2 of 5 statements backed by a verified source"
        assert app.status.short_phase == "✓ 2/5 backed"
        assert "2 of 5 statements backed by a verified source · unbacked ones marked [unverified]" in _footer(
            app
        )
        # Copy and export say it too, with the marked text the reader saw.
        turn = app.turns[-1]
        assert turn.coverage == "2 of 5 statements backed by a verified source"
        assert UNBACKED_MARK in turn.text


async def test_an_answer_without_citations_says_nothing_was_checked(tmp_path) -> None:
    app = _app(tmp_path, uncited_events())
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer(pilot, app)
        assert app.status.phase == "⚠ Nothing in this answer was checked against a source"
        assert app.status.short_phase == "⚠ Nothing checked"
        assert app.status.has_class("-unchecked")  # looks different from a verified answer
        footer = _footer(app)
        assert "No citations in this answer" in footer and "⚠ Nothing in this answer was checked" in footer
        assert app.pane.turns[-1].footer.has_class("-unchecked")
        assert app.pane.turns[-1].source.count(UNBACKED_MARK.strip()) == 2


async def test_an_abstaining_answer_says_the_kb_does_not_cover_it(tmp_path) -> None:
    app = _app(tmp_path, abstained_events())
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer(pilot, app)
        assert app.status.phase == "○ The knowledge base does not cover this question"
        assert app.status.short_phase == "○ Not in the KB"
        assert not app.status.has_class("-unchecked")
        assert UNBACKED_MARK not in app.pane.turns[-1].source


@pytest.mark.parametrize("outcome", ["cancelled", "withdrawn"])
async def test_no_coverage_line_for_an_answer_that_did_not_complete(tmp_path, outcome: str) -> None:
    events = unbacked_events()
    end = events[-1]
    assert isinstance(end, EndEvent)
    events[-1] = end.model_copy(
        update={"outcome": outcome, "text": "" if outcome == "withdrawn" else end.text}
    )
    app = _app(tmp_path, events)
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer(pilot, app)
        assert "statements" not in app.status.phase and "backed" not in _footer(app)
        assert app.turns[-1].coverage is None and UNBACKED_MARK not in app.turns[-1].text


async def test_no_statements_no_zero_of_zero(tmp_path) -> None:
    events = _plain("## Options\n", [], [], 0)
    app = _app(tmp_path, events)
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer(pilot, app)
        assert "0 of 0" not in app.status.phase and "0 of 0" not in _footer(app)
        assert app.status.phase == "No citations in this answer"


async def test_sidebar_shows_where_an_ingested_passage_comes_from(tmp_path) -> None:
    assert preview(HIT).where == "Cystitis protocol › Treatment › First line, p. 3"
    app = _app(tmp_path, ingested_events())
    async with app.run_test(size=(120, 30)) as pilot:
        await _answer(pilot, app)
        titles = [str(s.render()) for s in app.sidebar.query(".title")]
        assert "[1] Cystitis protocol › Treatment › First line, p. 3" in titles
