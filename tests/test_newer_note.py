"""An answer citing an older edition while the same search found a newer one says so, with both dates."""

from __future__ import annotations

import io
from datetime import date

from hippo_tui.commands.ask_run import _print_human
from hippo_tui.engine.newer import with_newer
from hippo_tui.events import Citation, EndEvent
from hippo_tui.models import SearchHit


def _hit(sid: str, title: str, score: float, updated: date | None = None) -> SearchHit:
    return SearchHit(id=sid, title=title, snippet="", excerpt="Treat with nitrofurantoin.", score=score, updated=updated)


OLD = _hit("old", "Cystitis guideline", 10.0, date(2013, 3, 1))
NEW = _hit("new", "Cystitis guideline (2019 edition)", 9.8, date(2019, 5, 1))
CITED = Citation(id="old", number=1, title="Cystitis guideline", grounding="grounded")


def test_a_citation_of_an_older_edition_names_the_newer_one_and_both_dates():
    [c] = with_newer([CITED], {"old": OLD, "new": NEW})
    assert c.newer is not None
    assert "Cystitis guideline (2019 edition) (2019-05-01)" in c.newer and "2013-03-01" in c.newer


def test_no_note_when_nothing_newer_answers_as_well():
    weaker = _hit("new", "Cystitis guideline (2019 edition)", 4.0, date(2019, 5, 1))
    assert with_newer([CITED], {"old": OLD, "new": weaker})[0].newer is None  # it does not answer as well
    assert with_newer([CITED], {"old": OLD})[0].newer is None
    influenza = _hit("flu", "Influenza vaccination: who is eligible", 10.2, date(2025, 8, 15))
    assert with_newer([CITED], {"old": OLD, "flu": influenza})[0].newer is None  # another subject
    undated = _hit("old", "Cystitis guideline", 10.0)
    assert with_newer([CITED], {"old": undated, "new": NEW})[0].newer is None  # not known to be older


def test_ask_prints_the_note_under_the_citation():
    [c] = with_newer([CITED], {"old": OLD, "new": NEW})
    end = EndEvent(text="Treat with nitrofurantoin. [1]", citations=[c], audit_id=1)
    out = io.StringIO()
    _print_human(end, "", out, io.StringIO())
    lines = out.getvalue().splitlines()
    at = lines.index("[1] Cystitis guideline")
    assert lines[at + 1].startswith("    note: a newer document on this: Cystitis guideline (2019 edition)")
