"""The question set of an evaluation: JSONL, one ``{"question", "expect_sources", "expect_abstain"}`` a line."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hippo_tui.safe_text import clip

# The demo knowledge base's question set (kb/questions.jsonl, shipped inside the package like demo.jsonl).
DEMO_QUESTIONS: Path = Path(str(files("hippo_tui") / "data" / "kb" / "questions.jsonl"))


class QuestionsError(Exception):
    """A question file that cannot be used; the message names the file and the line."""


class EvalQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1)
    # The ids a correct answer cites; None: not judged on its sources. [] : it should cite nothing.
    expect_sources: list[str] | None = None
    # The knowledge base does not cover it: the answer should say so and cite nothing.
    expect_abstain: bool = False
    line: int = Field(default=0, exclude=True)  # where it came from, for messages

    @field_validator("question")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the question is blank")
        return v.strip()


def _problem(e: ValidationError) -> str:
    err = e.errors()[0]
    field = ".".join(str(p) for p in err["loc"])
    msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
    return f"field '{field}': {msg}" if field else msg


def parse_line(text: str, line: int) -> EvalQuestion:
    """One line of a question file; raises ValueError saying what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(
            'not a JSON object: expected {"question": "…", "expect_sources": […], "expect_abstain": false}'
        )
    try:
        return EvalQuestion.model_validate({**data, "line": line})
    except ValidationError as e:
        raise ValueError(_problem(e)) from None


def load_questions(path: Path) -> list[EvalQuestion]:
    """Every question of the file, or QuestionsError naming each bad line (nothing runs on half a file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuestionsError(f"{path}: no such question file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise QuestionsError(f"{path}: cannot read the question file: {e}") from None
    questions: list[EvalQuestion] = []
    bad: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            questions.append(parse_line(raw, n))
        except ValueError as e:
            bad.append(f"{path}: line {n}: {clip(str(e), 200, flat=True)}")
    if bad:
        more = f"\n… and {len(bad) - 10} more bad lines" if len(bad) > 10 else ""
        raise QuestionsError("\n".join(bad[:10]) + more)
    if not questions:
        raise QuestionsError(f"{path}: no questions in the file")
    return questions
