"""Model and server failures, as something a user can act on (kind, message, action)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeGuard

import httpx
import openai

from hippo_tui.events import ErrorKind


@dataclass
class ModelError(Exception):
    kind: ErrorKind
    message: str
    action: str = ""
    retry_after: float | None = None  # seconds, from a 429's Retry-After

    def __str__(self) -> str:
        return self.message


def server_message(e: openai.APIStatusError) -> str:
    body = e.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return err["message"]
        if isinstance(err, str):
            return err
    return e.message


def retry_after(e: openai.APIStatusError) -> float | None:
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
    if isinstance(e, openai.APITimeoutError):
        return ModelError("connection", f"{base_url} did not answer in time", pick)
    if isinstance(e, openai.APIConnectionError):
        if _dns_failure(e):
            host = httpx.URL(base_url).host if base_url else "?"
            return ModelError("connection", f"cannot resolve the host '{host}'", "check the --base-url")
        return ModelError("connection", f"cannot connect to {base_url}", pick)
    if isinstance(e, openai.APIStatusError):
        return _status_error(e, base_url=base_url, model=model)
    if isinstance(e, openai.APIError):  # an error event inside the stream
        return ModelError("server", f"the model's stream reported an error: {e.message}", "try again")
    if isinstance(e, json.JSONDecodeError):
        return ModelError(
            "bad_response",
            f"the server sent a chunk that is not valid JSON: {e.msg}",
            "try again, or another server",
        )
    if isinstance(e, httpx.HTTPError):
        return ModelError(
            "stream_cut",
            f"the connection to {base_url} broke mid-answer ({type(e).__name__})",
            "ask again; the partial answer is kept in the audit record",
        )
    return ModelError("internal", f"unexpected error talking to the model: {e!r}")


def _status_error(e: openai.APIStatusError, *, base_url: str, model: str) -> ModelError:
    """An HTTP error status from the server, by what the reader can do about it."""
    if isinstance(e, openai.AuthenticationError | openai.PermissionDeniedError):
        code = e.status_code
        return ModelError(
            "auth",
            f"{base_url} refused the API key ({code}): {server_message(e)}",
            "check the API key (HIPPO_API_KEY)",
        )
    if isinstance(e, openai.NotFoundError) and "model" not in server_message(e).lower():
        # Not about a model (Ollama's "404 page not found", FastAPI's "Not Found"): the URL is wrong, most
        # often a base URL without its /v1.
        return ModelError(
            "not_found",
            f"{base_url} has no chat-completions endpoint (404): {server_message(e)}",
            "check the --base-url: OpenAI-compatible servers serve it under /v1 (e.g. http://localhost:11434/v1)",
        )
    if isinstance(e, openai.NotFoundError):
        return ModelError(
            "not_found",
            f"model '{model}' not found on {base_url}: {server_message(e)}",
            f"pick another with --model (the server lists its models at {base_url.rstrip('/')}/models)",
        )
    if isinstance(e, openai.RateLimitError):
        return ModelError(
            "rate_limit",
            f"{base_url} is rate limiting requests: {server_message(e)}",
            "wait a minute and ask again, or pick another server with --base-url",
            retry_after=retry_after(e),
        )
    if e.status_code >= 500:
        return ModelError(
            "server",
            f"{base_url} failed ({e.status_code}): {server_message(e)}",
            "try again; if it keeps failing, check the server's logs",
        )
    return ModelError(
        "bad_response", f"{base_url} rejected the request ({e.status_code}): {server_message(e)}"
    )


RETRYABLE: tuple[type[BaseException], ...] = (
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


def tools_refused(e: BaseException) -> TypeGuard[openai.APIStatusError]:
    """The server refused the request because it offered tools (a model without tool support on Ollama,
    vLLM without --enable-auto-tool-choice, llama.cpp without --jinja): worth asking again without them."""
    if not isinstance(e, openai.APIStatusError) or e.status_code not in (400, 422, 500, 501):
        return False
    return "tool" in server_message(e).lower()


def wants_max_completion_tokens(e: BaseException) -> bool:
    """OpenAI's reasoning models refuse ``max_tokens``: 400 "Unsupported parameter: 'max_tokens' is not
    supported with this model. Use 'max_completion_tokens' instead." The same request with that name works."""
    return isinstance(e, openai.BadRequestError) and "max_completion_tokens" in server_message(e)


def is_retryable(e: BaseException) -> bool:
    if isinstance(e, openai.APIConnectionError) and not isinstance(e, openai.APITimeoutError):
        return not _dns_failure(e)  # a name that does not resolve will not resolve in a second either
    if isinstance(e, openai.APIStatusError):
        return e.status_code == 429 or e.status_code >= 500
    return isinstance(e, RETRYABLE)
