"""One streamed model turn over the OpenAI chat-completions API: text deltas, then how the turn ended.

Tool-call deltas are assembled by index (id and name arrive only on the first fragment). The request is
retried with backoff only until the first chunk arrives: connection refused, 429 (honouring Retry-After)
and 5xx. After the first chunk nothing is retried: text may already be on the reader's screen.

The answer's length is bounded by ``max_tokens``, the name every OpenAI-compatible server knows (OpenAI takes
it for chat models). OpenAI's reasoning models refuse it and ask for ``max_completion_tokens``: a refusal that
says so is asked once more with that name.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hippo_tui.backends.errors import (
    ModelError,
    classify,
    is_retryable,
    is_wire_error,
    retry_after,
    server_message,
    status_code,
    tools_refused,
    wants_max_completion_tokens,
)
from hippo_tui.backends.local_client import ChatClient


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 2  # retries after the first try
    base: float = 0.3  # seconds; doubled each retry, with jitter
    cap: float = 8.0
    retry_after_cap: float = 30.0  # a longer Retry-After is not worth waiting for: report it

    def delay(self, attempt: int, e: BaseException) -> float | None:
        """Seconds to wait before retry ``attempt`` (1-based), or None to give up."""
        if attempt > self.attempts:
            return None
        if status_code(e) == 429:
            ra = retry_after(e)
            if ra is not None:
                return ra if ra <= self.retry_after_cap else None
        return min(self.cap, self.base * 2 ** (attempt - 1)) * (0.75 + random.random() / 2)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, as the model wrote it (may not be JSON)

    def as_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class TextDelta:
    text: str


@dataclass
class ToolsRefused:
    """The server refused the tools; the turn goes on without them (yielded before any text)."""

    message: str


@dataclass
class TurnEnd:
    finish_reason: str | None  # None: the stream ended without one (cut)
    tool_calls: list[ToolCall] = field(default_factory=list)
    ttft: float | None = None


class _ToolCalls:
    def __init__(self) -> None:
        self._by_index: dict[int, dict[str, Any]] = {}

    def add(self, fragments: Sequence[Any]) -> None:
        for pos, frag in enumerate(fragments):
            index = frag.index if getattr(frag, "index", None) is not None else pos
            slot = self._by_index.setdefault(index, {"id": "", "name": "", "args": []})
            if frag.id and not slot["id"]:
                slot["id"] = frag.id
            fn = frag.function
            if fn is not None:
                if fn.name and not slot["name"]:
                    slot["name"] = fn.name
                if fn.arguments:
                    slot["args"].append(fn.arguments)

    def result(self) -> list[ToolCall]:
        return [
            ToolCall(id=s["id"] or f"call_{i}", name=s["name"], arguments="".join(s["args"]))
            for i, s in sorted(self._by_index.items())
        ]


async def stream_turn(
    client: ChatClient,
    *,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    base_url: str,
    retry: RetryPolicy = RetryPolicy(),
    max_tokens: int | None = None,
) -> AsyncGenerator[TextDelta | TurnEnd | ToolsRefused, None]:
    """Yield the turn's text deltas, then one ``TurnEnd``. Raises ``ModelError``.

    A server that refuses the offered tools is asked once more without them (``ToolsRefused`` says so):
    retrieval already ran before the model was called, so the answer can still be grounded.
    """
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
    if tools:
        kwargs["tools"] = tools
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    loop = asyncio.get_running_loop()
    start = loop.time()
    stream, iterator, first, refused = await _open(client, kwargs, retry=retry, base_url=base_url)
    ttft = loop.time() - start
    calls = _ToolCalls()
    finish: str | None = None
    try:
        for message in refused:
            yield ToolsRefused(message)
        chunk = first
        while True:
            for choice in chunk.choices or []:  # `choices: []` frames (usage, keep-alive) carry nothing
                delta = choice.delta
                if delta is not None:
                    if delta.content:
                        yield TextDelta(delta.content)
                    if delta.tool_calls:
                        calls.add(delta.tool_calls)
                if choice.finish_reason:
                    finish = choice.finish_reason
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                break
    except Exception as e:
        if not is_wire_error(e):
            raise
        raise classify(e, base_url=base_url, model=model) from e
    finally:
        await _close(stream)
    yield TurnEnd(finish_reason=finish, tool_calls=calls.result(), ttft=ttft)


async def _open(
    client: ChatClient, kwargs: dict[str, Any], *, retry: RetryPolicy, base_url: str
) -> tuple[Any, Any, Any, list[str]]:
    """Send the request until its first chunk arrives: the stream, its iterator, that chunk, and the messages
    of the servers' refusals of the tools (the request went again without them)."""
    refused: list[str] = []
    attempt = 0
    while True:
        stream = None
        try:
            stream = await client.chat.completions.create(**kwargs)
            iterator = stream.__aiter__()
            return stream, iterator, await iterator.__anext__(), refused
        except StopAsyncIteration:
            await _close(stream)
            raise ModelError(
                "stream_cut", f"{base_url} closed the stream before sending anything", "ask again"
            ) from None
        except Exception as e:
            await _close(stream)
            if not is_wire_error(e):
                raise
            if "tools" in kwargs and tools_refused(e):
                del kwargs["tools"]
                refused.append(server_message(e))
                continue
            if "max_tokens" in kwargs and wants_max_completion_tokens(e):
                kwargs["max_completion_tokens"] = kwargs.pop("max_tokens")
                continue
            attempt += 1
            delay = retry.delay(attempt, e) if is_retryable(e) else None
            if delay is None:
                raise classify(e, base_url=base_url, model=kwargs["model"]) from e
            await asyncio.sleep(delay)
        except BaseException:
            await _close(stream)
            raise


async def _close(stream: Any) -> None:
    if stream is not None:
        try:
            await stream.close()
        except Exception:  # closing a broken connection must not hide why it broke
            pass
