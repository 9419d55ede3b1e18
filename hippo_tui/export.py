"""The conversation as Markdown or JSON, and the text "copy answer" puts on the clipboard.

Plain Python (no Textual): the app calls it, and so can any other front end. Markdown and the copy text are
read by people, often pasted into a terminal, so model/KB text is sanitised (no escape sequences survive).
JSON keeps the text as it was: ``json`` escapes control characters itself, and a tool reading the export
should get exactly what the reader was shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hippo_tui.events import Citation
from hippo_tui.safe_text import clip, sanitize

FORMAT_NAME = "hippo-tui.conversation"
FORMAT_VERSION = 1

# How an answer that did not complete is marked in Markdown and in the copy text.
_OUTCOME_NOTES = {
    "cancelled": "Answer cancelled before it finished.",
    "withdrawn": "Answer withdrawn by the safety check.",
    "error": "Answer stopped by an error.",
    "in_flight": "Answer still being written when exported.",
}


@dataclass
class Turn:
    """One question and its answer, as the reader saw it at the end (verified ``[n]`` markers only)."""

    question: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    outcome: str = "complete"
    audit_id: int | None = None
    # "4 of 5 statements backed by a verified source" (unbacked ones are marked in ``text``); None when the
    # answer did not complete or has no statement.
    coverage: str | None = None


def _label(c: Citation) -> str:
    """The source as a reader should find it: "Document › Section, p. 3" for an ingested passage."""
    return clip(c.where or c.title, flat=True)


def _citation_line(c: Citation) -> str:
    status = "verified" if c.grounding == "grounded" else "unchecked"
    return f"[{c.number}] {_label(c)} ({status}; source {c.id})"


def _sorted(citations: Sequence[Citation]) -> list[Citation]:
    return sorted(citations, key=lambda c: c.number)


def answer_with_citations(turn: Turn) -> str:
    """The answer followed by its numbered source list: what "copy answer" puts on the clipboard."""
    parts = [sanitize(turn.text).strip()]
    note = _OUTCOME_NOTES.get(turn.outcome)
    if note:
        parts.append(f"({note})")
    if turn.citations:
        parts.append("Sources:\n" + "\n".join(_citation_line(c) for c in _sorted(turn.citations)))
    if turn.coverage:
        parts.append(f"Coverage: {sanitize(turn.coverage)}")
    return "\n\n".join(p for p in parts if p) + "\n"


def _quote(text: str) -> str:
    lines = sanitize(text).strip().splitlines() or [""]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def to_markdown(turns: Sequence[Turn]) -> str:
    """The conversation as Markdown: each question quoted, its answer, and a numbered citation list."""
    out = ["# hippo-tui conversation", ""]
    if not turns:
        out += ["_No questions asked yet._", ""]
    for i, turn in enumerate(turns, 1):
        out += [f"## Question {i}", "", _quote(turn.question), ""]
        answer = sanitize(turn.text).strip()
        if answer:
            out += [answer, ""]
        note = _OUTCOME_NOTES.get(turn.outcome)
        if note:
            out += [f"_{note}_", ""]
        if turn.citations:
            out += ["**Sources**", ""]
            for c in _sorted(turn.citations):
                status = "verified" if c.grounding == "grounded" else "unchecked"
                out.append(f"{c.number}. {_label(c)} — {status} (source `{c.id}`)")
            out.append("")
        if turn.coverage:
            out += [f"_Coverage: {sanitize(turn.coverage)}_", ""]
        if turn.audit_id is not None:
            out += [f"_Audit record {turn.audit_id}: `hippo-tui audit show {turn.audit_id}`_", ""]
    return "\n".join(out)


def to_json(turns: Sequence[Turn]) -> str:
    """The conversation as JSON (one object with a ``turns`` list); round-trips through ``from_json``."""
    payload = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "turns": [
            {
                "question": t.question,
                "text": t.text,
                "outcome": t.outcome,
                "audit_id": t.audit_id,
                "coverage": t.coverage,
                "citations": [c.model_dump() for c in _sorted(t.citations)],
            }
            for t in turns
        ],
    }
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def from_json(data: str) -> list[Turn]:
    """Read back what ``to_json`` wrote (raises ValueError when it is not such a file)."""
    payload = json.loads(data)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_NAME:
        raise ValueError("not a hippo-tui conversation export")
    return [
        Turn(
            question=t["question"],
            text=t["text"],
            outcome=t.get("outcome", "complete"),
            audit_id=t.get("audit_id"),
            coverage=t.get("coverage"),
            citations=[Citation.model_validate(c) for c in t.get("citations", [])],
        )
        for t in payload["turns"]
    ]


def write(turns: Sequence[Turn], path: Path) -> Path:
    """Write the conversation to ``path``: JSON when it ends in ``.json``, Markdown otherwise."""
    text = to_json(turns) if path.suffix.lower() == ".json" else to_markdown(turns)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
