"""What SQLite's FTS5 keeps about its own index, read without a scan.

FTS5 stores, in its ``<table>_data`` shadow table under id 1 (its "averages" record), the number of rows
the index holds and each column's total of tokens, as SQLite varints: bm25 reads them on every query. The
index holds the active sources only, so its row count is theirs: reading it takes a row lookup, where
``count(*)`` over ``sources`` walks an index of the whole table (11 ms at 100,000 sources, every new process).
"""

from __future__ import annotations

# The averages record of the search index (FTS5_AVERAGES_ROWID in SQLite's fts5Int.h).
AVERAGES_SQL = "SELECT block FROM sources_fts_data WHERE id = 1"


def varints(block: bytes) -> list[int]:
    """SQLite's varints one after another: big-endian groups of seven bits, the high bit saying another byte
    follows; a ninth byte gives all its eight bits."""
    out: list[int] = []
    i = 0
    while i < len(block):
        value = 0
        for n in range(9):
            byte = block[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def indexed_rows(block: bytes | None) -> int:
    """The rows an index holds, from its averages record (``AVERAGES_SQL``; none before its first row)."""
    return varints(block)[0] if block else 0
