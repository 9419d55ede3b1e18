"""Building blocks for scripted model responses (for the SSE server, or anything speaking its format)."""

from __future__ import annotations

import json
import re
from typing import Any

from hippo_tui.backends import sse

MODEL = "scripted"

_PIECE = re.compile(r"\S+\s*|\s+")


def pieces(text: str, size: int = 0) -> list[str]:
    """``text`` in word-sized pieces (or fixed ``size`` pieces, to split markers mid-id)."""
    if size:
        return [text[i : i + size] for i in range(0, len(text), size)]
    return _PIECE.findall(text)


def text_chunks(text: str, *, size: int = 0, finish: str | None = "stop") -> list[Any]:
    out: list[Any] = [sse.chunk(MODEL, role="assistant", content="")]
    out += [sse.chunk(MODEL, content=p) for p in pieces(text, size)]
    if finish:
        out.append(sse.chunk(MODEL, finish_reason=finish))
    return out


def tool_chunks(
    query: str | None = None,
    *,
    before: str = "",
    raw_args: str | None = None,
    name: str = "search_kb",
    call_id: str = "call_1",
) -> list[Any]:
    """Optional text, then one tool call whose arguments arrive in two fragments (id and name on the first)."""
    args = raw_args if raw_args is not None else json.dumps({"query": query})
    half = len(args) // 2
    out = text_chunks(before, finish=None) if before else [sse.chunk(MODEL, role="assistant", content="")]
    out.append(
        sse.chunk(MODEL, tool_calls=[sse.tool_call_fragment(0, id=call_id, name=name, arguments=args[:half])])
    )
    out.append(sse.chunk(MODEL, tool_calls=[sse.tool_call_fragment(0, arguments=args[half:])]))
    out.append(sse.chunk(MODEL, finish_reason="tool_calls"))
    return out


def stream(chunks: list[Any], **kw: Any) -> dict[str, Any]:
    return {"chunks": chunks, **kw}


def answer(text: str, **kw: Any) -> dict[str, Any]:
    return stream(text_chunks(text), **kw)


def grounding(verdicts: dict[str, bool] | list[tuple[str, bool]], **kw: Any) -> dict[str, Any]:
    items = verdicts.items() if isinstance(verdicts, dict) else verdicts
    content = json.dumps({"checks": [{"source_id": k, "grounded": v} for k, v in items]})
    return {"json": sse.completion(MODEL, content), **kw}


def error(status: int, message: str, **kw: Any) -> dict[str, Any]:
    return {"status": status, "json": sse.error_body(message), **kw}


def fill(verdicts: dict[str, bool] | None = None, **kw: Any) -> dict[str, Any]:
    """A grammar-constrained reply: the request's schema filled exactly (true unless ``verdicts`` says)."""
    return {"fill": verdicts or {}, **kw}


def echo(**kw: Any) -> dict[str, Any]:
    """A model that answers a schema it was not held to by writing its input back (JSON, wrong shape)."""
    return {"echo": True, **kw}


def reply(content: str, **kw: Any) -> dict[str, Any]:
    """A grounding reply with exactly this content."""
    return {"json": sse.completion(MODEL, content), **kw}


# llama-cpp-python's OpenAI server: json_schema is refused with a 500, json_object carrying schema becomes a
# grammar (the schema filled exactly), and json_object alone leaves a small model to echo its input.
LLAMA_CPP_PYTHON_REFUSAL = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
    "  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema']"
)


def llama_cpp_python(verdicts: dict[str, bool] | None = None) -> dict[str, Any]:
    return {
        "grounding:json_schema": [error(500, LLAMA_CPP_PYTHON_REFUSAL)],
        "grounding:json_object+schema": [fill(verdicts)],
        "grounding:json_object": [echo()],
    }
