"""Newer guidance first, and said so: which of several answering passages is the newest, and whether a cited
passage has a newer one from another document beside it.

A document's edition is its ``updated`` date; without one, the latest year its file name or title names
("2019 ART Guideline" is 2019, "STG 2012c" is 2012), as guideline families name their editions. Plain Python
over ranked results, no SQL: any backend ranks, then calls ``newest_first``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import date
from typing import TYPE_CHECKING, Protocol, TypeVar

from hippo_tui.store.query import terms
from hippo_tui.store.wording import fold_word

if TYPE_CHECKING:
    from hippo_tui.models import SearchHit

# A passage scoring at least this share of the best one answers as well, for ordering by date: two editions
# of one guideline share their text, so their passages score nearly alike. 0.9 cost the development half
# 6 points of hit@1 (an older edition the question was written on, or an unrelated newer card); 0.95 none.
ANSWERS_TOO = 0.95
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20[0-9]\d)(?!\d)")


class Ranked(Protocol):
    @property
    def score(self) -> float: ...


def edition(updated: date | str | None, *names: str | None) -> str | None:
    """When a document is of, as ISO text ("2019-03-01", or "2019" from a name), or None when unknown."""
    if updated:
        return updated.isoformat() if isinstance(updated, date) else str(updated)
    years = [y for name in names if name for y in _YEAR.findall(name)]
    return max(years) if years else None


def _key(edition_of: str | None) -> str:
    return edition_of or ""  # ISO text sorts as dates do; a year sorts before any date in that year


def years_named(question: str) -> frozenset[str]:
    """The years a question names ("the 2013 SA ART guidelines"): it asks for that edition, not the newest."""
    return frozenset(_YEAR.findall(question))


R = TypeVar("R", bound=Ranked)


def newest_first(rows: Sequence[R], editions: Sequence[str | None], asked: Collection[str] = ()) -> list[R]:
    """``rows`` (best first) with those of a known edition scoring within ANSWERS_TOO of the best put newest
    first, in the places such rows held: a row of unknown date keeps its rank (it is not known to be older).
    The editions of an ``asked`` year (``years_named``) come before the newer ones: development half of the
    real corpora, hit@3 73 -> 74 of 78 (held-back totals unchanged)."""
    out = list(rows)
    if not out:
        return out
    best = out[0].score
    places = [i for i, r in enumerate(out) if r.score >= ANSWERS_TOO * best and editions[i]]
    by_date = sorted(  # stable: ties keep their rank
        places, key=lambda i: (_key(editions[i])[:4] in asked, _key(editions[i])), reverse=True
    )
    for place, i in zip(places, by_date, strict=True):
        out[place] = rows[i]
    return out


def hit_edition(hit: SearchHit) -> str | None:
    p = hit.provenance
    return edition(hit.updated, p.document if p else None, hit.title)


def _title_words(title: str) -> set[str]:
    return {fold_word(w) for w in terms(title) if not any(c.isdigit() for c in w)}


def same_subject(a: str, b: str) -> bool:
    """Two titles name one subject: at least half the words of the shorter are the other's ("2013 ART
    Treatment Guidelines" and "2019 ART Clinical Guidelines"; not "UTI in pregnancy" and "Influenza
    vaccination"), years aside."""
    mine, theirs = _title_words(a), _title_words(b)
    return bool(mine and theirs) and 2 * len(mine & theirs) >= min(len(mine), len(theirs))


def newer_alternative(cited: SearchHit, hits: Sequence[SearchHit]) -> SearchHit | None:
    """The newest hit of another document on the same subject (``same_subject`` titles) that answers as well
    (within ANSWERS_TOO of ``cited``'s score) and is of a later edition than ``cited``, or None. For an answer
    to say "a newer document on this subject exists (its date)": ``hit_edition`` gives both dates. (A card on
    another subject that scores as well is not newer guidance on this one.)"""
    mine = hit_edition(cited)
    if mine is None:
        return None
    doc = cited.provenance.document if cited.provenance else cited.id
    newer = [
        h
        for h in hits
        if (h.provenance.document if h.provenance else h.id) != doc
        and h.score >= ANSWERS_TOO * cited.score
        and _key(hit_edition(h)) > mine
        and same_subject(cited.title, h.title)
    ]
    return max(newer, key=lambda h: _key(hit_edition(h)), default=None)
