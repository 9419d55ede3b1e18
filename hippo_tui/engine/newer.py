"""Saying so when newer guidance exists: a cited passage whose document has a later edition among the
passages retrieved for the same question (answering as well: ``store.recency``) gets a note naming both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hippo_tui.events import Citation
from hippo_tui.models import SearchHit
from hippo_tui.safe_text import one_line
from hippo_tui.store.recency import hit_edition, newer_alternative


def newer_note(cited: SearchHit, hits: Sequence[SearchHit]) -> str | None:
    """ "a newer document on this: <title> (2019); this one is of 2013", or None."""
    alt = newer_alternative(cited, hits)
    if alt is None:
        return None
    return f"a newer document on this: {one_line(alt.title)} ({hit_edition(alt)}); this one is of {hit_edition(cited)}"


def with_newer(citations: Sequence[Citation], context: Mapping[str, SearchHit]) -> list[Citation]:
    """``citations`` with ``newer`` set where the question's own search found a later edition."""
    hits = list(context.values())
    out = []
    for c in citations:
        hit = context.get(c.id)
        note = newer_note(hit, hits) if hit is not None else None
        out.append(c.model_copy(update={"newer": note}) if note else c)
    return out
