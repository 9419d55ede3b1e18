"""The database schema, versioned with ``PRAGMA user_version``. Append migrations; never edit a shipped one."""

from __future__ import annotations

# Each migration is a list of single statements (triggers contain ';', so no naive splitting), run in
# one transaction together with the user_version bump.
_V1: list[str] = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE sources (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        excerpt TEXT NOT NULL,
        body TEXT,
        publisher TEXT,
        url TEXT,
        updated TEXT,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
        retired_reason TEXT,
        superseded_by TEXT
    )""",
    "CREATE INDEX sources_status ON sources (status, title)",
    # The index holds active sources only: search never has to filter retired rows out.
    """CREATE VIRTUAL TABLE sources_fts USING fts5 (
        title, excerpt, body,
        content = 'sources', content_rowid = 'rowid',
        tokenize = 'porter unicode61 remove_diacritics 2'
    )""",
    # Title matches weigh most, then the excerpt (the citable text), then the body. Search passes the
    # same weights to bm25() directly; this keeps `ORDER BY rank` consistent for ad-hoc queries.
    "INSERT INTO sources_fts (sources_fts, rank) VALUES ('rank', 'bm25(8.0, 4.0, 1.0)')",
    """CREATE TRIGGER sources_ai AFTER INSERT ON sources WHEN new.status = 'active' BEGIN
        INSERT INTO sources_fts (rowid, title, excerpt, body)
        VALUES (new.rowid, new.title, new.excerpt, new.body);
    END""",
    """CREATE TRIGGER sources_ad AFTER DELETE ON sources WHEN old.status = 'active' BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, title, excerpt, body)
        VALUES ('delete', old.rowid, old.title, old.excerpt, old.body);
    END""",
    # One UPDATE trigger, delete before insert: SQLite does not promise an order between two triggers,
    # and re-inserting a rowid the external-content index still holds corrupts it.
    """CREATE TRIGGER sources_au AFTER UPDATE ON sources BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, title, excerpt, body)
        SELECT 'delete', old.rowid, old.title, old.excerpt, old.body WHERE old.status = 'active';
        INSERT INTO sources_fts (rowid, title, excerpt, body)
        SELECT new.rowid, new.title, new.excerpt, new.body WHERE new.status = 'active';
    END""",
    """CREATE TABLE answers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created TEXT NOT NULL,
        finished TEXT,
        question TEXT NOT NULL,
        model TEXT NOT NULL,
        backend TEXT NOT NULL,
        conversation_id TEXT,
        outcome TEXT NOT NULL
            CHECK (outcome IN ('in_flight', 'complete', 'cancelled', 'withdrawn', 'error')),
        raw_text TEXT NOT NULL DEFAULT '',
        final_text TEXT NOT NULL DEFAULT '',
        error TEXT,
        timings TEXT NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX answers_model ON answers (model)",
    """CREATE TABLE resets (
        id INTEGER PRIMARY KEY,
        answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
        reason TEXT NOT NULL,
        rule TEXT,
        withdrawn TEXT NOT NULL,
        withdrawn_chars INTEGER NOT NULL,
        at REAL NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX resets_answer ON resets (answer_id)",
    """CREATE TABLE citations (
        id INTEGER PRIMARY KEY,
        answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
        source_id TEXT NOT NULL,
        claims TEXT NOT NULL DEFAULT '[]',
        check_one TEXT NOT NULL CHECK (check_one IN ('confirmed', 'missing', 'retired')),
        check_two TEXT NOT NULL CHECK (check_two IN ('grounded', 'ungrounded', 'unchecked')),
        reason TEXT NOT NULL DEFAULT '',
        shown INTEGER NOT NULL DEFAULT 0,
        number INTEGER,
        title TEXT
    )""",
    "CREATE INDEX citations_answer ON citations (answer_id)",
]

# How check two went for an answer (models.GroundingRecord as JSON): the judge's reply and which
# response_format step gave it, with every step tried. NULL when check two did not run.
_V2_GROUNDING: list[str] = ["ALTER TABLE answers ADD COLUMN grounding TEXT"]

# Version 3, ingested documents (`kb ingest`): a row per document with its current version, a row per
# version seen, and provenance columns on sources (NULL for hand-written JSONL sources).
_V3_DOCUMENTS: list[str] = [
    """CREATE TABLE documents (
        key TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        format TEXT NOT NULL,
        version TEXT NOT NULL,
        publisher TEXT,
        url TEXT,
        updated TEXT,
        ingested TEXT NOT NULL
    )""",
    """CREATE TABLE document_versions (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
        version TEXT NOT NULL,
        ingested TEXT NOT NULL,
        added INTEGER NOT NULL,
        unchanged INTEGER NOT NULL,
        revised INTEGER NOT NULL,
        removed INTEGER NOT NULL
    )""",
    "CREATE INDEX document_versions_key ON document_versions (key, id)",
    "ALTER TABLE sources ADD COLUMN doc_key TEXT",
    "ALTER TABLE sources ADD COLUMN section TEXT",
    "ALTER TABLE sources ADD COLUMN page INTEGER",
    "ALTER TABLE sources ADD COLUMN doc_version TEXT",
    "ALTER TABLE sources ADD COLUMN ingested TEXT",
    "CREATE INDEX sources_doc ON sources (doc_key, status) WHERE doc_key IS NOT NULL",
    # Re-index only when indexed text or the status changes: a re-ingest that refreshes an unchanged
    # passage's provenance must not rewrite its search-index entry.
    "DROP TRIGGER sources_au",
    """CREATE TRIGGER sources_au AFTER UPDATE OF title, excerpt, body, status ON sources BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, title, excerpt, body)
        SELECT 'delete', old.rowid, old.title, old.excerpt, old.body WHERE old.status = 'active';
        INSERT INTO sources_fts (rowid, title, excerpt, body)
        SELECT new.rowid, new.title, new.excerpt, new.body WHERE new.status = 'active';
    END""",
]

# What the final text says without a verified source (events.Coverage as JSON: statements, backed, the
# unbacked spans into final_text, abstained), written with final_text. NULL when no complete answer was
# verified (withdrawn, cancelled, failed, or recorded before coverage existed).
_V4_COVERAGE: list[str] = ["ALTER TABLE answers ADD COLUMN coverage TEXT"]

# Version 5, check two's three outcomes: what the judge concluded of a confirmed citation ('supported',
# 'contradicted', 'not_established'; NULL when check two gave no verdict or before this version) and the kind
# of claim element that decided it ('drug', 'population', 'modality', 'number', …).
_V5_VERDICTS: list[str] = [
    "ALTER TABLE citations ADD COLUMN verdict TEXT "
    "CHECK (verdict IN ('supported', 'contradicted', 'not_established'))",
    "ALTER TABLE citations ADD COLUMN element TEXT",
]

# Version 6: who asked (a token's name on `hippo-tui serve`; NULL in the embedded app) and from which kind of client
# ("tui", "ask", "eval", "verify"; "server:<kind>" for an answer made by a server for a thin client).
_V6_ASKED_BY: list[str] = [
    "ALTER TABLE answers ADD COLUMN asked_by TEXT",
    "ALTER TABLE answers ADD COLUMN client TEXT",
    "CREATE INDEX answers_asked_by ON answers (asked_by, id) WHERE asked_by IS NOT NULL",
]

# Version 7: the search index holds folded words (store/wording.py: UK/US spelling, stems, derived forms),
# so "ischaemic" finds "ischemic" and "thrombolysis" finds "thrombolytics". The folding is Python, the
# connection's hippo_fold() function (registered by Store.open before migrating); the index is contentless,
# so it stores no second copy of the text, and snippets are cut from the passage itself (wording.snippet).
# Each trigger deletes with the folded old values, which hippo_fold() gives again (it is deterministic).
_FTS_ROW = "hippo_fold({0}.title), hippo_fold({0}.excerpt), hippo_fold({0}.body)"
# Every active source into the index, folded: the last step of v7, and the rebuild when folding changed.
REINDEX_SQL = (
    f"INSERT INTO sources_fts (rowid, title, excerpt, body) SELECT rowid, {_FTS_ROW.format('sources')} "
    "FROM sources WHERE status = 'active'"
)
_V7_FOLDED_INDEX: list[str] = [
    "DROP TRIGGER sources_ai",
    "DROP TRIGGER sources_ad",
    "DROP TRIGGER sources_au",
    "DROP TABLE sources_fts",
    """CREATE VIRTUAL TABLE sources_fts USING fts5 (
        title, excerpt, body, content = '', tokenize = 'unicode61 remove_diacritics 2'
    )""",
    "INSERT INTO sources_fts (sources_fts, rank) VALUES ('rank', 'bm25(8.0, 4.0, 1.0)')",
    f"""CREATE TRIGGER sources_ai AFTER INSERT ON sources WHEN new.status = 'active' BEGIN
        INSERT INTO sources_fts (rowid, title, excerpt, body) VALUES (new.rowid, {_FTS_ROW.format("new")});
    END""",
    f"""CREATE TRIGGER sources_ad AFTER DELETE ON sources WHEN old.status = 'active' BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, title, excerpt, body)
        VALUES ('delete', old.rowid, {_FTS_ROW.format("old")});
    END""",
    f"""CREATE TRIGGER sources_au AFTER UPDATE OF title, excerpt, body, status ON sources BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, title, excerpt, body)
        SELECT 'delete', old.rowid, {_FTS_ROW.format("old")} WHERE old.status = 'active';
        INSERT INTO sources_fts (rowid, title, excerpt, body)
        SELECT new.rowid, {_FTS_ROW.format("new")} WHERE new.status = 'active';
    END""",
    REINDEX_SQL,
    # `kb list` pages by title: without it every page sorted the whole table (0.05-4.6 s at 18,793 sources).
    "CREATE INDEX sources_title ON sources (title, id)",
]

MIGRATIONS: list[list[str]] = [
    _V1,
    _V2_GROUNDING,
    _V3_DOCUMENTS,
    _V4_COVERAGE,
    _V5_VERDICTS,
    _V6_ASKED_BY,
    _V7_FOLDED_INDEX,
]
SCHEMA_VERSION = len(MIGRATIONS)
OUR_TABLES = {"meta", "sources", "answers", "resets", "citations", "documents", "document_versions"}
