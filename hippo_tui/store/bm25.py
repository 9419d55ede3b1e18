"""Okapi BM25 as SQLite's FTS5 computes it (k1 1.2, b 0.75, column weights multiplying term counts, the
document length in tokens over all columns), in Python: a backend without it (PostgreSQL's ``ts_rank`` has
no IDF) re-scores its candidates with this so both backends order results alike."""

from __future__ import annotations

import math
from collections.abc import Mapping

K1, B = 1.2, 0.75
# title > section > excerpt > body; FTS5 indexes no section, and uses 8, 4, 1 for the other three.
WEIGHTS: Mapping[str, float] = {"A": 8.0, "B": 6.0, "C": 4.0, "D": 1.0}


def idf(total: int, containing: int) -> float:
    """FTS5's IDF, floored at a tiny positive value for words found in more than half the rows."""
    value = math.log((total - containing + 0.5) / (containing + 0.5))
    return value if value > 0 else 1e-6


def score(
    counts: Mapping[str, Mapping[str, int]], idfs: Mapping[str, float], length: int, avg_length: float
) -> float:
    """A row's BM25 (higher is better): ``counts`` is word -> column -> occurrences in this row."""
    norm = K1 * (1 - B + B * length / (avg_length or 1.0))
    total = 0.0
    for word, columns in counts.items():
        f = sum(WEIGHTS[c] * n for c, n in columns.items())
        if f > 0:
            total += idfs[word] * f * (K1 + 1) / (f + norm)
    return total
