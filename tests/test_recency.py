"""Newer guidance first: two editions that answer alike rank newest first, and a cited older one can name
the newer one beside it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from hippo_tui.models import SearchHit, Source
from hippo_tui.store import Store
from hippo_tui.store.recency import edition, hit_edition, newer_alternative, newest_first

TEXT = "Start dolutegravir-based first-line ART in adults; check viral load at six months."


def _source(i: int, title: str, updated: date | None, excerpt: str = TEXT) -> Source:
    return Source(id=f"00000000-0000-4000-8000-{i:012d}", title=title, excerpt=excerpt, updated=updated)


@pytest.mark.parametrize("order", [(2013, 2019), (2019, 2013)])
async def test_of_two_editions_that_answer_alike_the_newer_ranks_first(
    tmp_path: Path, order: tuple[int, int]
) -> None:
    async with Store.open(tmp_path / "hippo.db", seed=None) as store:
        await store.upsert(_source(i, "ART guideline", date(y, 3, 1)) for i, y in enumerate(order))
        await store.upsert([_source(9, "Viral load", None, "Viral load is checked at six months.")])
        hits = await store.search("first-line ART in adults", k=2)
        assert [h.updated for h in hits] == [date(2019, 3, 1), date(2013, 3, 1)]
        # A question that names an edition's year asks for that one.
        hits = await store.search("first-line ART in adults in the 2013 guideline", k=2)
        assert [h.updated for h in hits] == [date(2013, 3, 1), date(2019, 3, 1)]


def test_an_edition_is_its_date_else_the_latest_year_its_name_gives() -> None:
    assert edition(date(2019, 3, 1), "2013 guideline.pdf") == "2019-03-01"
    assert edition(None, "rudasa/2019 ART Guideline 28042020 pdf.pdf") == "2019"
    assert edition(None, "STG and EML_Hospital_Adult_2012c.pdf", "Standard treatment 2006") == "2012"
    assert edition(None, "PC 101 Guideline v2 2013 14.pdf") == "2013"
    assert edition(None, "cg117 tuberculosis.txt", None) is None


class _Row:
    def __init__(self, score: float) -> None:
        self.score = score


def test_only_rows_that_answer_as_well_and_have_a_date_move() -> None:
    rows = [_Row(10.0), _Row(9.8), _Row(9.7), _Row(5.0)]
    # The undated second row keeps its place; the 2019 one overtakes the 2013 one; the weak 2024 stays last.
    out = newest_first(rows, ["2013", None, "2019-01-01", "2024"])
    assert out == [rows[2], rows[1], rows[0], rows[3]]
    assert newest_first([], []) == []


def _hit(doc: str, score: float, updated: date | None) -> SearchHit:
    from hippo_tui.models import Provenance

    prov = Provenance(document=doc, version="v", ingested="2026-01-01T00:00:00Z")
    return SearchHit(id=f"00000000-0000-4000-8000-{sum(map(ord, doc)):012d}", title=doc, excerpt="x",
                     snippet="x", score=score, updated=updated, provenance=prov)  # fmt: skip


def test_a_cited_older_document_names_the_newer_one_that_answers_as_well() -> None:
    old = _hit("art-2013.pdf", 10.0, None)
    new = _hit("art-2019.pdf", 9.9, None)
    weak = _hit("art-2023.pdf", 3.0, None)
    assert newer_alternative(old, [old, new, weak]) == new
    assert (hit_edition(old), hit_edition(new)) == ("2013", "2019")
    assert newer_alternative(new, [old, new, weak]) is None  # nothing newer answers as well
    undated = _hit("art.pdf", 10.0, None)
    assert newer_alternative(undated, [undated, new]) is None  # unknown date: not known to be older


async def test_a_long_guideline_does_not_hide_the_short_card_that_answers(tmp_path: Path) -> None:
    from hippo_tui.models import Provenance

    def passage(i: int, doc: str, text: str) -> Source:
        prov = Provenance(document=doc, version="v", ingested="2026-01-01T00:00:00Z")
        return Source(id=f"00000000-0000-4000-8000-{i:012d}", title=doc, excerpt=text, provenance=prov)

    long_one = [
        passage(i, "stg.pdf", "Oral rehydration: ORS for dehydration in adults and children.")
        for i in range(6)
    ]
    card = passage(9, "gastro-card.md", "Give ORS 50 ml/kg over 4 hours for dehydration in a toddler.")
    async with Store.open(tmp_path / "hippo.db", seed=None) as store:
        await store.upsert([*long_one, card])
        hits = await store.search("ORS for dehydration", k=3)
        # Each document's best passage first: the card is second, not sixth.
        assert [h.provenance.document for h in hits if h.provenance] == [
            "stg.pdf",
            "gastro-card.md",
            "stg.pdf",
        ]
