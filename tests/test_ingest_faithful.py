"""Real documents read faithfully: PDF words as printed, titles a clinician recognises, sections and
printed page numbers, and no junk (contents, navigation, references) among the citable passages. Each
document is built here with the defect a real guideline showed."""

from __future__ import annotations

import io
from pathlib import Path

from hippo_tui.ingest import pdf_text, titles
from hippo_tui.ingest.passages import passages
from hippo_tui.ingest.reading import Overrides, parse_document, parse_file
from hippo_tui.models import Provenance
from hippo_tui.provenance import origin, where
from tests.support.documents import pdf_bytes


def texts(path: Path, data: bytes) -> list[str]:
    path.write_bytes(data)
    return [p.excerpt for p in parse_file(path, Overrides()).passages]


def test_pdf_ligatures_and_the_space_after_them_are_read_as_letters(tmp_path: Path) -> None:
    data = pdf_bytes(
        [["Ciproﬂoxacin is ﬁrst line for staﬀ to prescribe. Ceﬁxime is the oﬃcial alternative."]]
    )
    (text,) = texts(tmp_path / "formulary.pdf", data)
    assert text == "Ciprofloxacin is first line for staff to prescribe. Cefixime is the official alternative."
    # pypdf's own output for some fonts: a space after each ligature glyph.
    assert (
        pdf_text.ligatures("Ciproﬂ oxacin, Ceﬁ xime; staﬀ and oﬀ duty")
        == "Ciprofloxacin, Cefixime; staff and off duty"
    )
    # And one already decomposed with the space left in: joined when the document spells the word whole.
    page = ["Aspirin is usually suffi cient for pain. A sufficient dose is 300 mg. Review the staff rota."]
    (text,) = texts(tmp_path / "aspirin.pdf", pdf_bytes([page]))
    assert text.startswith("Aspirin is usually sufficient for pain.") and "staff rota" in text


def test_line_break_hyphens_join_when_the_document_spells_the_word(tmp_path: Path) -> None:
    page = [
        "Oral treatment is preferred. Give a beta-\nblocker and start the treat-\nment early. Book a follow-\nup visit."
    ]
    (text,) = texts(tmp_path / "angina.pdf", pdf_bytes([page]))
    assert "start the treatment early" in text  # "treatment" is the document's own word
    assert "a beta-blocker" in text and "a follow-up visit" in text  # real hyphens stay


def test_drop_caps_and_running_headers(tmp_path: Path) -> None:
    body = [
        "P rophylaxis is given before surgery. Prophylaxis stops within a day.",
        "Cefazolin is the usual choice. Give it within the hour before incision.",
        "Redose after four hours of surgery. Redose after heavy blood loss too.",
        "Stop at wound closure in most cases. Longer courses add harm only.",
    ]
    pages = [["County Formulary 2026", text, f"Page {n} of 4"] for n, text in enumerate(body, start=1)]
    excerpts = texts(tmp_path / "prophylaxis.pdf", pdf_bytes(pages))
    assert excerpts[0].startswith("Prophylaxis is given before surgery.")
    assert not any("County Formulary" in t or "of 4" in t for t in excerpts)


def test_junk_metadata_gives_way_to_the_printed_title(tmp_path: Path) -> None:
    data = pdf_bytes([["# Antibiotic prescribing guide", "Give amoxicillin 500 mg three times daily."]],
                     title="Microsoft Word - abx_v3.docx")  # fmt: skip
    (tmp_path / "abx.pdf").write_bytes(data)
    doc = parse_file(tmp_path / "abx.pdf", Overrides())
    assert doc.doc.title == "Antibiotic prescribing guide"
    assert doc.passages[0].excerpt == "Give amoxicillin 500 mg three times daily."
    for junk in ("untitled", "Dept Health Guidelines.indd", "PowerPoint Presentation", "SouthAfrica.xls"):
        plain = pdf_bytes([["Give amoxicillin 500 mg three times daily."]], title=junk)
        assert (
            parse_document(tmp_path / "TB guidelines_2014.pdf", plain, Overrides()).title
            == "TB guidelines 2014"
        )


def test_printed_page_labels_are_the_pages_cited(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    raw = pdf_bytes(
        [["Foreword text is here for readers."], ["Contents page words."], ["Give 5 mg daily. Review."]]
    )
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw)))
    writer.set_page_label(0, 1, style="/r")
    writer.set_page_label(2, 2, style="/D", start=1)
    buf = io.BytesIO()
    writer.write(buf)
    (tmp_path / "labelled.pdf").write_bytes(buf.getvalue())
    ps = parse_file(tmp_path / "labelled.pdf", Overrides()).passages
    provenance = [Provenance(document="labelled.pdf", section=p.anchor, page=p.page, version="v", ingested="t")
                  for p in ps]  # fmt: skip
    # Both numbers: the printed "1" a reader finds on the page, the PDF's third page a viewer goes to.
    assert [where("Guide", p) for p in provenance] == [
        "Guide, p. i (PDF p. 1)", "Guide, p. ii (PDF p. 2)", "Guide, p. 1 (PDF p. 3)"
    ]  # fmt: skip
    assert [origin(p) for p in provenance] == ["labelled.pdf"] * 3
    (tmp_path / "plain.pdf").write_bytes(raw)  # no labels: the index alone, nothing added to the anchor
    plain = parse_file(tmp_path / "plain.pdf", Overrides()).passages
    assert [(p.page, p.anchor) for p in plain] == [(1, None), (2, None), (3, None)]


def test_a_pdf_tables_rows_stay_rows_and_prose_with_numbers_stays_prose(tmp_path: Path) -> None:
    page = [
        "Give amoxicillin 500 mg 8 hourly for\n5 days to adults with pneumonia.",
        "Budget in R million 2008/09 2009/10 2010/11\nLease payments 34.2 39.2 42.5\n"
        "Property payments 1.0 0.2 -\nTravel and subsistence 21.3 24.8 33.3",
    ]
    excerpts = texts(tmp_path / "plan.pdf", pdf_bytes([page]))
    assert "Give amoxicillin 500 mg 8 hourly for 5 days to adults with pneumonia." in excerpts[0]
    # Each row one line, as printed: not "Lease payments 34.2 39.2 42.5 Property payments 1.0 …".
    rows = "\n".join(excerpts).splitlines()
    assert "Lease payments 34.2 39.2 42.5" in rows and "Property payments 1.0 0.2 -" in rows
    assert "Travel and subsistence 21.3 24.8 33.3" in rows


def test_contents_navigation_references_and_wordless_text_are_not_passages(tmp_path: Path) -> None:
    md = """# Cystitis

## Contents

Introduction .......... 3

Treatment . . . . . . . . 5

## Treatment

Nitrofurantoin 100 mg twice daily for 3 days. Review at 48 hours.

Record the weight in kg: ______ and give paracetamol 15 mg/kg every six hours.

↑ Back to Table of Contents

1 2 3 4 5

Signature: ........................................

## References

1. Gupta K, Hooton TM, et al. International clinical practice guidelines. Clin Infect Dis. 2011;52(5):e103-20.
"""
    doc = parse_document(tmp_path / "cystitis.md", md.encode(), Overrides())
    assert [p.excerpt for p in passages(doc)] == [
        "Nitrofurantoin 100 mg twice daily for 3 days. Review at 48 hours. Record the weight in kg: … and give paracetamol 15 mg/kg every six hours."
    ]


def test_titles_without_marks_ids_or_repeats(tmp_path: Path) -> None:
    md = b"# Tranexamic Acid\n\n## Tranexamic Acid (TXA) {#txa}\n\nGive 1 g over 10 minutes. Then 1 g over 8 hours.\n"
    (p,) = passages(parse_document(tmp_path / "txa.md", md, Overrides()))
    assert p.title == "Tranexamic Acid (TXA)"
    doc = parse_document(
        tmp_path / "CG126 stable_angina.txt", b"Give aspirin 75 mg daily. Review yearly.\n", Overrides()
    )
    assert doc.title == "CG126 stable angina"  # the file name tidied, its capitals kept


def test_pdf_sections_from_headings_printed_larger(tmp_path: Path) -> None:
    page = ["# Urinary tract infection", "## Treatment", "Give nitrofurantoin 100 mg twice daily. Review at 48 hours.",
            "## Pregnancy", "Avoid nitrofurantoin at term. Use cefalexin instead."]  # fmt: skip
    (tmp_path / "uti.pdf").write_bytes(pdf_bytes([page]))
    ps = parse_file(tmp_path / "uti.pdf", Overrides())
    assert [(p.title, p.excerpt[:20]) for p in ps.passages] == [
        ("Urinary tract infection › Treatment", "Give nitrofurantoin "),
        ("Urinary tract infection › Pregnancy", "Avoid nitrofurantoin"),
    ]
    # A heading printed over two lines is one section, not a heading and a fragment of text.
    page = ["# Urinary tract infection", "## 4. Cystitis, uncomplicated (excluding\npregnancy and children)",
            "Give nitrofurantoin 100 mg twice daily for three days. Review at 48 hours if no better. "
            "Send a urine sample for culture before the first dose."]  # fmt: skip
    (tmp_path / "uti.pdf").write_bytes(pdf_bytes([page]))
    ((title, excerpt),) = [(p.title, p.excerpt) for p in parse_file(tmp_path / "uti.pdf", Overrides()).passages]
    assert title.endswith("› 4. Cystitis, uncomplicated (excluding pregnancy and children)")
    assert excerpt.startswith("Give nitrofurantoin")


def test_a_merged_word_cell_is_read_once(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Dosing", style="Title")
    table = document.add_table(rows=2, cols=3)
    for c, text in enumerate(("Drug", "Dose", "Notes")):
        table.cell(0, c).text = text
    merged = table.cell(1, 0).merge(table.cell(1, 2))
    merged.text = "Amoxicillin 500 mg three times daily for 5 days in every adult patient"
    document.save(str(tmp_path / "dosing.docx"))
    (p,) = parse_file(tmp_path / "dosing.docx", Overrides()).passages
    assert p.excerpt.count("Amoxicillin") == 1


def test_html_nested_past_the_parser_depth_is_a_warning(tmp_path: Path) -> None:
    page = "<html><body><p>Give fluids early in sepsis.</p>" + "<div>" * 300 + "<p>Deep.</p>" + "</div>" * 300
    (tmp_path / "deep.html").write_text(page + "</body></html>", encoding="utf-8")
    doc = parse_file(tmp_path / "deep.html", Overrides()).doc
    assert doc.warnings == ["nested deeper than 256 levels: the text past that depth was not read"]


def test_markdown_nested_past_the_parser_depth_is_a_warning(tmp_path: Path) -> None:
    warning = "quotes or lists nested deeper than 20 levels: the text past that depth was not read"
    quoted = "# Sepsis\n\nGive fluids early in sepsis.\n\n" + ">" * 25 + " Deep advice.\n"
    (tmp_path / "quoted.md").write_text(quoted, encoding="utf-8")
    doc = parse_file(tmp_path / "quoted.md", Overrides()).doc
    assert doc.warnings == [warning]
    listed = "# Sepsis\n\n" + "".join("  " * i + f"- step {i}\n" for i in range(12))
    (tmp_path / "listed.md").write_text(listed, encoding="utf-8")
    assert parse_file(tmp_path / "listed.md", Overrides()).doc.warnings == [warning]
    # Deep, but within what markdown-it reads: all of it is read, and nothing to warn about.
    (tmp_path / "fine.md").write_text(quoted.replace(">" * 25, ">" * 19), encoding="utf-8")
    fine = parse_file(tmp_path / "fine.md", Overrides())
    assert fine.doc.warnings == [] and "Deep advice." in fine.passages[-1].excerpt


def test_a_genre_label_printed_over_the_title_is_not_the_title(tmp_path: Path) -> None:
    body = "Screen every patient for depression at the first visit. Repeat the screen once a year."
    for label, title in [
        ("GUIDELINE", "Management of mental health disorders in adults with HIV"),
        ("PRESS RELEASE 13 August 2009", "Launch of a rural health advocacy project"),
    ]:
        data = pdf_bytes(
            [[f"# {label}", f"## {title}", body]], title="Guideline"
        )  # the metadata: a label too
        assert parse_document(tmp_path / "hiv-mh.pdf", data, Overrides()).title == title
    # A label with nothing under it leaves the file's name, not the label.
    data = pdf_bytes([["# GUIDELINE", body]])
    assert parse_document(tmp_path / "hiv_mental_health.pdf", data, Overrides()).title == "Hiv mental health"
    # A title that only starts like a label is a title.
    data = pdf_bytes([["# Protocol Sepsis in the emergency department", body]])
    assert parse_document(tmp_path / "x.pdf", data, Overrides()).title.startswith("Protocol Sepsis")


def test_a_printed_title_keeps_the_spaces_between_its_words() -> None:
    # The runs of one printed line come without the spaces the page's text has between them.
    page = "1\nTHE SOUTH AFRICAN ANTIRETROVIRAL\nTREATMENT GUIDELINES\n2013\nDate of implementation"
    assert (
        titles.spaced_as("THE SOUTH AFRICANANTIRETROVIRAL TREATMENT GUIDELINES 2013", page)
        == "THE SOUTH AFRICAN ANTIRETROVIRAL TREATMENT GUIDELINES 2013"
    )
    assert (
        titles.tidy_metadata("Copy of Press Statement on rural doctors") == "Press Statement on rural doctors"
    )


def test_html_items_and_breaks_in_a_markdown_cell_keep_their_words_apart(tmp_path: Path) -> None:
    (tmp_path / "drugs.md").write_text(
        "# Drug card\n\n| Drug | Dose |\n|---|---|\n"
        "| Labetalol | **Bolus:** 20 mg IV; MAX 300 mg cumulative<br>**Infusion:** 2 mg/min IV |\n"
        "| Epinephrine | <ol><li>Take a 10 ml syringe</li><li>Draw up 9 ml saline</li></ol> |\n",
        encoding="utf-8",
    )
    joined = " ".join(p.excerpt for p in parse_file(tmp_path / "drugs.md", Overrides()).passages)
    assert "cumulative Infusion: 2 mg/min" in joined and "syringe Draw up 9 ml" in joined


def test_a_break_hyphen_left_with_a_space_joins_as_the_document_spells_the_word(tmp_path: Path) -> None:
    page = [
        "Hypertension is often the first sign of pre- eclampsia. Screen for pre-eclampsia at every visit. "
        "Give the woman informa- tion about danger signs. Written information helps. "
        "Few clinics in low- and middle-income settings test urine."
    ]
    (text,) = texts(tmp_path / "antenatal.pdf", pdf_bytes([page]))
    assert "first sign of pre-eclampsia." in text and "Give the woman information about" in text
    assert "in low- and middle-income settings" in text  # a hyphen standing for "low-income" stays


def test_a_reference_with_an_online_article_number_is_not_a_passage(tmp_path: Path) -> None:
    (tmp_path / "aki.md").write_text(
        "# Neonatal kidney injury\n\nGive aminophylline 8 mg/kg IV once in the first hour of life.\n\n"
        "Raina A, et al. Theophylline at birth in asphyxia. Acta Paediatr 2016;105:e448-51.\n",
        encoding="utf-8",
    )
    excerpts = [p.excerpt for p in parse_file(tmp_path / "aki.md", Overrides()).passages]
    assert excerpts == ["Give aminophylline 8 mg/kg IV once in the first hour of life."]
