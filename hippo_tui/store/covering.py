"""Which of a document's passages stands for it: the one whose own words say most of the question.

BM25 scores a passage on its title, its excerpt and its body, and an ingested passage's body is the rest of
its section, so the passages of one section share most of their words: a one-line passage ("Transfer to
ICU") under a heading that names the question's words scores as well as the passage that answers, and the
answerer is given each document's best passage first. A passage's title and excerpt are what it says itself.
Among the candidates, each document's passages are put in order of their score raised by the share of the
question's words (each weighed by its IDF) that their title and excerpt hold, in the places that document's
passages held: which documents come first stays BM25's. Plain Python over the candidates, both backends.

Measured on the real corpora (the development half; the held-back half read as totals): a passage holding
the fact among kb search's top three 47 -> 49 of 78 (held 40 -> 40 of 72), among what the answerer is given
58 -> 58 (held 48 -> 50); `ask` cites the right document 81 -> 82% (held 57 -> 57%), holds the fact 71 -> 71%
(held 53 -> 54%). Reordering every candidate instead, not only within its document, cost the answers (held:
right document 57 -> 53%, fact 53 -> 50%) and was dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

from hippo_tui.store.bm25 import idf
from hippo_tui.store.wording import fold

R = TypeVar("R")

# A passage whose title and excerpt hold every word of the question scores this much more (a share of it for
# a share of them). Development half: 2 no better than 1 but for one passage more given to the answerer.
COVERAGE_WEIGHT = 1.0


@lru_cache(maxsize=8192)
def _folded(text: str) -> frozenset[str]:
    """A text's folded words. Cached: a section's passages share their title, and an answer's several
    searches meet the same passages again (folding was a quarter of a search's time)."""
    return frozenset((fold(text) or "").split())


def covered(texts: Sequence[str], words: Sequence[str], weights: Mapping[str, float]) -> float:
    """The share (0 to 1) of ``words``' weight that ``texts`` hold; a term of several words (a phrase the
    search gives, "cesare section") counts when all of them are there."""
    total = sum(weights.get(w, 0.0) for w in words)
    if total <= 0:
        return 0.0
    have = frozenset().union(*map(_folded, texts))
    return sum(weights.get(w, 0.0) for w in words if all(p in have for p in w.split())) / total


def within_documents(rows: Sequence[R], documents: Sequence[str], scores: Sequence[float]) -> list[R]:
    """``rows`` (best first) with each document's rows put in order of ``scores`` in the places its rows held."""
    places: dict[str, list[int]] = {}
    for i, doc in enumerate(documents):
        places.setdefault(doc, []).append(i)
    order = {doc: iter(sorted(held, key=lambda i: -scores[i])) for doc, held in places.items()}  # stable
    return [rows[next(order[doc])] for doc in documents]


def by_coverage(
    rows: Sequence[R],
    scores: Sequence[float],
    documents: Sequence[str],
    texts: Sequence[Sequence[str]],
    words: Sequence[str],
    dfs: Mapping[str, int],
    total: int,
) -> list[R]:
    """``rows`` (best first, ``scores`` higher is better) with each document's passages reordered by
    ``score * (1 + COVERAGE_WEIGHT * covered(text))``; ``texts`` are their titles and excerpts, ``dfs`` each
    word's count of the ``total`` rows holding it. Only passages whose document has another among ``rows``
    are read: a hand-written knowledge base (a document a passage) pays nothing."""
    count = Counter(documents)
    shared = [i for i, doc in enumerate(documents) if count[doc] > 1]
    if not shared or len(words) < 2:
        return list(rows)
    weights = {w: idf(total, dfs[w]) for w in words if dfs.get(w)}
    raised = list(scores)
    for i in shared:
        raised[i] *= 1 + COVERAGE_WEIGHT * covered(texts[i], words, weights)
    return within_documents(rows, documents, raised)
