"""What SQLite's FTS5 keeps about its own index, read without a scan.

Its vocabulary (``fts5vocab``, a virtual table over the index, nothing stored) gives a word's count of rows
in one lookup, as ``count(*) … MATCH`` does with an expression to parse and a cursor to open per word: a search
counts every word of its question, and each of the hundreds of words a typo may be a slip of (18 questions at
100,000 passages, counting: 85 -> 50 ms). The vocabulary holds the tokens as indexed, so a word is looked up
there only when the tokenizer would leave it as it is (``plain_token``); any other is matched.

FTS5 stores, in its ``<table>_data`` shadow table under id 1 (its "averages" record), the number of rows
the index holds and each column's total of tokens, as SQLite varints: bm25 reads them on every query. The
index holds the active sources only, so its row count is theirs: reading it takes a row lookup, where
``count(*)`` over ``sources`` walks an index of the whole table (11 ms at 100,000 sources, every new process).
"""

from __future__ import annotations

# The index's vocabulary, a row per word with its count of rows (``doc``), on each connection: in ``temp``, so
# the database file never holds it. Each asked word is looked up (the JSON array is the outer loop).
VOCABULARY_SQL = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.sources_vocab USING fts5vocab(main, sources_fts, row)"
ROWS_HOLDING_SQL = (
    "SELECT v.term, v.doc FROM json_each(?) AS w CROSS JOIN temp.sources_vocab AS v ON v.term = w.value"
)
# A word's count of rows by matching it: for a word the vocabulary may hold in another form.
MATCH_COUNT_SQL = "(SELECT count(*) FROM sources_fts WHERE sources_fts MATCH ?)"

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


def plain_token(word: str) -> bool:
    """The index's tokenizer (unicode61) keeps ``word`` as one token, as it is: lower-case ASCII letters and
    digits. Another word's token may differ (its case folded, a mark removed, split in two)."""
    return word.isascii() and word.isalnum() and word == word.lower()
