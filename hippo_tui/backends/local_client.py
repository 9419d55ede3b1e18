"""An OpenAI-shaped client for the in-process backends (offline, replay), without the SDK.

Importing the ``openai`` SDK and building its chat resource costs over a second of CPU (it loads every type of
every API it covers), more than an offline ``ask`` needs for the rest of its work. The in-process transports
speak only chat completions, so this client speaks only that: ``client.chat.completions.create(**body)``
posts the body as the SDK would and returns the reply as attribute-access objects (a missing field reads as
None, as the SDK's models do), or for ``stream=True`` an async iterator of chunks parsed from server-sent
events. Its errors mirror the SDK's classes by name and attributes (``status_code``, ``body``, ``response``,
``message``); ``backends.errors`` reads either kind. Real servers still go through the SDK.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, Protocol

import httpx


class ChatClient(Protocol):
    """What the engine and the judges need of a model client: ``openai.AsyncOpenAI`` or ``LocalClient``."""

    @property
    def chat(self) -> Any: ...

    async def close(self) -> None: ...


class APIError(Exception):
    """An error event inside a stream (the SDK's ``openai.APIError``)."""

    def __init__(self, message: str, *, request: httpx.Request | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.message, self.request, self.body = message, request, body


class APIStatusError(APIError):
    """The server answered with an HTTP error status."""

    def __init__(self, response: httpx.Response) -> None:
        text = response.text.strip()
        try:  # the SDK's wording: the parsed body, or the text as it came
            body: Any = json.loads(text)
            message = f"Error code: {response.status_code} - {body}"
        except json.JSONDecodeError:
            body, message = text, text or f"Error code: {response.status_code}"
        super().__init__(message, request=response.request, body=body)
        self.response = response
        self.status_code = response.status_code


class APIConnectionError(APIError):
    def __init__(self, *, request: httpx.Request, message: str = "Connection error.") -> None:
        super().__init__(message, request=request)


class APITimeoutError(APIConnectionError):
    def __init__(self, request: httpx.Request) -> None:
        super().__init__(request=request, message="Request timed out.")


class Obj:
    """A JSON object read by attribute; a field the reply lacks reads as None."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return wrap(self._data.get(name))

    def __repr__(self) -> str:
        return f"Obj({self._data!r})"


def wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return Obj(value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


class Stream:
    """The chunks of a streamed reply, as the SDK's ``AsyncStream`` yields them."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._iterator = self._chunks()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterator

    async def __anext__(self) -> Any:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        await self.response.aclose()

    async def _chunks(self) -> AsyncIterator[Any]:
        try:
            async for data in _sse_data(self.response):
                if data.startswith("[DONE]"):
                    break
                value = json.loads(data)  # not JSON: JSONDecodeError, as from the SDK
                if isinstance(value, dict) and value.get("error"):
                    raise APIError(_stream_error_message(value["error"]), body=value["error"])
                yield wrap(value)
        finally:
            await self.response.aclose()


def _stream_error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else "An error occurred during streaming"


async def _sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The data of each server-sent event; comments (keep-alives) and events without data are skipped."""
    lines: list[str] = []
    async for line in response.aiter_lines():
        if not line:
            if lines:
                yield "\n".join(lines)
            lines = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            lines.append(value[1:] if value.startswith(" ") else value)
    if lines:
        yield "\n".join(lines)


class LocalClient:
    """``client.chat.completions.create(...)`` and ``client.close()`` over an httpx client."""

    def __init__(self, *, base_url: str, api_key: str, http: httpx.AsyncClient) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = api_key
        self._http = http
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    # The SDK's signature: a per-request HTTP timeout, not a limit on the coroutine.
    async def _create(self, *, timeout: httpx.Timeout | float | None = None, **body: Any) -> Any:  # noqa: ASYNC109
        request = self._http.build_request(
            "POST",
            f"{self.base_url}/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {self._key}"},
            timeout=timeout if timeout is not None else self._http.timeout,
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TimeoutException as e:
            raise APITimeoutError(request) from e
        except httpx.TransportError as e:
            raise APIConnectionError(request=request) from e
        if response.status_code >= 400:
            await response.aread()
            await response.aclose()
            raise APIStatusError(response)
        if body.get("stream"):
            return Stream(response)
        try:
            return wrap(json.loads(await response.aread()))
        finally:
            await response.aclose()

    async def close(self) -> None:
        await self._http.aclose()
