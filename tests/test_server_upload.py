"""`POST /v1/kb/ingest` against a real uvicorn on loopback: an editor's uploads go through `kb ingest`'s own
pipeline (worker parsing, per-file results, versions and retired passages); names cannot leave the folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.documents import pdf_bytes
from tests.support.serve import Serve
from tests.test_server_auth import add, bearer

pytest.importorskip("fastapi")
pytest.importorskip("multipart")
pytestmark = pytest.mark.slow

GUIDE = b"# Sore throat in adults\n\nOffer paracetamol or ibuprofen for pain; most sore throats settle in a week.\n"
REVISED = b"# Sore throat in adults\n\nOffer paracetamol for pain; most sore throats settle within eight days.\n"
NOTE = b"# Earwax\n\nOlive oil drops twice daily for a week soften earwax before irrigation.\n"


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Serve, dict[str, str]]]:
    home = tmp_path_factory.mktemp("upload")
    tokens = home / "tokens.json"
    who = {name: add(tokens, name, role) for name, role in (("eve", "editor"), ("ana", "clinician"))}
    with Serve(home, "--max-upload-mb", "1", tokens=tokens) as s:
        yield s, who


def upload(s: Serve, token: str, files: list[tuple[str, bytes]], **flags: str) -> httpx.Response:
    parts = [("files", (name, data)) for name, data in files]
    return httpx.post(f"{s.url}/v1/kb/ingest", files=parts, data=flags, headers=bearer(token), timeout=120)


def raw_upload(s: Serve, token: str, filename: bytes) -> httpx.Response:
    """One part whose file name is sent byte for byte (a client library would escape or refuse some)."""
    body = (b"--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"" + filename + b"\"\r\n"
            b"Content-Type: text/markdown\r\n\r\n" + NOTE + b"\r\n--b--\r\n")  # fmt: skip
    headers = {**bearer(token), "Content-Type": "multipart/form-data; boundary=b"}
    return httpx.post(f"{s.url}/v1/kb/ingest", content=body, headers=headers, timeout=60)


def search(s: Serve, token: str, q: str) -> list[dict]:
    return httpx.get(f"{s.url}/v1/kb/search", params={"q": q}, headers=bearer(token)).json()


def uploads_folder(s: Serve) -> Path:
    return s.home / "uploads" / "hippo"


def test_an_editor_uploads_files_and_gets_kb_ingest_s_report_per_file(team, tmp_path: Path):
    s, who = team
    files = [("sore-throat.md", GUIDE), ("ears/earwax.md", NOTE), ("scan.pdf", b"%PDF-1.4 not really"),
             ("tool.exe", b"MZ")]  # fmt: skip
    r = upload(s, who["eve"], files)
    assert r.status_code == 200, r.text
    report = r.json()
    docs = {d["document"]: d for d in report["documents"]}
    assert set(docs) == {"sore-throat.md", "ears/earwax.md"}  # named as sent, not by the server's folder
    assert {d["status"] for d in docs.values()} == {"new"} and report["written"] is True
    assert [f["document"] for f in report["failed"]] == ["scan.pdf"] and report["failed"][0]["reason"]
    assert report["not_read_formats"] == {".exe": 1}
    assert str(s.home) not in r.text
    # The same keys, per document too, as `kb ingest --json` prints for the same file.
    (tmp_path / "sore-throat.md").write_bytes(GUIDE)
    cli = subprocess.run([sys.executable, "-m", "hippo_tui", "kb", "ingest", "--json", str(tmp_path / "sore-throat.md")],
                         capture_output=True, text=True, env={**os.environ, "HIPPO_HOME": str(tmp_path / "h")})  # fmt: skip
    printed = json.loads(cli.stdout)
    assert set(printed) == set(report) and set(printed["documents"][0]) == set(docs["sore-throat.md"])
    hits = search(s, who["ana"], "olive oil earwax irrigation")
    assert hits and hits[0]["title"] == "Earwax"
    assert not (uploads_folder(s) / "scan.pdf").exists()  # a file that failed is not kept


def test_uploading_a_name_again_revises_it_and_retires_what_changed(team):
    s, who = team
    assert upload(s, who["eve"], [("sore-throat.md", GUIDE)]).status_code == 200
    first = search(s, who["ana"], "sore throat ibuprofen paracetamol")[0]
    report = upload(s, who["eve"], [("sore-throat.md", REVISED)]).json()
    assert [d["status"] for d in report["documents"]] == ["revised"] and report["documents"][0]["revised"] == 1
    old = httpx.get(f"{s.url}/v1/kb/sources/{first['id']}", headers=bearer(who["ana"])).json()
    assert old["status"] == "retired"
    assert "within «eight» «days»" in search(s, who["ana"], "sore throat eight days")[0]["snippet"]


def test_a_strict_or_dry_run_upload_writes_nothing_and_keeps_the_file_it_would_replace(team):
    s, who = team
    upload(s, who["eve"], [("earwax.md", NOTE)])
    kept = (uploads_folder(s) / "earwax.md").read_bytes()
    strict = upload(s, who["eve"], [("earwax.md", NOTE.replace(b"twice", b"three times")),
                                    ("bad.pdf", pdf_bytes([["x"]])[:40])], strict="true").json()  # fmt: skip
    assert strict["written"] is False and strict["failed"]
    dry = upload(s, who["eve"], [("earwax.md", b"# Earwax\n\nSomething else.\n")], dry_run="true").json()
    assert dry["dry_run"] is True and dry["written"] is False
    assert (uploads_folder(s) / "earwax.md").read_bytes() == kept
    assert not list(uploads_folder(s).rglob(".*"))  # no file set aside is left behind


@pytest.mark.parametrize(
    "name",
    [b"../escaped.md", b"/tmp/escaped.md", b"ears/../../escaped.md", b"..\\escaped.md",
     b"a\x1b[31mred.md", b".hidden.md", b"ears/.git/config.md", b""],
)  # fmt: skip
def test_a_name_that_could_leave_the_folder_or_hide_is_refused_and_nothing_is_written(team, name: bytes):
    s, who = team
    before = sorted(p for p in s.home.rglob("*") if not p.name.startswith("serve-"))
    r = raw_upload(s, who["eve"], name)
    assert r.status_code == 422 and r.json()["error"]["kind"] == "invalid"
    assert "\x1b" not in r.text
    assert sorted(p for p in s.home.rglob("*") if not p.name.startswith("serve-")) == before
    assert not (s.home.parent / "escaped.md").exists() and not Path("/tmp/escaped.md").exists()


@pytest.mark.parametrize("name", ["C:\\x\\escaped.md", "C:escaped.md", "a\x00b.md", "a\u202eb.md", "a/ b.md"])
def test_names_a_multipart_parser_might_pass_on_are_refused_too(name: str):
    from hippo_tui.server.uploads import BadName, safe_name

    with pytest.raises(BadName) as info:
        safe_name(name)
    assert str(info.value).isprintable()


def test_only_an_editor_may_upload_and_an_upload_has_a_size_limit(team):
    s, who = team
    assert upload(s, who["ana"], [("x.md", NOTE)]).status_code == 403
    assert httpx.post(f"{s.url}/v1/kb/ingest", files=[("files", ("x.md", NOTE))]).status_code == 401
    big = upload(s, who["eve"], [("big.md", b"# Big\n\n" + b"word " * 300_000)])
    assert big.status_code == 413 and big.json()["error"]["kind"] == "too_large"
    assert upload(s, who["eve"], []).status_code in (415, 422)
    twice = upload(s, who["eve"], [("a.md", NOTE), ("A.md", NOTE)])
    assert twice.status_code == 422 and "twice" in twice.json()["error"]["message"]


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hippo_tui", *args], capture_output=True, text=True,
                          env={**os.environ, "HIPPO_HOME": str(home)}, timeout=300)  # fmt: skip


def test_kb_ingest_with_server_uploads_the_folder_as_kb_ingest_finds_it(team, tmp_path: Path):
    s, who = team
    folder = tmp_path / "clinic"
    (folder / "skin").mkdir(parents=True)
    (folder / ".drafts").mkdir()
    (folder / "skin" / "scabies.md").write_text("# Scabies\n\nPermethrin cream to the whole body, again in a week.\n")
    (folder / ".drafts" / "draft.md").write_text("# Draft\n\nNot finished.\n")
    (folder / "notes.exe").write_bytes(b"MZ")
    out = cli("kb", "ingest", str(folder), "--server", s.url, "--token", who["eve"], home=tmp_path / "h")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["new", "clinic/skin/scabies.md:"]
    assert "on the server" in out.stderr and ".exe 1" in out.stderr and "Traceback" not in out.stderr
    assert search(s, who["ana"], "permethrin scabies")[0]["title"] == "Scabies"
    assert all(h["title"] != "Draft" for h in search(s, who["ana"], "draft not finished"))  # hidden: not sent
    refused = cli("kb", "ingest", str(folder), "--server", s.url, "--token", who["ana"], home=tmp_path / "h")
    assert refused.returncode == 2 and "editors only" in refused.stderr and "Traceback" not in refused.stderr
    assert who["ana"] not in refused.stderr + refused.stdout
