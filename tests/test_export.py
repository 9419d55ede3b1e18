"""Conversation export: Markdown for people, JSON for tools, and the copy-answer text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippo_tui.events import Citation
from hippo_tui.export import Turn, answer_with_citations, from_json, to_json, to_markdown, write
from hippo_tui.safe_text import has_special

ID1 = "3f2a8c1e-0000-4000-8000-000000000001"
ID2 = "3f2a8c1e-0000-4000-8000-000000000002"


def _turns() -> list[Turn]:
    return [
        Turn(
            question="How is uncomplicated cystitis treated?",
            text="A short course of antibiotics [1]. Drink fluids [2].",
            # Out of order on purpose: exports list them by number.
            citations=[
                Citation(id=ID2, number=2, title="Fluids and UTIs", grounding="unchecked"),
                Citation(id=ID1, number=1, title="Cystitis in adults", grounding="grounded"),
            ],
            outcome="complete",
            audit_id=12,
        ),
        Turn(question="And in pregnancy?", text="Pregnant women", citations=[], outcome="cancelled"),
    ]


def test_markdown_has_questions_answers_and_numbered_sources():
    md = to_markdown(_turns())
    assert md.startswith("# hippo-tui conversation\n")
    assert "## Question 1" in md and "## Question 2" in md
    assert "> How is uncomplicated cystitis treated?" in md
    assert "A short course of antibiotics [1]. Drink fluids [2]." in md
    first = md.index("1. Cystitis in adults — verified")
    second = md.index("2. Fluids and UTIs — unchecked")
    assert first < second
    assert f"`{ID1}`" in md
    assert "_Audit record 12: `hippo-tui audit show 12`_" in md
    assert "_Answer cancelled before it finished._" in md


def test_markdown_of_an_empty_conversation_says_so():
    assert "No questions asked yet" in to_markdown([])


def test_markdown_and_copy_text_carry_no_escape_sequences():
    turn = Turn(
        question="q\x1b[2J",
        text="evil \x1b]52;c;Zm9v\x07text\x1b[31m red",
        citations=[Citation(id=ID1, number=1, title="T\x1b[1mitle\nsecond line", grounding="grounded")],
    )
    for out in (to_markdown([turn]), answer_with_citations(turn)):
        assert "\x1b" not in out and "\x07" not in out
        assert "evil text red" in out
    # A title is one line in the source list, whatever it contained.
    assert "[1] Title second line (verified; source " in answer_with_citations(turn)


def test_copy_text_is_answer_then_sources():
    turn = _turns()[0]
    text = answer_with_citations(turn)
    assert text == (
        "A short course of antibiotics [1]. Drink fluids [2].\n\n"
        "Sources:\n"
        f"[1] Cystitis in adults (verified; source {ID1})\n"
        f"[2] Fluids and UTIs (unchecked; source {ID2})\n"
    )


def test_copy_text_without_citations_notes_an_unfinished_answer():
    text = answer_with_citations(_turns()[1])
    assert text == "Pregnant women\n\n(Answer cancelled before it finished.)\n"
    assert "Sources" not in text


def test_json_round_trips_and_is_tagged():
    turns = _turns()
    data = json.loads(to_json(turns))
    assert data["format"] == "hippo-tui.conversation" and data["version"] == 1
    assert [c["number"] for c in data["turns"][0]["citations"]] == [1, 2]
    back = from_json(to_json(turns))
    assert [t.question for t in back] == [t.question for t in turns]
    assert back[0].citations[0].id == ID1 and back[0].audit_id == 12
    assert back[1].outcome == "cancelled" and back[1].audit_id is None


def test_json_keeps_text_exactly_but_escapes_controls():
    turn = Turn(question="q", text="a\x1b[31mb «c»")
    out = to_json([turn])
    assert "\x1b" not in out  # json writes it as \u001b
    assert from_json(out)[0].text == "a\x1b[31mb «c»"


def test_from_json_rejects_other_files():
    with pytest.raises(ValueError):
        from_json('{"turns": []}')


def test_write_picks_the_format_by_suffix(tmp_path):
    turns = _turns()
    md = write(turns, tmp_path / "out" / "chat.md")
    js = write(turns, tmp_path / "chat.JSON")
    assert md.read_text(encoding="utf-8") == to_markdown(turns)
    assert json.loads(js.read_text(encoding="utf-8"))["format"] == "hippo-tui.conversation"


_texts = st.text(max_size=200)
_citations = st.lists(
    st.builds(
        Citation,
        id=st.uuids().map(str),
        number=st.integers(1, 50),
        title=_texts.filter(str.strip),
        grounding=st.sampled_from(["grounded", "unchecked"]),
    ),
    max_size=4,
)
_turn = st.builds(
    Turn,
    question=_texts,
    text=_texts,
    citations=_citations,
    outcome=st.sampled_from(["complete", "cancelled", "withdrawn", "error"]),
    audit_id=st.none() | st.integers(1, 10**6),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_turn, max_size=4))
def test_json_round_trips_any_conversation(turns):
    back = from_json(to_json(turns))
    assert [(t.question, t.text, t.outcome, t.audit_id) for t in back] == [
        (t.question, t.text, t.outcome, t.audit_id) for t in turns
    ]
    assert [sorted(c.number for c in t.citations) for t in back] == [
        sorted(c.number for c in t.citations) for t in turns
    ]


@settings(max_examples=60, deadline=None)
@given(st.lists(_turn, min_size=1, max_size=3))
def test_markdown_and_copy_text_are_inert_for_any_text(turns):
    for out in (to_markdown(turns), *(answer_with_citations(t) for t in turns)):
        assert not has_special(out)


def test_copy_markdown_and_json_carry_the_coverage_line():
    line = "1 of 2 statements backed by a verified source"
    turn = Turn("Q?", "Backed [1]. Not backed. [unverified]\n", [CITATION_FOR_COVERAGE], coverage=line)
    assert answer_with_citations(turn).rstrip().endswith(f"Coverage: {line}")
    assert f"_Coverage: {line}_" in to_markdown([turn])
    (back,) = from_json(to_json([turn]))
    assert back.coverage == line and "[unverified]" in back.text
    # An answer that did not complete has no coverage line, and an old export reads back without one.
    assert "Coverage" not in answer_with_citations(Turn("Q?", "Part", outcome="cancelled"))
    old = json.loads(to_json([Turn("Q?", "A.")]))
    del old["turns"][0]["coverage"]
    assert from_json(json.dumps(old))[0].coverage is None


CITATION_FOR_COVERAGE = Citation(id="a" * 8, number=1, title="Source", grounding="grounded")
