"""The PostgreSQL schema as numbered migrations, with a version table. Append; never edit a shipped one.

Column types follow the SQLite schema (dates as ISO text, JSON as text) so one row mapping serves both.
Each migration runs in one transaction with its version row, under an advisory lock, so two processes
starting at once build it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

_V1_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources (
    rowid BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    excerpt TEXT NOT NULL,
    body TEXT,
    publisher TEXT,
    url TEXT,
    updated TEXT,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
    retired_reason TEXT,
    superseded_by TEXT,
    doc_key TEXT,
    section TEXT,
    page INTEGER,
    doc_version TEXT,
    ingested TEXT
);
CREATE INDEX sources_status ON sources (status, title);
CREATE INDEX sources_doc ON sources (doc_key, status) WHERE doc_key IS NOT NULL;
CREATE TABLE documents (
    key TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    format TEXT NOT NULL,
    version TEXT NOT NULL,
    publisher TEXT,
    url TEXT,
    updated TEXT,
    ingested TEXT NOT NULL
);
CREATE TABLE document_versions (
    id BIGSERIAL PRIMARY KEY,
    key TEXT NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
    version TEXT NOT NULL,
    ingested TEXT NOT NULL,
    added INTEGER NOT NULL,
    unchanged INTEGER NOT NULL,
    revised INTEGER NOT NULL,
    removed INTEGER NOT NULL
);
CREATE INDEX document_versions_key ON document_versions (key, id);
CREATE TABLE answers (
    id BIGSERIAL PRIMARY KEY,
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
    timings TEXT NOT NULL DEFAULT '{}',
    grounding TEXT,
    coverage TEXT,
    asked_by TEXT,
    client TEXT,
    writer TEXT  -- the writing process's lease (see PgAuditMixin.mark_interrupted); NULL when copied in
);
CREATE INDEX answers_model ON answers (model);
CREATE INDEX answers_asked_by ON answers (asked_by, id) WHERE asked_by IS NOT NULL;
CREATE TABLE resets (
    id BIGSERIAL PRIMARY KEY,
    answer_id BIGINT NOT NULL REFERENCES answers (id),
    reason TEXT NOT NULL,
    rule TEXT,
    withdrawn TEXT NOT NULL,
    withdrawn_chars INTEGER NOT NULL,
    at DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE INDEX resets_answer ON resets (answer_id);
CREATE TABLE citations (
    id BIGSERIAL PRIMARY KEY,
    answer_id BIGINT NOT NULL REFERENCES answers (id),
    source_id TEXT NOT NULL,
    claims TEXT NOT NULL DEFAULT '[]',
    check_one TEXT NOT NULL CHECK (check_one IN ('confirmed', 'missing', 'retired')),
    check_two TEXT NOT NULL CHECK (check_two IN ('grounded', 'ungrounded', 'unchecked')),
    reason TEXT NOT NULL DEFAULT '',
    shown INTEGER NOT NULL DEFAULT 0,
    number INTEGER,
    title TEXT,
    verdict TEXT CHECK (verdict IN ('supported', 'contradicted', 'not_established')),
    element TEXT
);
CREATE INDEX citations_answer ON citations (answer_id);
"""

# Search: a stored tsvector per source (title A > section B > excerpt C > body D) kept by a trigger with
# the source's token count (BM25's document length), and a GIN index over active sources only, like the
# SQLite index. hippo_tsquery_or ORs per-word queries built by plainto_tsquery, so a query is assembled
# from bound words without ever writing tsquery syntax.
_V2_SEARCH = """
ALTER TABLE sources ADD COLUMN tsv TSVECTOR NOT NULL DEFAULT ''::tsvector;
ALTER TABLE sources ADD COLUMN dl INTEGER NOT NULL DEFAULT 0;
CREATE FUNCTION hippo_sources_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tsv := setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A')
        || setweight(to_tsvector('english', coalesce(NEW.section, '')), 'B')
        || setweight(to_tsvector('english', coalesce(NEW.excerpt, '')), 'C')
        || setweight(to_tsvector('english', coalesce(NEW.body, '')), 'D');
    NEW.dl := (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(NEW.tsv));
    RETURN NEW;
END $$;
CREATE TRIGGER sources_tsv_insert BEFORE INSERT ON sources
    FOR EACH ROW EXECUTE FUNCTION hippo_sources_tsv();
CREATE TRIGGER sources_tsv_update BEFORE UPDATE OF title, section, excerpt, body ON sources
    FOR EACH ROW EXECUTE FUNCTION hippo_sources_tsv();
CREATE INDEX sources_tsv ON sources USING gin (tsv) WHERE status = 'active';
CREATE AGGREGATE hippo_tsquery_or (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
"""

# The audit record is append-only, for every role: an answer is never deleted; once it is finished
# (outcome no longer 'in_flight') neither it nor its citations change; a reset never changes. While an
# answer is being written its ending and citations are filled in (recorded after check one, again after
# check two). The grants script (`hippo-tui db grants`) narrows the application's role further.
_V3_APPEND_ONLY = """
CREATE FUNCTION hippo_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit record is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE FUNCTION hippo_answer_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.outcome <> 'in_flight' THEN
        RAISE EXCEPTION 'the audit record is append-only: answer % is finished', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF (NEW.id, NEW.created, NEW.question, NEW.model, NEW.backend, NEW.conversation_id, NEW.asked_by, NEW.client, NEW.writer)
       IS DISTINCT FROM
       (OLD.id, OLD.created, OLD.question, OLD.model, OLD.backend, OLD.conversation_id, OLD.asked_by, OLD.client, OLD.writer)
    THEN
        RAISE EXCEPTION 'the audit record is append-only: answer %''s question and origin are fixed', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;
CREATE FUNCTION hippo_citation_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' OR (SELECT outcome FROM answers WHERE id = OLD.answer_id) <> 'in_flight' THEN
        RAISE EXCEPTION 'the audit record is append-only: % of a citation of answer % refused',
            TG_OP, OLD.answer_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER answers_no_delete BEFORE DELETE ON answers FOR EACH ROW EXECUTE FUNCTION hippo_refuse();
CREATE TRIGGER answers_finished BEFORE UPDATE ON answers FOR EACH ROW EXECUTE FUNCTION hippo_answer_update();
CREATE TRIGGER resets_append_only BEFORE UPDATE OR DELETE ON resets
    FOR EACH ROW EXECUTE FUNCTION hippo_refuse();
CREATE TRIGGER citations_append_only BEFORE UPDATE OR DELETE ON citations
    FOR EACH ROW EXECUTE FUNCTION hippo_citation_change();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON answers FOR EACH STATEMENT EXECUTE FUNCTION hippo_refuse();
CREATE TRIGGER resets_no_truncate BEFORE TRUNCATE ON resets FOR EACH STATEMENT EXECUTE FUNCTION hippo_refuse();
CREATE TRIGGER citations_no_truncate BEFORE TRUNCATE ON citations
    FOR EACH STATEMENT EXECUTE FUNCTION hippo_refuse();
"""

# Search on folded words (store.wording.fold, as the SQLite index holds them since its schema 7): the folding
# is Python (Snowball, the lexicon's spellings and synonyms), so a write only marks its row stale and the
# store writes the folded tsvector ('simple': no second stemming) right after the commit, or before the
# next search for another process's rows (PgIndexMixin).
_V4_FOLDED = """
ALTER TABLE sources ADD COLUMN tsv_stale BOOLEAN NOT NULL DEFAULT true;
CREATE OR REPLACE FUNCTION hippo_sources_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tsv_stale := true;
    RETURN NEW;
END $$;
UPDATE sources SET tsv_stale = true;
CREATE INDEX sources_tsv_stale ON sources (rowid) WHERE tsv_stale;
"""
MIGRATIONS: list[str] = [_V1_TABLES, _V2_SEARCH, _V3_APPEND_ONLY, _V4_FOLDED]
SCHEMA_VERSION = len(MIGRATIONS)
_LOCK = 0x68697070  # the advisory lock key two starting processes take turns on ("hipp")

_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS hippo_schema (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())"


async def current_version(conn: psycopg.AsyncConnection[Any]) -> int:
    cur = await conn.execute("SELECT to_regclass('hippo_schema') IS NOT NULL")
    row = await cur.fetchone()
    if not row or not row[0]:
        return 0
    cur = await conn.execute("SELECT coalesce(max(version), 0) FROM hippo_schema")
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: psycopg.AsyncConnection[Any]) -> tuple[int, int]:
    """Run the migrations this database lacks; returns (version before, version after)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        before = await current_version(conn)
        if before > SCHEMA_VERSION:
            return before, before
        await conn.execute(_VERSION_TABLE)
        for number, sql in enumerate(MIGRATIONS[before:], start=before + 1):
            await conn.execute(sql)  # our own constant text, no parameters
            await conn.execute("INSERT INTO hippo_schema (version) VALUES (%s)", (number,))
    return before, SCHEMA_VERSION
