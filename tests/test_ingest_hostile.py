"""Hostile documents: each bomb, each malformed file ends as one failed file with a plain reason, and the
good file beside it goes in. The bombs are made here, small on disk (a few MB of zeros compressed)."""

from __future__ import annotations

import io
import json
import os
import signal
import zipfile
import zlib
from pathlib import Path

import pytest

from hippo_tui.cli import main
from hippo_tui.commands.ingest import EXIT_SOME_FAILED
from hippo_tui.ingest import sandbox
from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.limits import Limits
from hippo_tui.ingest.reading import Overrides, parse_document
from tests.support.documents import docx_with_part

GOOD = "# Cystitis\n\n## Treatment\n\nNitrofurantoin 100 mg twice daily for 3 days. Review at 48 hours.\n"


def zeros_deflated(megabytes: int) -> bytes:
    z = zlib.compressobj(9)
    chunk = bytes(2**20)
    return b"".join(z.compress(chunk) for _ in range(megabytes)) + z.flush()


def docx_bomb(megabytes: int) -> bytes:
    """A .docx whose document part inflates to ``megabytes`` MB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w") as part:
            for _ in range(megabytes):
                part.write(bytes(2**20))
    return out.getvalue()


def pdf_of_zeros(megabytes: int, pages: int = 1) -> bytes:
    """A PDF of ``pages`` pages, each a content stream of ``megabytes`` MB of zeros, Flate-compressed."""
    stream = zeros_deflated(megabytes)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out, offsets = io.BytesIO(), []
    out.write(b"%PDF-1.4\n")
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = out.tell()
    size = len(objects) + 1
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size + b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref))
    return out.getvalue()


def test_a_pdf_of_many_big_pages_holds_one_page_at_a_time(tmp_path: Path) -> None:
    import tracemalloc

    with pytest.raises(IngestError, match="no text layer"):  # the PDF reader imported before measuring
        parse_document(tmp_path / "one.pdf", pdf_of_zeros(0), Overrides())
    data = pdf_of_zeros(1, pages=8)
    tracemalloc.start()
    try:
        with pytest.raises(IngestError, match="no text layer"):
            parse_document(tmp_path / "pages.pdf", data, Overrides())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 8 pages of 1 MB of content each: a page's content is let go once its text is read (pypdf kept them
    # all, so 40 pages of 70 MB each needed 2.8 GB), so the parse never holds the whole file's content.
    assert peak < 8 * 2**20


@pytest.fixture
def folder(tmp_path: Path, hippo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with one good document; the config caps unpacked bytes at 5 MB so the bombs stay small."""
    (tmp_path / "config.toml").write_text("ingest_unpacked_mb = 5\n", encoding="utf-8")
    monkeypatch.setenv("HIPPO_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "guidance").mkdir()
    (tmp_path / "guidance" / "cystitis.md").write_text(GOOD, encoding="utf-8")
    return tmp_path / "guidance"


def test_bombs_are_failed_files_and_the_good_file_goes_in(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    (folder / "bomb.docx").write_bytes(docx_bomb(40))  # 40 MB inflated, ~40 KB on disk
    (folder / "zeros.pdf").write_bytes(pdf_of_zeros(80))  # past pypdf's 75 MB per stream
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
        + "".join(
            f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
        + ']><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">&i;</w:document>'
    )
    docx_with_part(folder / "laughs.docx", laughs)
    docx_with_part(folder / "broken.docx", "<w:document><unclosed>")
    code = main(["kb", "ingest", str(folder), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == EXIT_SOME_FAILED
    reasons = {Path(f["document"]).name: f["reason"] for f in report["failed"]}
    assert reasons["bomb.docx"].startswith("decompresses past the 5 MB limit")
    assert reasons["zeros.pdf"] == "page 1: a stream decompresses past the PDF reader's 75 MB limit"
    assert "Traceback" not in json.dumps(report) and "broken.docx" in reasons
    assert "aaaaaaaaaa" * 1000 not in json.dumps(report)
    if "laughs.docx" in reasons:  # refused in plain words, not libxml2's message
        assert reasons["laughs.docx"].endswith("expand without limit: refused)"), reasons["laughs.docx"]
    assert [Path(d["document"]).name for d in report["documents"]] == ["cystitis.md"]
    main(["kb", "search", "nitrofurantoin", "-k", "1"])
    assert "Cystitis" in capsys.readouterr().out


def test_a_worker_that_dies_or_overruns_is_one_failed_file(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text(GOOD, encoding="utf-8")
    box = sandbox.Sandbox(Limits(seconds=60))
    try:
        assert box.parse(good, Overrides()).doc.title == "Cystitis"
        os.kill(box._proc.pid, signal.SIGSEGV)  # what a C-stack overflow in a parser does to the worker
        with pytest.raises(IngestError, match="crashed its parser"):
            box.parse(good, Overrides())
        assert box.parse(good, Overrides()).doc.title == "Cystitis"  # a new worker took over
    finally:
        box.close()
    slow = sandbox.Sandbox(Limits(seconds=0.001))  # no worker starts and parses within a millisecond
    try:
        with pytest.raises(IngestError, match=r"took longer than 0\.001 s to read"):
            slow.parse(good, Overrides())
    finally:
        slow.close()


def test_out_of_memory_and_recursion_are_plain_reasons(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def exhausted(path: Path, overrides: Overrides) -> None:
        raise MemoryError

    monkeypatch.setattr(sandbox, "parse_file", exhausted)
    assert sandbox.parse_reporting(tmp_path, Overrides(), Limits(memory_mb=512)) == (
        "error",
        "needs more memory than the 512 MB limit to parse",
    )


def test_a_huge_paragraph_dense_with_markup_is_read(tmp_path: Path) -> None:
    text = "# Dense\n\n" + "*dose* [renal](c) **" * 30_000 + "[" * 20_000 + "\n"
    doc = parse_document(tmp_path / "dense.md", text.encode(), Overrides())
    assert doc.title == "Dense" and "dose renal" in doc.sections[0].blocks[0].text


def test_text_without_full_stops_is_cut_under_the_passage_limit(tmp_path: Path) -> None:
    from hippo_tui.ingest.passages import MAX_PASSAGE_CHARS, passages

    words = " ".join(f"word{i}, dose {i} mg" for i in range(20_000))  # ~300 KB, not one full stop
    doc = parse_document(tmp_path / "run-on.txt", f"Run on\n\n{words}\n".encode(), Overrides())
    ps = passages(doc)
    assert max(len(p.excerpt) for p in ps) <= MAX_PASSAGE_CHARS and len(ps) > 100
    assert " ".join(p.excerpt for p in ps).split() == words.split()  # cut at boundaries, nothing lost


def test_kb_import_refuses_an_excerpt_over_the_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, hippo_home: Path
) -> None:
    kb = tmp_path / "big.jsonl"
    row = {"id": "6f1c2b1e-0000-4000-8000-000000000001", "title": "Big", "excerpt": "dose " * 10_000}
    kb.write_text(json.dumps(row) + "\n", encoding="utf-8")
    code = main(["kb", "import", str(kb)])
    err = capsys.readouterr().err
    assert code == 2 and "line 1, field 'excerpt'" in err and "50,000 characters is over the 2,000" in err


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads the worker's limits from /proc")
def test_the_worker_runs_under_its_memory_cap(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text(GOOD, encoding="utf-8")
    box = sandbox.Sandbox(Limits(memory_mb=1024))
    try:
        box.parse(good, Overrides())
        limits = Path(f"/proc/{box._proc.pid}/limits").read_text()
    finally:
        box.close()
    (line,) = [x for x in limits.splitlines() if x.startswith("Max address space")]
    assert line.split()[3:5] == [str(1024 * 2**20), str(1024 * 2**20)]
