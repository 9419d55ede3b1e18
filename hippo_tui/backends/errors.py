"""Model and server failures, as something a user can act on (kind, message, action).

The errors come from the ``openai`` SDK (real servers) or from ``local_client`` (in-process backends), whose
classes carry the same names and attributes. Both are read here, by class name and status code, so that an
offline run never imports the SDK: an SDK error cannot exist before the SDK is loaded.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from hippo_tui.backends import local_client
from hippo_tui.events import ErrorKind


@dataclass
class ModelError(Exception):
    kind: ErrorKind
    message: str
    action: str = ""
    retry_after: float | None = None  # seconds, from a 429's Retry-After

    def __str__(self) -> str:
        return self.message


def _classes(name: str) -> tuple[type[BaseException], ...]:
    """The local client's error class of this name, and the SDK's once the SDK is loaded."""
    ours: type[BaseException] = getattr(local_client, name)
    sdk = sys.modules.get("openai")
    return (ours, getattr(sdk, name)) if sdk is not None else (ours,)


def is_status(e: BaseException) -> bool:
    """The server answered with an HTTP error status (``e.status_code``, ``e.body``, ``e.response``)."""
    return isinstance(e, _classes("APIStatusError"))


def is_timeout(e: BaseException) -> bool:
    return isinstance(e, _classes("APITimeoutError"))


def is_connection(e: BaseException) -> bool:
    """Not reached, or (``is_timeout``) reached but silent."""
    return isinstance(e, _classes("APIConnectionError"))


def is_api_error(e: BaseException) -> bool:
    """Any of the above, or an error event inside a stream."""
    return isinstance(e, _classes("APIError"))


def is_wire_error(e: BaseException) -> bool:
    """What talking to a model can raise: the clients' errors, the transport's, a chunk that is not JSON."""
    return is_api_error(e) or _transport_error(e) or isinstance(e, json.JSONDecodeError)


def _transport_error(e: BaseException) -> bool:
    """An httpx error; read as the client classes are, so an in-process backend never loads httpx for it."""
    httpx = sys.modules.get("httpx")
    return httpx is not None and isinstance(e, httpx.HTTPError)


def status_code(e: BaseException) -> int | None:
    return e.status_code if is_status(e) else None  # type: ignore[attr-defined]


def server_message(e: Any) -> str:
    body = e.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return err["message"]
        if isinstance(err, str):
            return err
    return e.message


def retry_after(e: Any) -> float | None:
    value = e.response.headers.get("retry-after") if e.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _dns_failure(e: BaseException) -> bool:
    text = repr(e.__cause__ or e).lower()
    return any(
        s in text
        for s in ("name or service not known", "nodename nor servname", "getaddrinfo", "name resolution")
    )


def classify(e: BaseException, *, base_url: str, model: str) -> ModelError:
    """Map an SDK / transport exception to a ModelError naming what to do."""
    if isinstance(e, ModelError):
        return e
    pick = f"start the server at {base_url} or pick another with --base-url"
    if is_timeout(e):
        return ModelError("connection", f"{base_url} did not answer in time", pick)
    if is_connection(e):
        if _dns_failure(e):
            import httpx

            host = httpx.URL(base_url).host if base_url else "?"
            return ModelError("connection", f"cannot resolve the host '{host}'", "check the --base-url")
        return ModelError("connection", f"cannot connect to {base_url}", pick)
    if is_status(e):
        return _status_error(e, base_url=base_url, model=model)
    if is_api_error(e):  # an error event inside the stream
        return ModelError("server", f"the model's stream reported an error: {server_message(e)}", "try again")
    if isinstance(e, json.JSONDecodeError):
        return ModelError(
            "bad_response",
            f"the server sent a chunk that is not valid JSON: {e.msg}",
            "try again, or another server",
        )
    if _transport_error(e):
        return ModelError(
            "stream_cut",
            f"the connection to {base_url} broke mid-answer ({type(e).__name__})",
            "ask again; the partial answer is kept in the audit record",
        )
    return ModelError("internal", f"unexpected error talking to the model: {e!r}")


def _status_error(e: Any, *, base_url: str, model: str) -> ModelError:
    """An HTTP error status from the server, by what the reader can do about it."""
    code = e.status_code
    if code in (401, 403):
        return ModelError(
            "auth",
            f"{base_url} refused the API key ({code}): {server_message(e)}",
            "check the API key (HIPPO_API_KEY)",
        )
    if code == 404 and "model" not in server_message(e).lower():
        # Not about a model (Ollama's "404 page not found", FastAPI's "Not Found"): the URL is wrong, most
        # often a base URL without its /v1.
        return ModelError(
            "not_found",
            f"{base_url} has no chat-completions endpoint (404): {server_message(e)}",
            "check the --base-url: OpenAI-compatible servers serve it under /v1 (e.g. http://localhost:11434/v1)",
        )
    if code == 404:
        return ModelError(
            "not_found",
            f"model '{model}' not found on {base_url}: {server_message(e)}",
            f"pick another with --model (the server lists its models at {base_url.rstrip('/')}/models)",
        )
    if code == 429:
        return ModelError(
            "rate_limit",
            f"{base_url} is rate limiting requests: {server_message(e)}",
            "wait a minute and ask again, or pick another server with --base-url",
            retry_after=retry_after(e),
        )
    if code >= 500:
        return ModelError(
            "server",
            f"{base_url} failed ({code}): {server_message(e)}",
            "try again; if it keeps failing, check the server's logs",
        )
    return ModelError("bad_response", f"{base_url} rejected the request ({code}): {server_message(e)}")


def tools_refused(e: BaseException) -> bool:
    """The server refused the request because it offered tools (a model without tool support on Ollama,
    vLLM without --enable-auto-tool-choice, llama.cpp without --jinja): worth asking again without them."""
    if status_code(e) not in (400, 422, 500, 501):
        return False
    return "tool" in server_message(e).lower()


def wants_max_completion_tokens(e: BaseException) -> bool:
    """OpenAI's reasoning models refuse ``max_tokens``: 400 "Unsupported parameter: 'max_tokens' is not
    supported with this model. Use 'max_completion_tokens' instead." The same request with that name works."""
    return status_code(e) == 400 and "max_completion_tokens" in server_message(e)


def is_retryable(e: BaseException) -> bool:
    if is_connection(e):  # a name that does not resolve will not resolve in a second either
        return is_timeout(e) or not _dns_failure(e)
    code = status_code(e)
    return code is not None and (code == 429 or code >= 500)
