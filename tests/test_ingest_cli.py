"""`hippo-tui kb ingest` and `kb docs` end to end, and the issue's story: ask, revise the dose, re-ingest, verify."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest

from hippo_tui.backends.offline_transport import OfflineTransport
from hippo_tui.cli import EXIT_USAGE, main
from hippo_tui.commands.ingest import EXIT_SOME_FAILED
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent
from hippo_tui.export import Turn, to_markdown
from hippo_tui.store import Store
from hippo_tui.verification.checks import verify
from tests.support.asking import ask_once
from tests.support.documents import pdf_bytes

DOCS = Path(__file__).parent / "data" / "docs"
QUESTION = "What is the first-line nitrofurantoin dose for uncomplicated cystitis in adults?"


@pytest.fixture
def guidance(tmp_path: Path, hippo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("HIPPO_CONFIG", str(config))
    folder = tmp_path / "guidance"
    shutil.copytree(DOCS, folder)
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def revise_dose(folder: Path) -> None:  # the revision a clinic's antimicrobial group makes
    path = folder / "cystitis-protocol.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("twice daily for 3 days is the first", "twice daily for 5 days is the first")
    )


def judge() -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url="http://judge.invalid/v1",
        api_key="k",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=OfflineTransport(tokens_per_second=0)),
    )


async def ask(home: Path, question: str) -> tuple[EndEvent, str]:
    """One answer from the app's engine (offline backend, the data folder's store): its end and raw text."""
    engine = await Engine.create(Settings(home=home, offline_tokens_per_second=0))
    try:
        events = await ask_once(engine, question)
        end = events[-1]
        assert isinstance(end, EndEvent) and end.audit_id is not None
        record = await engine.store.get_answer(end.audit_id)
        assert record is not None
        return end, record.raw_text
    finally:
        await engine.close()


async def test_an_old_answer_citing_a_revised_passage_is_flagged_with_its_successor(
    capsys: pytest.CaptureFixture[str], guidance: Path, hippo_home: Path
) -> None:
    code, _, err = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance))
    assert code == 0 and "retired the 70 demo sources" in err
    end, raw = await ask(hippo_home, QUESTION)
    assert end.outcome == "complete" and end.citations
    cited = end.citations[0]
    assert cited.title == "Uncomplicated cystitis in adults › Treatment › First line"
    assert cited.where == cited.title and "3 days" in end.text

    revise_dose(guidance)
    code, out, _ = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance), "--json")
    report = json.loads(out)
    (protocol,) = [d for d in report["documents"] if d["title"] == "Uncomplicated cystitis in adults"]
    assert (protocol["status"], protocol["revised"], protocol["unchanged"]) == ("revised", 1, 5)
    assert {d["status"] for d in report["documents"] if d is not protocol} == {"skipped"}

    async with Store.open(hippo_home / "hippo.db") as store:
        old = await store.get(cited.id)
        assert old is not None and old.status == "retired" and old.superseded_by
        successor = await store.get(old.superseded_by)
        assert successor is not None and "5 days" in successor.excerpt
        v = await verify(raw, store=store, client=judge(), model="offline")
    (attempt,) = [a for a in v.attempts if a.source_id == cited.id]
    assert attempt.check_one == "retired" and not attempt.shown
    assert f"superseded by {successor.id}" in attempt.reason
    assert "revised in Uncomplicated cystitis in adults (cystitis-protocol.md) on " in attempt.reason
    # Asked again, the answer cites the new wording.
    end, _ = await ask(hippo_home, QUESTION)
    assert successor.id in {c.id for c in end.citations} and "5 days" in end.text


def test_ingest_report_docs_and_show(capsys: pytest.CaptureFixture[str], guidance: Path) -> None:
    code, out, err = run(capsys, "kb", "ingest", str(guidance), "--name", "riverside")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3 and all(line.startswith("new ") for line in lines)
    assert "cystitis-protocol.md: added 6 · unchanged 0 · revised 0 · removed 0" in out
    assert "ingested 3 documents into 'riverside' (3 new, 0 revised, 0 unchanged)" in err
    code, out, _ = run(capsys, "kb", "ingest", str(guidance))
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["skipped"] * 3
    code, out, _ = run(capsys, "kb", "docs")
    assert "Uncomplicated cystitis in adults  [markdown]" in out and "6 active, 0 retired passages" in out
    code, out, _ = run(capsys, "kb", "docs", "--json")
    docs = [json.loads(line) for line in out.splitlines()]
    assert {d["format"] for d in docs} == {"markdown", "html", "text"} and all(
        len(d["versions"]) == 1 for d in docs
    )
    code, out, _ = run(capsys, "kb", "search", "clarithromycin sore throat", "-k", "1", "--json")
    hit = json.loads(out)
    assert hit["provenance"]["section"] == "alternatives"
    code, out, _ = run(capsys, "kb", "show", hit["id"])
    assert "penicillin-allergy.html#alternatives" in out and "version:" in out
    code, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["name"] == "riverside" and json.loads(out)["active"] == 12


def test_keep_demo_publisher_updated_and_dry_run(capsys: pytest.CaptureFixture[str], guidance: Path) -> None:
    code, out, err = run(capsys, "kb", "ingest", str(guidance), "--dry-run", "--json")
    assert code == 0 and json.loads(out)["dry_run"] is True and json.loads(out)["demo_retired"] == 70
    code, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["active"] == 70  # the dry run wrote nothing
    args = ("kb", "ingest", str(guidance / "formulary-note.txt"), "--keep-demo")
    code, out, err = run(capsys, *args, "--publisher", "County formulary", "--updated", "2026-11-30")
    assert code == 0 and "demo sources" not in err
    code, out, _ = run(capsys, "kb", "stats", "--json")
    assert json.loads(out)["active"] == 73 and json.loads(out)["name"] == "demo"
    code, out, _ = run(capsys, "kb", "search", "doxycycline dose", "-k", "1", "--json")
    assert json.loads(out)["publisher"] == "County formulary" and json.loads(out)["updated"] == "2026-11-30"
    # The same file with a different override is not skipped: the override is applied.
    code, out, _ = run(capsys, *args, "--publisher", "Regional formulary")
    assert out.startswith("reread ")  # metadata changed, not one passage
    with pytest.raises(SystemExit) as e:
        main(["kb", "ingest", str(guidance), "--updated", "yesterday"])
    assert e.value.code == EXIT_USAGE and "'yesterday' is not a date (YYYY-MM-DD)" in capsys.readouterr().err


def test_a_bad_file_is_listed_and_the_others_go_in(
    capsys: pytest.CaptureFixture[str], guidance: Path
) -> None:
    (guidance / "a-scan.pdf").write_bytes(b"%PDF-1.4\n")
    (guidance / "z-locked.pdf").write_bytes(pdf_bytes([["Secret dose."]], password="s3cret"))
    code, out, err = run(capsys, "kb", "ingest", str(guidance))
    assert code == EXIT_SOME_FAILED
    assert "new       " in out and "cystitis-protocol.md" in out and "a-scan.pdf" not in out
    failed = err[err.index("2 files could not be read; the others went in:") :]
    assert "a-scan.pdf: not a readable PDF" in failed and "z-locked.pdf: the PDF is encrypted" in failed
    code, out, _ = run(capsys, "kb", "search", "nitrofurantoin", "-k", "1")
    assert code == 0 and "Uncomplicated cystitis" in out


def test_strict_imports_nothing_and_names_every_bad_file(
    capsys: pytest.CaptureFixture[str], guidance: Path
) -> None:
    (guidance / "a-scan.pdf").write_bytes(b"%PDF-1.4\n")
    (guidance / "z-scan.pdf").write_bytes(b"%PDF-1.4\n")
    code, out, err = run(capsys, "kb", "ingest", str(guidance), "--strict")
    assert code == EXIT_USAGE and out == ""
    assert "2 files could not be read; nothing was imported (--strict)" in err
    assert "a-scan.pdf: not a readable PDF" in err and "z-scan.pdf: not a readable PDF" in err
    assert "demo sources" not in err
    code, out, _ = run(capsys, "kb", "docs")
    assert out == ""


def test_export_names_the_section_and_page(guidance: Path) -> None:
    from hippo_tui.events import Citation

    c = Citation(id="259cc32c-e48d-54a7-a413-47835d4627dd", number=1, title="Guideline › Adults",
                 grounding="grounded", where="Guideline › Adults, p. 3")  # fmt: skip
    md = to_markdown([Turn(question="Dose?", text="Give 5 mg. [1]", citations=[c])])
    assert "1. Guideline › Adults, p. 3 — verified" in md


def test_version_flag_does_not_import_the_parsers() -> None:
    code = (
        "import sys, runpy\n"
        "sys.argv = ['hippo-tui', '--version']\n"
        "try:\n    runpy.run_module('hippo_tui', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('lxml', 'pypdf', 'docx', 'markdown_it') if m in sys.modules]\n"
        "print('heavy=' + ','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == ["hippo-tui 0.1.0", "heavy="]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from hippo_tui.commands.ingest import _progress

    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    with _progress(3) as tick:
        for _ in range(3):
            tick()
    assert "reading documents" in tty.getvalue() and "3/3" in tty.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with _progress(3) as tick:
        tick()
    assert pipe.getvalue() == ""


def test_export_and_import_carry_provenance(
    capsys: pytest.CaptureFixture[str], guidance: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(capsys, "kb", "ingest", str(guidance / "penicillin-allergy.html"))
    exported = tmp_path / "kb.jsonl"
    code, _, _ = run(capsys, "kb", "export", "-o", str(exported))
    rows = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    ingested = [r for r in rows if "provenance" in r]
    assert len(ingested) == 3 and all(
        r["provenance"]["document"].endswith("penicillin-allergy.html") for r in ingested
    )
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path / "elsewhere"))
    code, _, _ = run(capsys, "kb", "import", str(exported))
    code, out, _ = run(capsys, "kb", "show", ingested[0]["id"], "--json")
    assert code == 0 and json.loads(out)["provenance"] == ingested[0]["provenance"]


AMOXICILLIN_PAGES = [
    [
        "Give amoxicillin 500 mg three times daily for 5 days to adults.",
        "Reduce the dose in severe renal impairment.",
    ],
    ["Children are given amoxicillin 40 mg/kg a day in three doses.", "Review the child at 48 hours."],
]


def write_amoxicillin_pdf(folder: Path) -> Path:
    path = folder / "amoxicillin.pdf"
    outline = [("Adults", 0), ("Children", 1)]
    path.write_bytes(pdf_bytes(AMOXICILLIN_PAGES, title="Amoxicillin guideline", outline=outline))
    return path


async def test_the_audit_names_the_pdf_page_a_citation_comes_from(
    capsys: pytest.CaptureFixture[str], guidance: Path, hippo_home: Path
) -> None:
    write_amoxicillin_pdf(guidance)
    code, _, _ = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance))
    assert code == 0
    end, _ = await ask(hippo_home, "What amoxicillin dose for children?")
    (cited,) = end.citations
    assert cited.where == "Amoxicillin guideline › Children, p. 2"
    code, out, _ = await asyncio.to_thread(run, capsys, "audit", "show", str(end.audit_id))
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("  [1]")]
    assert line.endswith(f"{cited.id} Amoxicillin guideline › Children, p. 2")
    code, out, _ = await asyncio.to_thread(run, capsys, "audit", "show", str(end.audit_id), "--json")
    (attempt,) = [a for a in json.loads(out)["citations"] if a["source_id"] == cited.id]
    assert (attempt["title"], attempt["where"]) == ("Amoxicillin guideline › Children", cited.where)


async def test_a_printed_page_number_is_cited_with_the_pdfs_own(
    capsys: pytest.CaptureFixture[str], guidance: Path, hippo_home: Path
) -> None:
    from pypdf import PdfReader, PdfWriter

    path = write_amoxicillin_pdf(guidance)
    writer = PdfWriter(clone_from=PdfReader(path))
    writer.set_page_label(0, 1, style="/D", start=84)  # a chapter printed as pages 84-85
    writer.write(path)
    code, _, _ = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance))
    assert code == 0
    end, _ = await ask(hippo_home, "What amoxicillin dose for children?")
    (cited,) = end.citations
    assert cited.where == "Amoxicillin guideline › Children, p. 85 (PDF p. 2)"
    code, out, _ = await asyncio.to_thread(run, capsys, "audit", "show", str(end.audit_id))
    assert out.count("Amoxicillin guideline › Children, p. 85 (PDF p. 2)") == 1
    code, out, _ = await asyncio.to_thread(run, capsys, "kb", "show", cited.id)
    assert "  page:      85 (PDF p. 2)" in out.splitlines() and "amoxicillin.pdf#children\n" in out
    code, out, _ = await asyncio.to_thread(run, capsys, "kb", "show", cited.id, "--json")
    stored = json.loads(out)["provenance"]
    assert (stored["page"], stored["section"]) == (2, "children@label=85")
    answer = guidance.parent / "answer.txt"
    answer.write_text(f"Children are given amoxicillin 40 mg/kg a day in three doses. [{cited.id}]\n")
    code, out, _ = await asyncio.to_thread(run, capsys, "verify", str(answer))
    assert "[1]   Amoxicillin guideline › Children, p. 85 (PDF p. 2)" in out
    code, out, _ = await asyncio.to_thread(run, capsys, "verify", str(answer), "--json")
    assert json.loads(out)["citations"][0]["where"] == cited.where


async def test_prune_retires_a_deleted_guideline_and_an_old_answer_citing_it_is_flagged(
    capsys: pytest.CaptureFixture[str], guidance: Path, hippo_home: Path
) -> None:
    write_amoxicillin_pdf(guidance)
    code, _, _ = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance))
    end, raw = await ask(hippo_home, "What amoxicillin dose for children?")
    (cited,) = end.citations
    (guidance / "amoxicillin.pdf").unlink()

    code, out, err = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance))
    assert (
        code == 0
        and "missing   " in out
        and "amoxicillin.pdf: no longer on disk; its 2 passages stay citable" in out
    )
    assert "1 document is no longer on disk: --prune retires their passages" in err
    code, out, _ = await asyncio.to_thread(
        run, capsys, "kb", "ingest", str(guidance), "--prune", "--dry-run", "--json"
    )
    (gone,) = [d for d in json.loads(out)["documents"] if d["status"] == "removed"]
    assert (gone["title"], gone["removed"], json.loads(out)["totals"]["removed"]) == (
        "Amoxicillin guideline",
        2,
        2,
    )
    code, out, err = await asyncio.to_thread(run, capsys, "kb", "ingest", str(guidance), "--prune")
    assert (
        code == 0
        and "amoxicillin.pdf: added 0 · unchanged 0 · revised 0 · removed 2  (Amoxicillin guideline)" in out
    )
    assert "(0 new, 0 revised, 3 unchanged, 1 removed)" in err

    async with Store.open(hippo_home / "hippo.db") as store:
        v = await verify(raw, store=store, client=judge(), model="offline")
    (attempt,) = [a for a in v.attempts if a.source_id == cited.id]
    assert attempt.check_one == "retired" and not attempt.shown
    assert "removed from Amoxicillin guideline (amoxicillin.pdf) on " in attempt.reason
    code, out, _ = await asyncio.to_thread(run, capsys, "kb", "docs")
    assert "removed (file gone) of " in out and "0 active, 2 retired passages" in out
