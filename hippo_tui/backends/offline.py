"""The embedded offline backend: an OpenAI-compatible server inside the process.

``OfflineServer`` answers chat completion requests as a real server does, in the same wire format: it streams
``chat.completion.chunk`` frames at a realistic pace, calls ``search_kb`` when its context does not cover the
question, and answers grounding requests (structured output, honouring the reply schema) with the lexical
judge. ``local_client.LocalClient`` talks to it directly; ``offline_transport.OfflineTransport`` serves it
as an httpx transport (for the ``openai`` SDK, and for recording a cassette), so the engine has one code path
either way, and an offline run need not load httpx.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from hippo_tui.backends import extractive, sse
from hippo_tui.backends.local_client import LocalReply
from hippo_tui.prompts import parse_grounding_input

MODEL = "offline"
LABEL = "offline (extractive, no LLM)"

# Roughly one token each: a word with its trailing space; markers arrive in pieces, as from a real model.
_TOKEN = re.compile(r"\[|\]|[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[^\s\[\]]+\s*|\s+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


async def paced(frames: Sequence[bytes], tokens_per_second: float) -> AsyncIterator[bytes]:
    """SSE frames released at ``tokens_per_second`` (0: all at once). Cancellable between any two frames."""
    delay = 1.0 / tokens_per_second if tokens_per_second > 0 else 0.0
    for f in frames:
        if delay:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)  # stay cancellable even at unlimited speed
        yield f


class OfflineServer:
    def __init__(self, *, tokens_per_second: float = 40.0) -> None:
        self.tokens_per_second = tokens_per_second
        self._calls = 0

    def reply(self, method: str, path: str, content: bytes) -> LocalReply:
        """The answer to one request (``content``: its body), as an OpenAI-compatible server gives it."""
        path = path.rstrip("/")
        if method == "GET" and path.endswith("/models"):
            return LocalReply(200, json={"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        if method != "POST" or not path.endswith("/chat/completions"):
            return LocalReply(404, json=sse.error_body(f"no route {method} {path}"))
        try:
            body = json.loads(content)
        except json.JSONDecodeError:
            return LocalReply(400, json=sse.error_body("request body is not JSON"))
        messages = body.get("messages") or []
        try:
            if body.get("response_format"):
                return self._grounding(messages, body["response_format"])
            if not body.get("stream"):
                return LocalReply(400, json=sse.error_body("the offline model only streams answers"))
            tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
            self._calls += 1
            frames = [sse.frame(c) for c in self.turn_chunks(messages, tools, call=self._calls)]
        except Exception as e:  # a bug in the offline model: say so, not "cannot connect"
            return LocalReply(500, json=sse.error_body(f"the offline model failed: {type(e).__name__}: {e}"))
        frames.append(sse.frame(sse.DONE))
        return LocalReply(
            200,
            headers={"content-type": "text/event-stream"},
            stream=paced(frames, self.tokens_per_second),
        )

    @staticmethod
    def turn_chunks(messages: Sequence[dict[str, Any]], tools: Sequence[str], *, call: int = 1) -> list[dict]:
        """The chunks of one streamed model turn (pure: the tests and the recorder use it directly)."""
        reply = extractive.answer(messages, tools=tools)
        cid = f"chatcmpl-offline-{call}"
        out = [sse.chunk(MODEL, role="assistant", content="", id=cid)]
        text = extractive.render(reply)
        if text and reply.search:
            text += " "  # the model goes on writing, then decides to look something up
        out += [sse.chunk(MODEL, content=t, id=cid) for t in tokens(text)]
        if reply.search is None:
            out.append(sse.chunk(MODEL, finish_reason="stop", id=cid))
            return out
        args = json.dumps({"query": reply.search})
        half = len(args) // 2
        out.append(
            sse.chunk(
                MODEL,
                tool_calls=[
                    sse.tool_call_fragment(0, id=f"call_{call}", name="search_kb", arguments=args[:half])
                ],
                id=cid,
            )
        )
        out.append(sse.chunk(MODEL, tool_calls=[sse.tool_call_fragment(0, arguments=args[half:])], id=cid))
        out.append(sse.chunk(MODEL, finish_reason="tool_calls", id=cid))
        return out

    @staticmethod
    def _grounding(messages: Sequence[dict[str, Any]], response_format: Any) -> LocalReply:
        """The lexical judge's verdicts as ``{"<source id>": bool}``: exactly the schema's keys when the request
        carries one (``json_schema``, or ``json_object`` with ``schema``, as a grammar-constrained server
        would), else one per source in the data."""
        # Imported at the first grounding request: an answer's text is written before any is checked.
        from hippo_tui.verification import offline_judge

        user: Mapping[str, Any] = next((m for m in reversed(messages) if m.get("role") == "user"), {})
        items = parse_grounding_input(extractive.message_text(user.get("content")))
        verdicts = {str(c["source_id"]): bool(c["grounded"]) for c in offline_judge.judge(items)["checks"]}
        keys = _schema_keys(response_format)
        reply = {k: verdicts.get(k, False) for k in keys} if keys is not None else verdicts
        return LocalReply(200, json=sse.completion(MODEL, json.dumps(reply)))


def _schema_keys(response_format: Any) -> list[str] | None:
    """The property names of the reply schema a request carries, or None when it carries none."""
    if not isinstance(response_format, dict):
        return None
    schema = response_format.get("schema")
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return list(properties) if isinstance(properties, dict) else None
