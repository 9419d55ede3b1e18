"""A document's title as evidence of what it is about: a passage scores more when the question says the
words of its document's title ("Anaphylaxis", "Bell's Palsy Treatment", "Diarrhoea and Vomiting in Children").

BM25 weighs a passage's own words. A long general book ("Standard Treatment Guidelines and Essential Medicines
List") has a section on most subjects, each written with many of the question's words, and its passages
outrank the short card whose title names the very subject asked about. The share of the document title's
folded words that the question holds (not of the question's words the title holds: a general title naming
"treatment" or "guidelines" says little) raises each of its passages' scores; a document's passages keep
their order among themselves. Plain Python over the candidates, both backends.

Real corpora, kb search (development / held-back half, 245 / 222 answerable): hit@1 182/137 -> 189/148,
hit@3 225/186 -> 227/190, MRR .831/.735 -> .855/.773; hit@10 unchanged. The answerer does not use it
(``Store.search``'s ``titles``): given this order, its answers cited the right document less often on the
held-back half (of 198 then: 115 -> 113 at this weight, 110 at a weight of 1; 112 with a boost by the
question's share that the title holds instead), though more often on the development half.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

from hippo_tui.store.wording import fold

# A passage of a document whose title's words the question all says scores this much more (a share of it for a
# share of them). Development half, hit@3 by weight: 0.25 -> 203, 0.5 -> 205, 0.75 -> 204, 1 -> 203, 2 -> 203.
TITLE_WEIGHT = 0.5
R = TypeVar("R")
_PARTS = " › "  # a passage's title is its document's, then its sections' (ingest)


@lru_cache(maxsize=8192)
def _title_words(title: str) -> tuple[str, ...]:
    """The folded words of a passage's document title, numbers aside ("PC 101", "2019")."""
    head = title.split(_PARTS, 1)[0]
    return tuple(dict.fromkeys(w for w in (fold(head) or "").split() if not w.isdigit()))


def said(title: str, asked: frozenset[str]) -> float:
    """The share (0 to 1) of ``title``'s document title words that are among ``asked`` (folded words).

    Short words count too: a long title's "and" and "of" dilute it, so a short specific title counts more
    (measured: leaving them out cost development hit@3 205 -> 204)."""
    own = _title_words(title)
    return sum(w in asked for w in own) / len(own) if own else 0.0


def by_title(
    rows: Sequence[R],
    scores: Sequence[float],
    titles: Sequence[str],
    documents: Sequence[str | None],
    words: Sequence[str],
) -> list[tuple[float, R]]:
    """``rows`` with their ``scores`` (higher is better) each raised by ``1 + TITLE_WEIGHT * said(title)``, best
    first (stable: a document's passages keep their order). ``words`` are the search terms (folded, a phrase's
    words each counted). A row of no ``documents`` entry is its own document, a hand-written card whose title
    BM25 already weighs as its own: it is not raised."""
    asked = frozenset(p for w in words for p in w.split())
    raised = [
        s * (1 + TITLE_WEIGHT * said(t, asked)) if d else s
        for s, t, d in zip(scores, titles, documents, strict=True)
    ]
    return sorted(zip(raised, rows, strict=True), key=lambda x: -x[0])
