"""Which of a question's words a search ranks on, so that its cost stays bounded on a large knowledge base.

Ranking costs in proportion to the rows the ranked words are found in. Past RANK_BUDGET rows the candidates
are the rows of the rarest words that fit it (always the rarest one, so a question of common words still
finds its sources), and the commoner words, up to COMMON_BUDGET rows more, still rank those candidates:
left out, "aspirin dose after a stroke" put a passage on aspirin for stroke prevention above the one giving
its dose (the real corpus, development half: hit@3 88 -> 92%, held half 76 -> 83%). A commoner word in more
than half the rows is left out: BM25 gives it no weight. Plain Python, shared by both backends.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

RANK_BUDGET = 2000  # rows whose words find the candidates (the rows bm25 scores)
COMMON_BUDGET = 20_000  # rows the commoner words may add, to rank those candidates on
# The rare words' bm25 weighs this many times the commoner words'. At equal weight a long table, index or form
# that lists many commoner words ("pregnant", "woman", "treatment", "help") outranked the card on the rare word,
# and the answerer quoted it (a 2,000-character antenatal table for a perimortem caesarean question; a book's
# index for tick bite fever). Development half, kb search MRR by the commoner words' share: 0 -> .838,
# .25 -> .847, 1/3 -> .850, .5 -> .835, 1 -> .843.
RARE_WEIGHT = 3


def ranked_words(
    dfs: Mapping[str, int], rows: int, narrowing: Collection[str] = ()
) -> tuple[list[str], list[str]]:
    """(the words that find the candidates, the commoner words that also rank them), each rarest first.

    ``dfs`` is each word's count of rows holding it (a word found nowhere is left out); ``rows`` the rows
    in all. A small knowledge base keeps every word in the first list. The ``narrowing`` words (``narrowing``)
    never find the candidates but the rarest of a question made of nothing else; they rank them as the
    commoner words do.
    """
    found = sorted((w in narrowing, df, w) for w, df in dfs.items() if df > 0)
    rare: list[str] = []
    total = 0
    for narrows, df, w in found:
        if rare and (narrows or total + df > RANK_BUDGET):
            break
        rare.append(w)
        total += df
    common: list[str] = []
    total = 0
    for _, df, w in sorted(found[len(rare) :], key=lambda x: x[1:]):
        if 2 * df > rows or total + df > COMMON_BUDGET:
            break
        common.append(w)
        total += df
    return rare, common
