"""The store on PostgreSQL from the outside: `--database`, `db migrate`/`grants`/`copy`, the append-only
audit for the application's role, several processes on one database, and a server restarted mid-answer.
(The store's behaviour itself is the conformance suite: test_store, test_audit_store, test_ingest_versions.)"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hippo_tui.cli import EXIT_OK, EXIT_STORE, main
from hippo_tui.store import StoreError
from hippo_tui.store.open import open_postgres
from tests.support import postgres

pytestmark = pytest.mark.postgres


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fast(hippo_home: Path) -> list[str]:
    cfg = hippo_home / "config.toml"
    cfg.write_text("offline_tokens_per_second = 0\n")
    return ["--config", str(cfg)]


def test_ask_and_audit_on_postgres_write_nothing_to_the_data_folder(
    capsys: pytest.CaptureFixture[str], fast: list[str], hippo_home: Path, pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("HIPPO_DATABASE", pg_url)
    code, out, _ = run(capsys, "ask", "What dose of amlodipine?", *fast)
    assert code == EXIT_OK and "10 mg once daily. [1]" in out
    code, out, _ = run(capsys, "audit", "list", "--json", *fast)
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert record["question"] == "What dose of amlodipine?" and record["outcome"] == "complete"
    assert not list(hippo_home.glob("*.db"))  # the data folder holds no database


def test_a_connection_error_names_the_server_and_never_the_password(capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://clinic:s3cret-pw@127.0.0.1:9/records"  # port 9 (discard): nothing listens
    code, _, err = run(capsys, "kb", "stats", "--database", url)
    assert code == EXIT_STORE
    assert "127.0.0.1:9" in err and "cannot reach the database" in err and "refused" in err.lower()
    assert "s3cret-pw" not in err and "Traceback" not in err


def test_an_unknown_scheme_is_a_clear_error(capsys: pytest.CaptureFixture[str], hippo_home: Path) -> None:
    code, _, err = run(capsys, "kb", "stats", "--database", "mysql://db/x")
    assert code == EXIT_STORE and "mysql://" in err and "postgresql://" in err


def test_db_migrate_runs_once(capsys: pytest.CaptureFixture[str], pg_cluster: Any) -> None:
    from tests.support.backends import drop_database

    admin = pg_cluster.url("postgres")
    with _psycopg().connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS hippo_migrate")
        conn.execute("CREATE DATABASE hippo_migrate")
    url = pg_cluster.url("hippo_migrate")
    try:
        assert run(capsys, "db", "migrate", "--database", url)[1].strip() == "schema 4 (was 0)"
        assert run(capsys, "db", "migrate", "--database", url)[1].strip() == "schema 4 (up to date)"
    finally:
        drop_database(admin, "hippo_migrate")


def _psycopg() -> Any:
    import psycopg

    return psycopg


def _as_app_role(pg_cluster: Any, pg_url: str) -> str:
    """The application's role, with the printed grants applied as the owner; its URL on the same database."""
    from hippo_tui.store.pg.grants import grants_sql

    with _psycopg().connect(pg_url, autocommit=True) as conn:
        conn.execute("DO $$ BEGIN CREATE ROLE hippo_app LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        conn.execute(grants_sql("hippo_app"))
    database = pg_url.split("@/", 1)[1].split("?", 1)[0]
    return pg_cluster.url(database, user="hippo_app")


async def test_the_audit_record_is_append_only_for_the_apps_role(pg_cluster: Any, pg_url: str) -> None:
    from hippo_tui.models import ResetRecord

    app_url = _as_app_role(pg_cluster, pg_url)
    async with await open_postgres(app_url) as store:  # the app works with exactly these privileges
        answer_id = await store.begin_answer(question="q?", model="m", backend="offline")
        await store.record_reset(answer_id, ResetRecord(reason="r", rule="x", withdrawn="w", withdrawn_chars=1))
        await store.record_citations(answer_id, [])
        await store.finish_answer(answer_id, raw_text="a", final_text="a", outcome="complete", timings={})
        assert (await store.search("amlodipine"))[0].title.startswith("Hypertension")
    refused = {
        "UPDATE answers SET final_text = 'rewritten' WHERE id = %s": "finished",
        "UPDATE answers SET question = 'other' WHERE id = %s": "permission denied",
        "DELETE FROM answers WHERE id = %s": "permission denied",
        "UPDATE resets SET reason = 'other' WHERE answer_id = %s": "permission denied",
        "TRUNCATE citations": "permission denied",
    }
    psycopg = _psycopg()
    for sql, why in refused.items():
        with psycopg.connect(app_url, autocommit=True) as conn, pytest.raises(psycopg.Error, match=why):
            conn.execute(sql, (answer_id,) if "%s" in sql else None)
    # The owner is refused too: the rule is the schema's, not only the role's.
    with psycopg.connect(pg_url, autocommit=True) as conn, pytest.raises(psycopg.Error, match="append-only"):
        conn.execute("DELETE FROM answers WHERE id = %s", (answer_id,))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT final_text, question FROM answers WHERE id = %s", (answer_id,)).fetchone()
    assert row == ("a", "q?")


def test_db_grants_refuses_a_role_name_that_is_not_plain(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "db", "grants", 'app"; DROP TABLE answers; --')
    assert code == 2 and "not a plain role name" in err


def test_db_copy_moves_kb_and_audit_in_and_refuses_a_full_target(
    capsys: pytest.CaptureFixture[str], fast: list[str], hippo_home: Path, pg_url: str
) -> None:
    assert run(capsys, "ask", "What dose of amlodipine?", *fast)[0] == EXIT_OK  # into the data folder's SQLite
    code, out, err = run(capsys, "db", "copy", "--to", pg_url, *fast)
    assert code == EXIT_OK, err
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line and not line.startswith("counts")}
    assert lines["sources"][1] == "80" and lines["answers"][1] == "1" and int(lines["citations"][1]) >= 1
    assert "counts checked on both sides" in out
    code, out, _ = run(capsys, "audit", "show", "1", "--json", "--database", pg_url, *fast)
    assert code == EXIT_OK and json.loads(out)["question"] == "What dose of amlodipine?"
    code, _, err = run(capsys, "db", "copy", "--to", pg_url, *fast)
    assert code == EXIT_STORE and "not empty" in err and "--append" in err
    code, out, _ = run(capsys, "db", "copy", "--to", pg_url, "--append", *fast)
    assert code == EXIT_OK
    code, out, _ = run(capsys, "audit", "list", "--json", "--database", pg_url, *fast)
    assert sorted(json.loads(line)["id"] for line in out.splitlines()) == [1, 2]  # appended, new id
    code, out, _ = run(capsys, "kb", "stats", "--database", pg_url, *fast)
    assert "80" in out  # the same sources again: updated by id, not doubled


def test_two_ask_processes_on_one_database_keep_both_answers(
    fast: list[str], hippo_home: Path, pg_url: str
) -> None:
    env = {**os.environ, "HIPPO_DATABASE": pg_url}
    asks = [
        subprocess.Popen([sys.executable, "-m", "hippo_tui", "ask", question, *fast], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for question in ("What dose of amlodipine?", "How long is nitrofurantoin given for cystitis?")
    ]
    for p in asks:
        _, err = p.communicate(timeout=120)
        assert p.returncode == EXIT_OK, err.decode()
    with _psycopg().connect(pg_url) as conn:
        rows = conn.execute("SELECT id, question, outcome FROM answers ORDER BY id").fetchall()
    assert len({r[0] for r in rows}) == 2 and {r[2] for r in rows} == {"complete"}
    assert {r[1] for r in rows} == {"What dose of amlodipine?", "How long is nitrofurantoin given for cystitis?"}


async def test_concurrent_writers_in_one_process_get_distinct_ids(pg_url: str) -> None:
    async with await open_postgres(pg_url) as store:
        ids = await asyncio.gather(*(store.begin_answer(question=f"q{i}", model="m", backend="b") for i in range(16)))
        assert len(set(ids)) == 16 and len(await store.list_answers(limit=None)) == 16


async def test_a_restart_mid_answer_fails_that_answer_clearly_and_the_next_one_works(
    pg_cluster: Any, pg_url: str
) -> None:
    if pg_cluster.ctl is None:
        pytest.skip("the cluster is not this session's own (exported by pg_virtualenv): not restarted")
    async with await open_postgres(pg_url) as store:
        answer_id = await store.begin_answer(question="before", model="m", backend="b")
        await asyncio.to_thread(postgres.restart, pg_cluster)
        with pytest.raises(StoreError) as caught:  # the pooled connection died with the server
            await store.finish_answer(answer_id, raw_text="a", final_text="a", outcome="complete", timings={})
        assert "postgresql://" in str(caught.value) and "5432" in str(caught.value)
        after = await store.begin_answer(question="after", model="m", backend="b")  # the pool reconnected
        await store.finish_answer(after, raw_text="b", final_text="b", outcome="complete", timings={})
        assert (await store.get_answer(after)).outcome == "complete"  # type: ignore[union-attr]


def test_the_readmes_team_commands_grants_through_psql_and_a_pg_dump_backup(
    capsys: pytest.CaptureFixture[str], pg_cluster: Any, pg_demo_url: str, tmp_path: Path
) -> None:
    """What the README's "One store for the team" tells a DBA to run, with the real psql, pg_dump and
    pg_restore: the printed grants apply as they are, and a dump restores every answer."""
    bin_dir = postgres.server_bin()
    if bin_dir is None or not (bin_dir / "psql").exists():
        pytest.skip("psql, pg_dump and pg_restore are not on this machine")
    code, script, _ = run(capsys, "db", "grants", "hippo_app")
    assert code == EXIT_OK
    with _psycopg().connect(pg_demo_url, autocommit=True) as conn:
        conn.execute("DO $$ BEGIN CREATE ROLE hippo_app LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    subprocess.run([str(bin_dir / "psql"), "-v", "ON_ERROR_STOP=1", "-q", pg_demo_url], input=script.encode(),
                   check=True, capture_output=True, timeout=60)  # fmt: skip
    database = pg_demo_url.split("@/", 1)[1].split("?", 1)[0]
    app_url = pg_cluster.url(database, user="hippo_app")
    code, out, err = run(capsys, "kb", "search", "amlodipine", "--database", app_url)
    assert code == EXIT_OK and "Hypertension" in out, err
    dump = tmp_path / "hippo.dump"
    subprocess.run([str(bin_dir / "pg_dump"), "--format=custom", f"--file={dump}", pg_demo_url], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    admin = pg_cluster.url("postgres")
    with _psycopg().connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS hippo_restored")
        conn.execute("CREATE DATABASE hippo_restored")
    try:
        restored = pg_cluster.url("hippo_restored")
        subprocess.run([str(bin_dir / "pg_restore"), f"--dbname={restored}", str(dump)], check=True,
                       capture_output=True, timeout=60)  # fmt: skip
        code, out, _ = run(capsys, "kb", "stats", "--database", restored)
        assert code == EXIT_OK and "80" in out and "demo" in out
    finally:
        from tests.support.backends import drop_database

        drop_database(admin, "hippo_restored")


async def test_a_starting_server_leaves_another_live_servers_answers_alone(pg_url: str) -> None:
    first = await open_postgres(pg_url)
    answer_id = await first.begin_answer(question="q", model="m", backend="b", client="server:http")
    async with await open_postgres(pg_url) as second:  # a second `serve` starting on the same database
        assert await second.mark_interrupted("server:") == 0  # the first is still writing it
        await first.close()  # the first server stops (or dies: its connection, and so its lease, goes)
        # The server ends the closed session's backend (and its locks) a moment after the client hangs up.
        marked = 0
        for _ in range(100):
            marked = await second.mark_interrupted("server:")
            if marked:
                break
            await asyncio.sleep(0.05)
        assert marked == 1
        record = await second.get_answer(answer_id)
    assert record is not None and record.outcome == "error" and "interrupted" in (record.error or "")


def test_the_config_files_database_key_chooses_postgres(
    capsys: pytest.CaptureFixture[str], hippo_home: Path, pg_demo_url: str
) -> None:
    cfg = hippo_home / "config.toml"
    cfg.write_text(f"database = {json.dumps(pg_demo_url)}\n")
    code, out, _ = run(capsys, "kb", "stats", "--config", str(cfg))
    assert code == EXIT_OK and "postgresql://postgres@" in out and "demo" in out
    assert not list(hippo_home.glob("*.db"))
