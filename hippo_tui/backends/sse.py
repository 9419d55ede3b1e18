"""OpenAI wire shapes: ``chat.completion.chunk`` frames as server-sent events, and plain completions.

Shared by the in-process backends (offline, replay) and the scripted test server, so every fake speaks the
exact bytes a real OpenAI-compatible server sends.
"""

from __future__ import annotations

import json
from typing import Any

DONE = "[DONE]"


def chunk(
    model: str,
    *,
    content: str | None = None,
    role: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    id: str = "chatcmpl-local",
    created: int = 0,
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {
        "id": id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
    }


def tool_call_fragment(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str = ""
) -> dict[str, Any]:
    """One streamed piece of a tool call: id and name only on the first piece, as OpenAI sends them."""
    frag: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if id is not None:
        frag["id"] = id
        frag["type"] = "function"
    if name is not None:
        frag["function"]["name"] = name
    return frag


def completion(model: str, content: str, *, id: str = "chatcmpl-local", created: int = 0) -> dict[str, Any]:
    return {
        "id": id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def frame(data: dict[str, Any] | str) -> bytes:
    """One SSE event. ``data`` is a chunk, or a raw payload string (``[DONE]``, or anything recorded)."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data: {payload}\n\n".encode()


def error_body(
    message: str, *, type: str = "invalid_request_error", code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "code": code}}
