"""`kb ingest` parsers: each format's sections, passages and metadata, and each bad input's message."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippo_tui.ingest.document import Document, IngestError
from hippo_tui.ingest.passages import passages
from hippo_tui.ingest.reading import MAX_FILE_BYTES, Overrides, collect, parse_document, read_bytes
from tests.support.documents import pdf_bytes, write_docx

DOCS = Path(__file__).parent / "data" / "docs"


def read(path: Path, overrides: Overrides | None = None) -> Document:
    return parse_document(path, read_bytes(path), overrides or Overrides())


def by_title(doc: Document) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in passages(doc):
        out.setdefault(p.title, []).append(p.excerpt)
    return out


def test_markdown_front_matter_and_nested_headings() -> None:
    doc = read(DOCS / "cystitis-protocol.md")
    assert doc.title == "Uncomplicated cystitis in adults"
    assert doc.publisher == "Riverside Clinic antimicrobial group"
    assert doc.updated == date(2026, 9, 14)
    assert doc.url == "https://intranet.riverside.example/protocols/cystitis"
    titles = by_title(doc)
    assert "Uncomplicated cystitis in adults › Treatment › First line" in titles
    assert "Uncomplicated cystitis in adults › Assessment › Red flags" in titles
    first_line = titles["Uncomplicated cystitis in adults › Treatment › First line"][0]
    assert first_line.startswith("Nitrofurantoin 100 mg modified-release twice daily for 3 days")
    # A table row is one self-contained line, under its column headings.
    second = "\n".join(titles["Uncomplicated cystitis in adults › Treatment › Second line"])
    assert "Drug: Pivmecillinam; Dose: 200 mg three times daily; Duration: 3 days" in second
    anchors = {p.anchor for p in passages(doc)}
    assert {"assessment", "red-flags", "first-line", "second-line", "safety-netting"} <= anchors


def test_passages_are_two_to_five_whole_sentences() -> None:
    doc = read(DOCS / "cystitis-protocol.md")
    for p in passages(doc):
        assert p.excerpt[-1] in ".)" or "\n" in p.excerpt, p.excerpt  # ends on a whole sentence or a row
    long_section = "# T\n\n## S\n\n" + " ".join(f"Sentence number {i} is here." for i in range(12)) + "\n"
    path = Path("long.md")
    doc = parse_document(path, long_section.encode(), Overrides())
    counts = [p.excerpt.count(".") for p in passages(doc)]
    assert sum(counts) == 12 and all(2 <= c <= 5 for c in counts)


def test_document_text_is_made_inert() -> None:
    doc = read(DOCS / "cystitis-protocol.md")
    text = "".join(p.excerpt + (p.body or "") + p.title for p in passages(doc))
    assert "\x1b" not in text and "\x07" not in text and "pwned" not in text
    assert "hides an escape sequence in its text." in text


def test_html_main_content_only_and_its_table() -> None:
    doc = read(DOCS / "penicillin-allergy.html")
    assert doc.title == "Penicillin allergy"
    assert doc.publisher == "Riverside Clinic pharmacy" and doc.updated == date(2026, 10, 2)
    assert doc.url == "https://intranet.riverside.example/pharmacy/penicillin-allergy"
    text = "\n".join(p.excerpt + "\n" + (p.body or "") for p in passages(doc))
    for chrome in ("Staff rota", "analytics", "font-family", "webmaster", "Cephalosporin", "Search the site"):
        assert chrome not in text
    assert "Infection: Sore throat; Alternative: Clarithromycin; Dose: 250 mg twice daily for 5 days" in text
    assert "Record the reaction in the allergy field" in text
    assert "Penicillin allergy › Taking the history" in by_title(doc)


def test_text_note_headings_and_items() -> None:
    doc = read(DOCS / "formulary-note.txt")
    assert doc.title == "Formulary note: doxycycline"
    titles = by_title(doc)
    assert titles["Formulary note: doxycycline › Dosing"][0].startswith(
        "The usual adult dose is 200 mg on day one"
    )
    interactions = titles["Formulary note: doxycycline › Interactions"][0]
    assert interactions.splitlines() == [
        "Antacids, iron and zinc reduce its absorption: separate by 2 hours.",
        "It can raise the effect of warfarin: check the INR.",
    ]


def test_docx_headings_and_table(tmp_path: Path) -> None:
    path = write_docx(
        tmp_path / "asthma.docx",
        "Asthma in adults",
        [
            ("Heading 1", "Reliever"),
            ("Normal", "Use a combined inhaler as the reliever. Do not prescribe a SABA alone."),
            ("Heading 2", "Doses"),
            ("table", "Inhaler|Dose"),
            ("table", "Budesonide/formoterol 200/6|1 puff as needed"),
            ("List Bullet", "Review inhaler technique at every visit."),
        ],
    )
    doc = read(path)
    assert doc.title == "Asthma in adults" and doc.format == "docx"
    titles = by_title(doc)
    assert titles["Asthma in adults › Reliever"] == [
        "Use a combined inhaler as the reliever. Do not prescribe a SABA alone."
    ]
    assert titles["Asthma in adults › Reliever › Doses"] == [
        "Inhaler: Budesonide/formoterol 200/6; Dose: 1 puff as needed\nReview inhaler technique at every visit."
    ]


def test_pdf_pages_and_outline(tmp_path: Path) -> None:
    path = tmp_path / "amoxicillin.pdf"
    path.write_bytes(
        pdf_bytes(
            [
                ["Give 500 mg three times daily for 5 days.", "Reduce the dose in severe renal impairment."],
                ["Weight-based dosing applies to children.", "Review at 48 hours."],
                ["Stop if a rash appears.", "Report a severe reaction."],
            ],
            title="Amoxicillin guideline",
            outline=[("Adults", 0), ("Children", 1)],
        )
    )
    ps = passages(read(path))
    assert [(p.title, p.page) for p in ps] == [
        ("Amoxicillin guideline › Adults", 1),
        ("Amoxicillin guideline › Children", 2),
        ("Amoxicillin guideline › Children", 3),  # a passage never spans two pages
    ]
    assert (
        ps[0].excerpt
        == "Give 500 mg three times daily for 5 days. Reduce the dose in severe renal impairment."
    )


def test_pdf_without_outline_or_title(tmp_path: Path) -> None:
    path = tmp_path / "sepsis_screening-tool.pdf"
    path.write_bytes(
        pdf_bytes([["Screen every adult with a NEWS2 of 5 or more.", "Escalate within one hour."]])
    )
    (p,) = passages(read(path))
    assert p.title == "Sepsis screening tool" and p.page == 1


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("scan.pdf", pdf_bytes([[], []]), "no text layer"),
        ("locked.pdf", pdf_bytes([["Secret dose."]], password="s3cret"), "encrypted"),
        ("broken.pdf", b"%PDF-1.4\nnot really", "not a readable PDF"),
        ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not text (binary data)"),
        ("empty.md", b"---\ntitle: Nothing\n---\n\n# Nothing\n", "no text found"),
        ("fake.docx", b"PK not a zip", "not a readable Word document"),
    ],
)
def test_bad_documents_are_clear_errors(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(IngestError) as e:
        passages(read(path))
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(IngestError, match="over the 20 MiB limit per file"):
        read_bytes(path)


def test_collect_walks_folders_and_refuses_unknown_files(tmp_path: Path) -> None:
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / ".git" / "x.md").write_text("hidden")
    (tmp_path / "a" / "b.md").write_text("b")
    (tmp_path / "a" / "notes.csv").write_text("x")
    (tmp_path / "c.txt").write_text("c")
    found = collect([tmp_path, tmp_path / "c.txt"])
    assert found == [(tmp_path / "c.txt").resolve(), (tmp_path / "a" / "b.md").resolve()]  # each once
    with pytest.raises(IngestError, match="not a format ingest reads"):
        collect([tmp_path / "a" / "notes.csv"])
    with pytest.raises(IngestError, match="no such file or folder"):
        collect([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(IngestError, match="no documents found"):
        collect([tmp_path / "empty"])


def test_overrides_win(tmp_path: Path) -> None:
    doc = read(
        DOCS / "cystitis-protocol.md", Overrides(publisher="County formulary", updated=date(2026, 12, 1))
    )
    assert doc.publisher == "County formulary" and doc.updated == date(2026, 12, 1)


def test_identical_passages_in_one_document_get_two_ids(tmp_path: Path) -> None:
    warning = "Check the eGFR before prescribing. Stop it when the eGFR falls below 30."
    text = f"# Doc\n\n## A\n\n{warning}\n\n## B\n\n{warning}\n"
    ps = passages(parse_document(tmp_path / "d.md", text.encode(), Overrides()))
    assert len(ps) == 2 and ps[0].excerpt == ps[1].excerpt and ps[0].id != ps[1].id
    again = passages(parse_document(tmp_path / "d.md", text.encode(), Overrides()))
    assert [p.id for p in again] == [p.id for p in ps]
    other = passages(parse_document(tmp_path / "e.md", text.encode(), Overrides()))
    assert not {p.id for p in other} & {p.id for p in ps}  # the same wording in another document


def test_markdown_html_table_rows_reach_passages_with_their_header(tmp_path: Path) -> None:
    text = (
        "# Gout flare\n\nTreat early.\n\n<table>\n  <tr>\n    <th>Drug</th>\n    <th>Dose</th>\n  </tr>\n"
        '  <tr>\n    <td><span class="drug">Colchicine</span></td>\n    <td>500 micrograms twice daily</td>\n'
        "  </tr>\n<script>track()</script>\n</table>\n\n<!-- a comment -->\n\nReview in a week.\n"
    )
    ps = passages(parse_document(tmp_path / "gout.md", text.encode(), Overrides()))
    found = "\n".join(p.excerpt + "\n" + (p.body or "") for p in ps)
    assert "Drug: Colchicine; Dose: 500 micrograms twice daily" in found
    assert "Treat early." in found and "Review in a week." in found
    assert "track()" not in found and "a comment" not in found


_MARKDOWN_PIECES = [*"ab c\n\t*_[]()<>&;#!`\\-+.:1|", "&amp;", "**x**", "[l](u)", "![alt](i.png)", "  \n",
                    "<b>", "\\*", "`c`", "# ", "- ", "> ", "1. "]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_MARKDOWN_PIECES), max_size=30).map("".join))
def test_markdown_text_is_what_the_full_inline_parser_reads(text: str) -> None:
    """Plain lines skip markdown-it's inline parser: the text read must be what the parser would give."""
    from markdown_it import MarkdownIt

    from hippo_tui.ingest import markdown
    from hippo_tui.ingest.document import clean

    def inline_text(token: Any) -> str:
        kinds = {"text": 1, "code_inline": 1, "image": 1, "softbreak": 0, "hardbreak": 0}
        return "".join(c.content if kinds[c.type] else " " for c in token.children if c.type in kinds)

    full = [t for t in MarkdownIt("commonmark").enable("table").parse(text) if t.type == "inline"]
    fast = [t for t in markdown._MD.parse(text) if t.type == "inline"]
    assert [clean(markdown._inline_text(t)) for t in fast] == [clean(inline_text(t)) for t in full]


def test_docx_with_thousands_of_styles_keeps_its_headings(tmp_path: Path) -> None:
    # Styles are named from one table, not found by scanning every style per paragraph (10,000 paragraphs
    # and 2,000 styles took 47 s); headings, lists and the default style still read as before.
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    d = docx.Document()
    for i in range(300):
        d.styles.add_style(f"Custom {i}", WD_STYLE_TYPE.PARAGRAPH)
    d.add_paragraph("Gout", style="Heading 1")
    d.add_paragraph("Give colchicine 500 micrograms twice daily.", style="Custom 7")
    d.add_paragraph("Review after a week.")  # the default style, no pStyle of its own
    d.add_paragraph("Do not stop allopurinol.", style="List Bullet")
    path = tmp_path / "gout.docx"
    d.save(str(path))
    titles = by_title(read(path))
    (text,) = [v for k, v in titles.items() if k.endswith("Gout")]
    assert text == [
        "Give colchicine 500 micrograms twice daily. Review after a week.\nDo not stop allopurinol."
    ]
