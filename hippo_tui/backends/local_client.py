"""An OpenAI-shaped client for the in-process backends (offline, replay), without the SDK.

Importing the ``openai`` SDK and building its chat resource costs over a second of CPU (it loads every type of
every API it covers), more than an offline ``ask`` needs for the rest of its work. The in-process transports
speak only chat completions, so this client speaks only that: ``client.chat.completions.create(**body)``
posts the body as the SDK would and returns the reply as attribute-access objects (a missing field reads as
None, as the SDK's models do), or for ``stream=True`` an async iterator of chunks parsed from server-sent
events. Its errors mirror the SDK's classes by name and attributes (``status_code``, ``body``, ``response``,
``message``); ``backends.errors`` reads either kind. Real servers still go through the SDK.

It reaches its server over an httpx client (a transport: replay, recording), or, for a server in this very
process (``InProcessServer``: the offline model), by calling it with the same request bytes and reading its
reply as the HTTP client would, without loading httpx (a tenth of an offline ``ask`` before its first text).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:  # imported where a request goes over HTTP (or an in-process reply is an error)
    import httpx


class ChatClient(Protocol):
    """What the engine and the judges need of a model client: ``openai.AsyncOpenAI`` or ``LocalClient``."""

    @property
    def chat(self) -> Any: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class LocalReply:
    """An in-process server's answer: a status with a JSON body, or (``stream``) the bytes of an event stream."""

    status: int
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    stream: AsyncIterable[bytes] | None = None


class InProcessServer(Protocol):
    def reply(self, method: str, path: str, content: bytes) -> LocalReply: ...


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
    """The chunks of a streamed reply, as the SDK's ``AsyncStream`` yields them: from the reply's text lines
    (``lines``), closing it with ``close`` when done."""

    def __init__(self, lines: AsyncIterator[str], close: Callable[[], Awaitable[None]]) -> None:
        self._lines, self._close = lines, close
        self._iterator = self._chunks()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterator

    async def __anext__(self) -> Any:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        await self._close()

    async def _chunks(self) -> AsyncIterator[Any]:
        try:
            async for data in _sse_data(self._lines):
                if data.startswith("[DONE]"):
                    break
                value = json.loads(data)  # not JSON: JSONDecodeError, as from the SDK
                if isinstance(value, dict) and value.get("error"):
                    raise APIError(_stream_error_message(value["error"]), body=value["error"])
                yield wrap(value)
        finally:
            await self._close()


def _stream_error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else "An error occurred during streaming"


async def _sse_data(text_lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The data of each server-sent event; comments (keep-alives) and events without data are skipped."""
    lines: list[str] = []
    async for line in text_lines:
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
    """``client.chat.completions.create(...)`` and ``client.close()`` over an httpx client (``http``), or by
    calling a server in this process (``server``)."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        http: httpx.AsyncClient | None = None,
        server: InProcessServer | None = None,
    ) -> None:
        if (http is None) == (server is None):
            raise ValueError("a LocalClient needs an http client or an in-process server, not both")
        self.base_url = base_url.rstrip("/")
        self._key = api_key
        self._http, self._server = http, server
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create if http else self._call))

    # The SDK's signature: a per-request HTTP timeout, not a limit on the coroutine.
    async def _create(self, *, timeout: httpx.Timeout | float | None = None, **body: Any) -> Any:  # noqa: ASYNC109
        import httpx

        assert self._http is not None
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
            return Stream(response.aiter_lines(), response.aclose)
        try:
            return wrap(json.loads(await response.aread()))
        finally:
            await response.aclose()

    async def _call(self, *, timeout: Any = None, **body: Any) -> Any:  # noqa: ASYNC109
        """``_create`` for a server in this process: the same request bytes, the reply read as from the wire (a
        timeout has nothing to bound: the server answers as it is called)."""
        assert self._server is not None
        url = f"{self.base_url}/chat/completions"
        reply = self._server.reply("POST", urlsplit(url).path, _wire(body))
        if reply.status >= 400:
            raise APIStatusError(await _http_response(reply, url))
        chunks = _content(reply)
        if body.get("stream"):
            return Stream(_text_lines(chunks), getattr(chunks, "aclose", _nothing))
        return wrap(json.loads(b"".join([chunk async for chunk in chunks])))

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()


def request_timeout(client: ChatClient, seconds: float | None) -> dict[str, Any]:
    """The ``timeout`` argument of a request bounded by ``seconds`` (connecting: 10 s at most); none for a
    server in this process, which has no connection to time out (and needs no httpx for it)."""
    if not seconds or (isinstance(client, LocalClient) and client._http is None):
        return {}
    import httpx

    return {"timeout": httpx.Timeout(seconds, connect=min(seconds, 10.0))}


def _wire(value: Any) -> bytes:
    """``value`` as JSON bytes, encoded as httpx encodes a request's or a response's ``json``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines ends a line


async def _text_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a UTF-8 byte stream, split where ``str.splitlines`` splits (as httpx's ``aiter_lines``)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    async for chunk in chunks:
        parts = (pending + decoder.decode(chunk)).splitlines(keepends=True)
        # The last part waits for more when it has no line break yet, or ends in a "\r" a "\n" may follow.
        last = parts[-1] if parts else "\n"
        pending = parts.pop() if last[-1] not in _BREAKS or last[-1] == "\r" else ""
        for part in parts:
            yield part.splitlines()[0]  # without its line break ("\r\n" is one)
    for line in (pending + decoder.decode(b"", True)).splitlines():
        yield line


def _content(reply: LocalReply) -> AsyncIterator[bytes]:
    """The bytes of ``reply`` as a client reads them off the wire: its stream, or its JSON body encoded."""
    if reply.stream is not None:
        return aiter(reply.stream)

    async def body() -> AsyncIterator[bytes]:
        yield _wire(reply.json)

    return body()


async def _nothing() -> None:
    return None


async def _http_response(reply: LocalReply, url: str) -> httpx.Response:
    """An error reply as the httpx response an HTTP client reads (the SDK's errors carry one)."""
    import httpx

    request = httpx.Request("POST", url)
    if reply.stream is None:
        return httpx.Response(reply.status, headers=reply.headers, json=reply.json, request=request)
    content = b"".join([chunk async for chunk in reply.stream])
    return httpx.Response(reply.status, headers=reply.headers, content=content, request=request)
