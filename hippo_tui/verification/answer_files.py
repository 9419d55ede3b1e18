"""Reading an answer written elsewhere, to check its citations: what ``hippo-tui verify`` accepts.

- plain text with ``[source-id]`` markers (another tool's output, a colleague's note);
- text with numbered markers and a source list whose lines name the ids: the app's "copy answer" text
  (``[1] Title (verified; source ID)``) or anything written the same way;
- the app's conversation export, Markdown or JSON (one answer of it: the last, or ``turn``);
- ``hippo-tui ask --json`` output (its ``end`` event), or one ``end`` event on its own.

Numbered markers go back to ``[id]`` through the source list, so what is checked is what the reader saw. An
export keeps only the citations that passed when it was written: verify checks them against the knowledge
base as it is now (a source retired since is flagged).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from hippo_tui import export
from hippo_tui.events import Citation, EndEvent, ErrorEvent, parse_event
from hippo_tui.verification.markers import cited_ids, ids_for_numbers, source_ids_in

MAX_BYTES = 4_000_000  # far more than any answer; a bigger file is something else

# Control characters other than tab, newline and carriage return: a few are noise, many mean binary data.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SOURCES_HEADING = re.compile(r"^\s*(?:#{1,6}\s*)?(?:\*\*)?sources(?:\*\*)?\s*:?\s*$", re.I)
_LEGEND_LINE = re.compile(r"^\s*(?:[-*]\s+)?(?:\[(\d{1,3})\]|(\d{1,3})[.)])\s+\S")
_QUESTION_HEADING = re.compile(r"^## Question (\d+)\s*$", re.M)
_MD_NOTE = re.compile(r"^_(?:Audit record \d+: .*|Answer [a-z ]+\.)_$")  # the export's own notes
_CONVERSATION_TITLE = "# hippo-tui conversation"


class AnswerFileError(ValueError):
    """Input that is not an answer to check; the message says what it is instead."""


@dataclass
class AnswerToCheck:
    text: str  # the answer with [id] markers
    form: str  # what the input was, for the report
    question: str | None = None
    unresolved: list[int] = field(default_factory=list)  # [n] markers that name no source id
    turn: int | None = None  # which answer of a conversation
    turns: int = 1


def decode(data: bytes, name: str) -> str:
    """The input as text, or AnswerFileError when it is empty, too big or not text."""
    if len(data) > MAX_BYTES:
        raise AnswerFileError(f"{name} is {len(data):,} bytes: too big to be an answer")
    if b"\0" in data:
        raise AnswerFileError(f"{name} is not text (it holds binary data)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise AnswerFileError(f"{name} is not UTF-8 text (byte {e.start} is not)") from None
    if not text.strip():
        raise AnswerFileError(f"{name} is empty: there is no answer to check")
    if len(_CONTROL.findall(text)) > max(8, len(text) // 100):
        raise AnswerFileError(f"{name} is not text (it is full of control characters)")
    return text


def read_answer(text: str, name: str, *, turn: int | None = None) -> AnswerToCheck:
    """The answer in ``text``, in whichever of the accepted forms it is."""
    head = text.lstrip()
    if head.startswith(("{", "[")):
        return _from_json(text, name, turn)
    if head.startswith(_CONVERSATION_TITLE):
        return _from_markdown(text, name, turn)
    if turn is not None:
        raise AnswerFileError(f"--turn is for conversation exports, and {name} is plain text")
    return _from_text(text, "text")


def _from_text(text: str, form: str, question: str | None = None) -> AnswerToCheck:
    body, legend = _split_legend(text.splitlines())
    marked, unresolved = ids_for_numbers("\n".join(body).strip(), legend)
    return AnswerToCheck(text=marked, form=form, question=question, unresolved=unresolved)


def _split_legend(lines: list[str]) -> tuple[list[str], dict[int, str]]:
    """The body and its source list (number → id): the lines after the last "Sources" heading, or else the
    trailing lines that each give a number and an id."""
    start = next((i for i in range(len(lines) - 1, -1, -1) if _SOURCES_HEADING.match(lines[i])), None)
    if start is None:
        start = len(lines)
        while start > 0 and (not lines[start - 1].strip() or _legend_entry(lines[start - 1])):
            start -= 1
        if not any(_legend_entry(line) for line in lines[start:]):
            return lines, {}
        tail = lines[start:]
    else:
        tail = lines[start + 1 :]
    legend = dict(e for line in tail if (e := _legend_entry(line)) is not None)
    return lines[:start], legend


def _legend_entry(line: str) -> tuple[int, str] | None:
    # A source list names its ids bare, in backticks or in parentheses; a numbered line that cites an id in a
    # marker is part of the answer (a list item), not of its source list.
    m = _LEGEND_LINE.match(line)
    ids = source_ids_in(line) if m and not cited_ids(line) else []
    return (int(m.group(1) or m.group(2)), ids[-1]) if m and ids else None


def _pick(turns: Sequence[Any], name: str, turn: int | None) -> tuple[int, Any]:
    if not turns:
        raise AnswerFileError(f"{name} is a conversation export with no answers in it")
    if turn is None:
        return len(turns), turns[-1]
    if not 1 <= turn <= len(turns):
        raise AnswerFileError(f"{name} has answers 1 to {len(turns)}; there is no answer {turn}")
    return turn, turns[turn - 1]


def _from_markdown(text: str, name: str, turn: int | None) -> AnswerToCheck:
    parts = _QUESTION_HEADING.split(text)[1:]  # number, section, number, section, …
    sections = [parts[i + 1] for i in range(0, len(parts) - 1, 2)]
    n, section = _pick(sections, name, turn)
    lines = section.strip("\n").splitlines()
    k = next((i for i, line in enumerate(lines) if not line.startswith(">")), len(lines))
    question = " ".join(line[1:].strip() for line in lines[:k]).strip() or None  # the quote that opens it
    rest = [line for line in lines[k:] if not _MD_NOTE.match(line.strip())]
    found = _from_text("\n".join(rest), "conversation export (Markdown)", question)
    found.turn, found.turns = n, len(sections)
    return found


def _with_ids(text: str, citations: Sequence[Citation]) -> tuple[str, list[int]]:
    return ids_for_numbers(text, {c.number: c.id for c in citations})


def _from_json(text: str, name: str, turn: int | None) -> AnswerToCheck:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg != "Extra data":  # more than one JSON value: JSON lines (ask --json)
            raise AnswerFileError(f"{name} looks like JSON but is not (line {e.lineno}: {e.msg})") from None
        return _from_events(text, name, turn)
    if isinstance(data, Mapping) and data.get("format") == export.FORMAT_NAME:
        try:
            turns = export.from_json(text)
        except (KeyError, TypeError, ValueError, ValidationError):
            raise AnswerFileError(f"{name} is a hippo-tui conversation export, but a damaged one") from None
        n, t = _pick(turns, name, turn)
        marked, unresolved = _with_ids(t.text, t.citations)
        return AnswerToCheck(marked, "conversation export (JSON)", t.question, unresolved, n, len(turns))
    if isinstance(data, Mapping) and data.get("type") in ("end", "error"):
        return _from_events(text, name, turn)
    raise AnswerFileError(
        f"{name} is JSON, but neither a hippo-tui conversation export nor `hippo-tui ask --json` output"
    )


def _from_events(text: str, name: str, turn: int | None) -> AnswerToCheck:
    if turn is not None:
        raise AnswerFileError(f"--turn is for conversation exports, and {name} is `ask --json` output")
    last: EndEvent | ErrorEvent | None = None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = parse_event(line)
        except ValidationError:
            raise AnswerFileError(f"{name}, line {i}: not an event of `hippo-tui ask --json`") from None
        if isinstance(event, EndEvent | ErrorEvent):
            last = event
    if isinstance(last, ErrorEvent):
        raise AnswerFileError(f"the answer in {name} ended in an error ({last.kind}): there is no final text")
    if last is None:
        raise AnswerFileError(f"{name} has no `end` event: the answer did not finish")
    if last.outcome != "complete":
        raise AnswerFileError(f"the answer in {name} was {last.outcome}: there is no final text to check")
    marked, unresolved = _with_ids(last.text, last.citations)
    return AnswerToCheck(text=marked, form="`ask --json` output", unresolved=unresolved)
