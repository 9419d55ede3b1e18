"""Coverage: the statement rule (what counts as a statement, what backs it), abstention, and the marking."""

from __future__ import annotations

import pytest

from hippo_tui.events import Citation, Coverage
from hippo_tui.verification.coverage import UNBACKED_MARK, mark_unbacked, measure, says_not_covered
from hippo_tui.verification.markers import sentence_spans, split_sentences

SHOWN = [
    Citation(id="a", number=1, title="One", grounding="grounded"),
    Citation(id="b", number=2, title="Two", grounding="unchecked"),
]


def unbacked(text: str) -> list[str]:
    return [text[a:b] for a, b in measure(text, SHOWN).unbacked]


def counts(text: str) -> tuple[int, int]:
    c = measure(text, SHOWN)
    return c.backed, c.statements


@pytest.mark.parametrize(
    ("text", "backed", "statements"),
    [
        ("Start at 5 mg once daily. [1] Review at 4 weeks.", 1, 2),
        ("Start at 5 mg once daily [1]. Review at 4 weeks [2].", 2, 2),
        # A citation after the full stop belongs to the sentence before it, not the next one.
        ("Start at 5 mg. [1] Review at 4 weeks.", 1, 2),
        # Several markers, side by side or in a list.
        ("Start at 5 mg [1][2]. Stop at 10 mg. [1], [2] Then rest.", 2, 3),
        # Abbreviations and decimals do not split a statement.
        ("Give e.g. 2.5 mg t.i.d. for 5 days, approx. twice the dose [1]. Dr. Smith agrees.", 1, 2),
        # "[3]" is no shown citation: it backs nothing.
        ("Start at 5 mg [3].", 0, 1),
    ],
)
def test_what_backs_a_statement(text, backed, statements):
    assert counts(text) == (backed, statements)


def test_headings_lead_ins_and_code_are_not_claims():
    text = (
        "## Dosing\n\n"
        "**First-line options**\n"
        "Options:\n"
        "- Amlodipine 5 mg once daily [1]\n"
        "- Ramipril 2.5 mg once daily\n\n"
        "```\nhippo-tui kb ingest guide.md. Then check.\n```\n"
        "`hippo-tui audit stats`\n"
        "---\n"
    )
    assert unbacked(text) == ["Ramipril 2.5 mg once daily"]
    assert counts(text) == (1, 2)


def test_a_long_lead_in_or_a_bold_claim_is_still_a_statement():
    text = "Amlodipine is started at 5 mg once daily in adults over 55 without other conditions, and:\n**Stop at 10 mg**"
    assert len(unbacked(text)) == 2


def test_a_tables_header_row_is_scaffolding_its_rows_are_not():
    text = "| Drug | Dose |\n|---|---|\n| Amlodipine | 5 mg [1] |\n| Ramipril | 2.5 mg |"
    assert unbacked(text) == ["| Ramipril | 2.5 mg |"]


def test_a_closing_source_list_is_not_counted():
    text = "Start at 5 mg [1]. Review at 4 weeks.\n\nSources:\n[1] One\n[2] Two\n- Three"
    assert counts(text) == (1, 2)
    inline = "Start at 5 mg [1].\n**References:** [1], [2]"
    assert counts(inline) == (1, 1)


def test_markers_alone_back_the_statement_before_but_not_across_code():
    assert counts("Start at 5 mg once daily.\n[1]") == (1, 1)
    assert counts("Start at 5 mg once daily.\n```\nx = 1\n```\n[1]") == (0, 1)


def test_a_citation_inside_code_is_no_citation():
    assert counts("Write `[1]` after the sentence.") == (0, 1)


@pytest.mark.parametrize(
    "sentence",
    [
        "The knowledge base does not cover semaglutide for weight loss.",
        "The knowledge base I was given does not cover weight loss.",
        "The sources do not cover this question.",
        "The provided sources don’t mention semaglutide.",
        "Semaglutide dosing is not covered by the knowledge base.",
        "I could not find anything about semaglutide in the knowledge base.",
        "I couldn't find the starting dose in the sources.",
        "There is no information about semaglutide in the knowledge base.",
        "The knowledge base has nothing on semaglutide.",
    ],
)
def test_not_covered_phrasings(sentence):
    assert says_not_covered(sentence)
    assert measure(sentence, []) == Coverage(abstained=True)


@pytest.mark.parametrize(
    "sentence",
    [
        "Metformin does not cover the risk of lactic acidosis.",
        "The source says the tablet does not contain lactose.",
        "The sources do not cover semaglutide, but the usual starting dose is 0.25 mg weekly.",
        "Do not stop the statin.",
    ],
)
def test_a_claim_is_not_taken_for_not_covered(sentence):
    assert not says_not_covered(sentence)
    assert measure(sentence, []).statements == 1


def test_saying_not_covered_and_answering_anyway_is_no_abstention():
    text = "The knowledge base does not cover semaglutide. The usual starting dose is 0.25 mg weekly."
    c = measure(text, [])
    assert not c.abstained and (c.backed, c.statements) == (0, 1)
    assert c.line == "Nothing in this answer was checked against a source"


def test_a_part_not_covered_beside_a_backed_answer():
    text = "Start amlodipine at 5 mg [1]. The knowledge base does not cover dosing in pregnancy."
    c = measure(text, SHOWN)
    assert (c.backed, c.statements, c.abstained) == (1, 1, False)


def test_the_line_the_reader_sees():
    text = "A is 1 mg [1]. B is 2 mg [1]. C is 3 mg [2]. D is 4 mg [1]. E is 5 mg."
    assert measure(text, SHOWN).line == "4 of 5 statements backed by a verified source"


def test_mark_unbacked_marks_each_unbacked_statement_once_in_place():
    text = "Start at 5 mg. [1] Review at 4 weeks.\n- Check potassium\n- Check sodium [2]"
    marked = mark_unbacked(text, measure(text, SHOWN))
    assert marked == (
        f"Start at 5 mg. [1] Review at 4 weeks.{UNBACKED_MARK}\n- Check potassium{UNBACKED_MARK}\n- Check sodium [2]"
    )
    assert mark_unbacked(text, measure(text, SHOWN), "†").count("†") == 2


def test_sentence_spans_are_the_pieces_split_sentences_returns():
    text = "  - Start at 5 mg. [0b6f8f6e-2a43-4c7e-9d53-0e1b2c3d4e5f] Then stop.\n\n# Heading\n```\nx. y\n```"
    assert [text[a:b] for a, b in sentence_spans(text)] == split_sentences(text)
    final = "Start at 5 mg. [1] Then stop. [2]\n[1] One"
    assert [final[a:b] for a, b in sentence_spans(final, numbered=True)] == [
        "Start at 5 mg. [1]",
        "Then stop. [2]",
        "[1] One",
    ]
