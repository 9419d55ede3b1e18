"""`hippo-tui kb …`: every sub-command, its output and its exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_STORE, EXIT_USAGE, main
from hippo_tui.commands.kb import TtyProgress

CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"
WARFARIN_INR = "4e08dba4-7af1-4cf8-8352-7c7d474db877"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HIPPO_CONFIG", str(_empty_config(tmp_path)))
    return tmp_path / "home"


def _empty_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_builds_the_demo_kb_on_first_use(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    code, out, _ = run(capsys, "kb", "stats")
    assert code == 0
    assert "name:" in out and "demo" in out and "active:" in out and "70" in out
    assert (home / "hippo.db").is_file()
    code, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["retired"] == 10


def test_search(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kb", "search", "first-line treatment for uncomplicated cystitis", "-k", "2")
    assert code == 0
    assert out.splitlines()[0].startswith("1. Uncomplicated cystitis in non-pregnant women")
    assert "«" in out and len([x for x in out.splitlines() if x[:2] in ("1.", "2.")]) == 2
    code, out, _ = run(capsys, "kb", "search", 'col:"unbalanced (*', "--json")
    assert code == 0 and all(json.loads(line)["id"] for line in out.splitlines())
    code, out, err = run(capsys, "kb", "search", "zzzzqqq")
    assert code == 0 and out == "" and "no active source" in err


def test_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kb", "list", "--status", "retired")
    assert code == 0 and len(out.splitlines()) == 10 and all(" retired " in x for x in out.splitlines())
    code, out, _ = run(capsys, "kb", "list", "--limit", "2", "--json")
    assert [json.loads(x)["status"] for x in out.splitlines()] == ["active", "active"]
    code, out, _ = run(capsys, "kb", "show", "e8562efb-5edc-44da-840a-c7806e0be0ae")
    assert code == 0
    assert "retired" in out and f"superseded by {CYSTITIS} (Uncomplicated cystitis" in out
    assert "trimethoprim 200 mg twice daily for 7 days" in out
    code, out, err = run(capsys, "kb", "show", "00000000-0000-4000-8000-000000000000")
    assert code == EXIT_USAGE and "no source with id" in err


def test_list_pages(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "kb", "list", "--limit", "3", "--offset", "2")
    assert code == 0 and len(out.splitlines()) == 3
    assert "sources 3-5 of 80; --offset 5 for the next" in err
    _, everything, _ = run(capsys, "kb", "list")  # into a pipe: everything, for scripts
    assert len(everything.splitlines()) == 80 and out.splitlines() == everything.splitlines()[2:5]
    code, out, err = run(capsys, "kb", "list", "--offset", "80")
    assert code == 0 and out == "" and "none of 80" in err
    code, _, err = run(capsys, "kb", "list", "--limit", "-1")
    assert code == EXIT_USAGE and "--limit" in err


def test_list_prints_a_line_for_each_record_the_json_lists(capsys: pytest.CaptureFixture[str]) -> None:
    # The lines are read from the rows, the --json output from the records: the same sources, in the same order.
    for status in ("all", "active", "retired"):
        for page in ([], ["--limit", "7", "--offset", "3"]):
            _, lines, _ = run(capsys, "kb", "list", "--status", status, *page)
            _, records, _ = run(capsys, "kb", "list", "--status", status, "--json", *page)
            listed = [line.split()[:2] for line in lines.splitlines()]
            assert listed == [[r["id"], r["status"]] for r in map(json.loads, records.splitlines())]
            assert listed


def test_list_to_a_terminal_shows_one_page_unless_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hippo_tui.commands import kb

    monkeypatch.setattr(kb, "is_tty", lambda stream: True)
    _, out, err = run(capsys, "kb", "list")
    assert len(out.splitlines()) == kb.TTY_LIST_LIMIT and "--limit 0 for all" in err
    _, out, _ = run(capsys, "kb", "list", "--limit", "0")
    assert len(out.splitlines()) == 80


def test_search_json_says_where_each_hit_is(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "kb", "search", "uncomplicated cystitis", "-k", "2", "--json")
    first = json.loads(out.splitlines()[0])
    assert {"id", "title", "where", "score", "snippet"} <= set(first)
    assert first["where"].startswith("Uncomplicated cystitis") and "«" in first["snippet"]


def test_import_and_export(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    kb = tmp_path / "mine.jsonl"
    rows = [{"id": f"00000000-0000-4000-8000-{i:012d}", "title": f"Okapi {i}", "excerpt": "Okapi care. Feed daily."}
            for i in range(3)]  # fmt: skip
    kb.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(capsys, "kb", "import", str(kb), "--name", "zoo")
    assert code == 0 and "imported 3 sources" in out and "'zoo'" in out
    assert err == ""  # no progress bar when stderr is not a terminal
    code, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["name"] == "zoo" and json.loads(out)["active"] == 73

    code, out, _ = run(capsys, "kb", "export")
    assert code == 0 and len(out.splitlines()) == 83
    target = tmp_path / "export.jsonl"
    code, _, err = run(capsys, "kb", "export", "-o", str(target))
    assert code == 0 and "exported 83 sources" in err
    assert len(target.read_text(encoding="utf-8").splitlines()) == 83


def test_a_bad_import_names_line_and_field_and_imports_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kb = tmp_path / "bad.jsonl"
    good = {"id": "00000000-0000-4000-8000-000000000001", "title": "t", "excerpt": "e"}
    bad = {"id": "00000000-0000-4000-8000-000000000002", "title": "", "excerpt": "e"}
    kb.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "kb", "import", str(kb))
    assert code == EXIT_USAGE
    assert f"{kb}: line 2, field 'title'" in err and "Nothing was imported" in err
    _, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["sources"] == 80


def test_retire(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "kb", "retire", WARFARIN_INR, "--reason", "new targets", "--superseded-by", CYSTITIS
    )
    assert code == 0 and f"retired {WARFARIN_INR}" in out
    _, out, _ = run(capsys, "kb", "show", WARFARIN_INR, "--json")
    data = json.loads(out)
    assert (data["status"], data["retired_reason"], data["superseded_by"]) == (
        "retired",
        "new targets",
        CYSTITIS,
    )
    _, out, _ = run(capsys, "kb", "search", "warfarin INR target", "--json")
    assert WARFARIN_INR not in out
    code, _, err = run(capsys, "kb", "retire", "nope", "--reason", "x")
    assert code == EXIT_USAGE and "no source" in err
    code, _, err = run(capsys, "kb", "retire", CYSTITIS, "--reason", " ")
    assert code == EXIT_USAGE and "a reason is needed" in err


def test_a_corrupt_database_is_a_store_error(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    home.mkdir()
    (home / "hippo.db").write_text("not a database", encoding="utf-8")
    code, out, err = run(capsys, "kb", "stats")
    assert code == EXIT_STORE and out == ""
    assert str(home / "hippo.db") in err and "not an SQLite database" in err
    assert (home / "hippo.db").read_text(encoding="utf-8") == "not a database"


def test_kb_text_is_made_inert_for_the_terminal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    kb = tmp_path / "evil.jsonl"
    row = {
        "id": "00000000-0000-4000-8000-000000000001",
        "title": "Evil \x1b[2Jtitle",
        "excerpt": "Bad \x1b]0;pwn\x07text.",
    }
    kb.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert run(capsys, "kb", "import", str(kb))[0] == 0
    _, out, _ = run(capsys, "kb", "show", row["id"])
    assert "\x1b" not in out and "Evil title" in out
    _, out, _ = run(capsys, "kb", "list", "--json")
    assert "\x1b" not in out


class _FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    tty = _FakeTty()
    bar = TtyProgress("importing x", stream=tty)
    bar.note("checking x…")
    for done in (0, 500, 1000):
        bar(done, 1000)
    bar.end()
    text = tty.getvalue()
    assert text.startswith("\rchecking x…\rimporting x [")
    assert text.count("\r") == 4 and text.endswith("1000/1000 (100%)\n") and "[" + "#" * 30 + "]" in text
    pipe = io.StringIO()
    quiet = TtyProgress("importing x", stream=pipe)
    quiet.note("checking")
    quiet(5, 10)
    quiet.end()
    assert pipe.getvalue() == ""


def test_kb_flag_uses_that_files_own_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path
) -> None:
    kb = tmp_path / "ward.jsonl"
    row = {
        "id": "00000000-0000-4000-8000-000000000001",
        "title": "Ward note",
        "excerpt": "Okapi care. Feed daily.",
    }
    kb.write_text(json.dumps(row) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "kb", "stats", "--json", "--kb", str(kb))
    stats = json.loads(out)
    assert code == 0 and (stats["name"], stats["sources"]) == ("ward", 1)
    assert stats["path"] != str(home / "hippo.db")
    _, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["sources"] == 80
