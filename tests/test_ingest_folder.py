"""A folder as a clinic has it: every readable file goes in, whatever else sits beside it; nothing is left
out without a word, nothing outside the folder is read, and no file name can forge a line of the report."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from hippo_tui.cli import main
from hippo_tui.commands.ingest import EXIT_SOME_FAILED
from hippo_tui.ingest.finding import find
from hippo_tui.ingest.reading import Overrides, parse_document

GOOD = "# Cystitis\n\n## Treatment\n\nNitrofurantoin 100 mg twice daily for 3 days. Review at 48 hours.\n"


@pytest.fixture
def folder(tmp_path: Path, hippo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with one good document, an empty config, and the working directory beside it."""
    (tmp_path / "config.toml").touch()
    monkeypatch.setenv("HIPPO_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "guidance").mkdir()
    (tmp_path / "guidance" / "cystitis.md").write_text(GOOD, encoding="utf-8")
    return tmp_path / "guidance"


def ingest(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = main(["kb", "ingest", *argv, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_other_formats_are_counted_and_quarto_is_markdown(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    (folder / "icu-note.qmd").write_text("# Sedation\n\nPropofol is titrated to effect.\n", encoding="utf-8")
    (folder / "rates.xlsx").write_bytes(b"PK")
    (folder / "logo.png").write_bytes(b"\x89PNG")
    (folder / "other.png").write_bytes(b"\x89PNG")
    code, report, _ = ingest(capsys, str(folder))
    assert code == 0
    assert {d["title"] for d in report["documents"]} == {"Cystitis", "Sedation"}
    assert report["not_read_formats"] == {".png": 2, ".xlsx": 1}
    main(["kb", "ingest", str(folder), "--dry-run"])
    assert "not read: 3 files of formats ingest does not read (.png 2, .xlsx 1)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        (
            "latin1.txt",
            "Caf\xe9 note\n\nGive 500 mg paracetamol with caf\xe9 au lait.\n".encode("latin-1"),
            "caf\xe9",
        ),
        (
            "cp1252.txt",
            "Dose\n\nThe \u201cusual\u201d dose \u2013 500 mg.\n".encode("cp1252"),
            "\u201cusual\u201d",
        ),
        ("utf16.md", "# Dose\n\nGive 500 mg \u00e9.\n".encode("utf-16"), "500 mg \u00e9"),
        ("utf32.txt", "Dose\n\nGive 500 mg \u00e9.\n".encode("utf-32"), "500 mg \u00e9"),
    ],
)
def test_legacy_and_bom_encodings_are_read(tmp_path: Path, name: str, data: bytes, expected: str) -> None:
    doc = parse_document(tmp_path / name, data, Overrides())
    text = " ".join(b.text for s in doc.sections for b in s.blocks)
    assert expected in text


def test_a_bad_date_is_a_warning_and_the_file_goes_in(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    (folder / "dated.md").write_text(
        "---\nupdated: last Tuesday\n---\n# Dated\n\nGive fluids.\n", encoding="utf-8"
    )
    (folder / "slashes.md").write_text(
        "---\ncreated: 2011/07/22\nupdates:\n    - 2017/02/21\n---\n# S\n\nRest.\n"
    )
    code, report, _ = ingest(capsys, str(folder))
    assert code == 0 and len(report["documents"]) == 3
    assert any("dated.md: updated 'last Tuesday' is not a date" in w for w in report["warnings"])
    main(["kb", "search", "rest", "--json"])
    assert json.loads(capsys.readouterr().out.splitlines()[0])["updated"] == "2017-02-21"


def test_markdown_in_a_txt_file_and_a_page_all_in_headings(tmp_path: Path) -> None:
    doc = parse_document(
        tmp_path / "note.txt", b"# Early breast cancer\n\n## Surgery\n\n* Offer surgery.\n", Overrides()
    )
    assert doc.title == "Early breast cancer" and doc.sections[0].headings == ("Surgery",)
    page = b"<html><body><h1>Sepsis</h1><h2>Give antibiotics within one hour</h2><h3>Take cultures first</h3>"
    doc = parse_document(tmp_path / "summary.html", page, Overrides())
    texts = [b.text for s in doc.sections for b in s.blocks]
    assert texts == ["Give antibiotics within one hour", "Take cultures first"]


def test_only_the_folders_own_regular_files(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "private.md"
    outside.write_text("# Private\n\nNot for the knowledge base.\n", encoding="utf-8")
    (folder / "leak.md").symlink_to(outside)
    (folder / "again.md").symlink_to(folder / "cystitis.md")  # inside: read once, under its own name
    (folder / "loop.md").symlink_to(folder / "loop.md")
    (folder / "dangling.md").symlink_to(tmp_path / "gone.md")
    (folder / "noext").symlink_to(outside)
    os.mkfifo(folder / "pipe.txt")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "sock.md"))
        (folder / ".git").mkdir()
        (folder / ".git" / "hidden.md").write_text("# Hidden\n\nText.\n", encoding="utf-8")
        found = find([folder])
    assert found.paths == [(folder / "cystitis.md").resolve()]
    why = "\n".join(found.warnings)
    assert "leak.md: links outside the folders named; not followed" in why
    assert "loop.md: a link loop" in why and "dangling.md: a link that leads nowhere" in why
    assert "pipe.txt: not a regular file" in why and "sock.md: not a regular file" in why
    assert "hidden" not in why


def test_an_unlistable_folder_is_a_warning(
    capsys: pytest.CaptureFixture[str], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = folder / "locked"
    locked.mkdir()
    (locked / "sepsis.md").write_text(GOOD.replace("Cystitis", "Sepsis"), encoding="utf-8")
    code, report, _ = ingest(capsys, str(folder))
    assert code == 0 and len(report["documents"]) == 2
    locked.chmod(0)
    if os.geteuid() == 0:  # root lists every folder (CI runs as root): the listing fails as it does for a user
        import hippo_tui.ingest.finding as finding

        real = os.scandir

        def scandir(path: str) -> object:
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr(finding.os, "scandir", scandir)
    try:
        code, report, _ = ingest(capsys, str(folder))  # a re-ingest: the folder's document was stored
        pruned, after_prune, _ = ingest(capsys, str(folder), "--prune")
    finally:
        locked.chmod(0o755)
    assert code == 0 and any(
        w.endswith("locked: cannot list the folder (Permission denied); its files were not read")
        for w in report["warnings"]
    )
    # Its document was not seen, but nothing says it is gone: it is not retired, even with --prune.
    assert pruned == 0 and [d["status"] for d in after_prune["documents"]] == ["skipped"]
    main(["kb", "search", "Sepsis nitrofurantoin"])
    assert "Sepsis" in capsys.readouterr().out


def test_a_file_name_cannot_forge_a_line(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    (folder / "a\nnew       fake.md: added 999\x1b[2K.md").write_text(GOOD.replace("Cystitis", "Forged"))
    (folder / "broken\n.pdf").write_bytes(b"%PDF-1.4\n")
    code = main(["kb", "ingest", str(folder)])
    out, err = capsys.readouterr()
    assert code == EXIT_SOME_FAILED
    assert len(out.splitlines()) == 2 and not any(
        line.startswith("new       fake.md") for line in out.splitlines()
    )
    assert "a\\nnew       fake.md: added 999.md" in out and "\x1b" not in out + err
    assert "  guidance/broken\\n.pdf: not a readable PDF" in err
    main(["kb", "docs"])
    assert len(capsys.readouterr().out.splitlines()) == 4  # two documents, two lines each


def test_a_manifest_sets_titles_per_file_and_glob(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    (folder / "protocols").mkdir()
    (folder / "protocols" / "sepsis.md").write_text(
        "# sepsis v3 FINAL\n\nGive antibiotics within one hour.\n"
    )
    (folder / "hippo-kb.toml").write_text(
        '["cystitis.md"]\ntitle = "Uncomplicated cystitis in adults"\nupdated = 2026-01-31\n\n'
        '["protocols/*.md"]\npublisher = "County hospital"\nurl = "https://example.org/protocols"\n',
        encoding="utf-8",
    )
    code, report, _ = ingest(capsys, str(folder))
    assert code == 0 and report["not_read_formats"] == {}
    assert {d["title"] for d in report["documents"]} == {
        "Uncomplicated cystitis in adults",
        "sepsis v3 FINAL",
    }
    main(["kb", "search", "antibiotics within one hour", "--json"])
    hit = json.loads(capsys.readouterr().out.splitlines()[0])
    assert hit["publisher"] == "County hospital"
    main(["kb", "show", hit["id"]])
    assert "https://example.org/protocols" in capsys.readouterr().out
    (folder / "hippo-kb.toml").write_text('["cystitis.md"]\ntitle = "T"\ntitel = "typo"\n', encoding="utf-8")
    assert main(["kb", "ingest", str(folder)]) == 2
    assert "hippo-kb.toml: line 3: unknown key 'titel'" in capsys.readouterr().err


def test_documents_printing_the_same_title_are_told_apart(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    summary = "# DRTB Treatment and ARVs\n\nGive bedaquiline for {0}. Review monthly.\n"
    (folder / "DRTB_Interim_Summary_Adults.md").write_text(summary.format("adults"), encoding="utf-8")
    (folder / "DRTB_Interim_Summary_Children.md").write_text(summary.format("children"), encoding="utf-8")
    policy = "---\nupdated: {0}-01-01\n---\n# National Drug Policy\n\nEssential medicines for all, {0}.\n"
    (folder / "policy-a.md").write_text(policy.format(1996), encoding="utf-8")
    (folder / "policy-b.md").write_text(policy.format(2021), encoding="utf-8")
    code, report, _ = ingest(capsys, str(folder))
    assert code == 0 and sorted(d["title"] for d in report["documents"]) == [
        "Cystitis",
        "DRTB Treatment and ARVs (DRTB Interim Summary Adults)",
        "DRTB Treatment and ARVs (DRTB Interim Summary Children)",
        "National Drug Policy (1996)",
        "National Drug Policy (2021)",
    ]
    main(["kb", "search", "bedaquiline children"])
    assert "1. DRTB Treatment and ARVs (DRTB Interim Summary Children)  [" in capsys.readouterr().out
    # One more later, beside the stored ones: it is told apart too, and a re-read keeps the titles.
    later = folder.parent / "later"
    later.mkdir()
    (later / "drtb-2019.md").write_text(summary.format("infants"), encoding="utf-8")
    code, report, _ = ingest(capsys, str(later))
    assert [d["title"] for d in report["documents"]] == ["DRTB Treatment and ARVs (2019)"]
    (folder / "DRTB_Interim_Summary_Adults.md").write_text(summary.format("adults over 18"), encoding="utf-8")
    code, report, _ = ingest(capsys, str(folder))
    assert {d["title"] for d in report["documents"] if d["status"] == "revised"} == {
        "DRTB Treatment and ARVs (DRTB Interim Summary Adults)"
    }
