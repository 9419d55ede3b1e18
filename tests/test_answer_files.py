"""What `hippo-tui verify` reads: each form an answer comes in, back to text with [id] markers."""

from __future__ import annotations

import json

import pytest

from hippo_tui.events import Citation, EndEvent, to_json
from hippo_tui.export import Turn, to_markdown
from hippo_tui.verification.answer_files import AnswerFileError, read_answer

A = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"
B = "8920c0a1-c079-4734-86fe-6c9b0259cc70"


def cites(*ids: str) -> list[Citation]:
    return [Citation(id=i, number=n, title=f"T{n}", grounding="grounded") for n, i in enumerate(ids, 1)]


def test_a_markdown_export_keeps_the_answers_own_quotes_and_italics():
    turn = Turn(
        question="First line?\nsecond line",
        text="> A quoted rule. [1]\n\n_Always_ check the eGFR first. [2]",
        citations=cites(A, B),
        audit_id=9,
    )
    found = read_answer(to_markdown([turn]), "x.md")
    assert found.question == "First line? second line"
    assert found.text == f"> A quoted rule. [{A}]\n\n_Always_ check the eGFR first. [{B}]"
    assert (found.turn, found.turns, found.unresolved) == (1, 1, [])


def test_one_end_event_on_its_own_and_a_withdrawn_answer():
    end = EndEvent(text="Five mg daily. [1]", citations=cites(A), audit_id=1)
    assert read_answer(to_json(end), "end.json").text == f"Five mg daily. [{A}]"
    withdrawn = EndEvent(text="", citations=[], audit_id=2, outcome="withdrawn")
    with pytest.raises(AnswerFileError, match="was withdrawn: there is no final text to check"):
        read_answer(to_json(withdrawn), "end.json")


def test_a_hand_written_source_list_without_a_heading():
    text = f"Start at 5 mg [1]. Review in a week [2].\n\n[1] Hypertension, {A}\n2. Cystitis ({B})\n"
    found = read_answer(text, "note.txt")
    assert found.text == f"Start at 5 mg [{A}]. Review in a week [{B}]."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "hippo-tui.conversation", "turns": [{"text": 1}]}', "a damaged one"),
        ('{"format": "hippo-tui.conversation", "version": 1, "turns": []}', "with no answers in it"),
        ("[1, 2", "looks like JSON but is not"),
        (json.dumps({"type": "error", "kind": "server", "message": "boom"}), r"ended in an error \(server\)"),
    ],
)
def test_json_that_is_not_an_answer_says_what_it_is(text: str, message: str):
    with pytest.raises(AnswerFileError, match=message):
        read_answer(text, "x.json")
