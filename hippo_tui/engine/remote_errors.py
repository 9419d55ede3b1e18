"""What a thin client tells its user when the server cannot be reached or refuses: one ``RemoteError`` with
the kind, a message naming the server, and what to do. Never the token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippo_tui.events import ErrorKind

if TYPE_CHECKING:  # imported where used: a local ask catches RemoteError without loading httpx
    import httpx


class RemoteError(Exception):
    def __init__(self, kind: ErrorKind, message: str, action: str) -> None:
        super().__init__(message)
        self.kind, self.message, self.action = kind, message, action


def unreachable(url: str, e: httpx.TransportError) -> RemoteError:
    import httpx

    if isinstance(e, httpx.TimeoutException):
        return RemoteError("connection", f"the hippo-tui server at {url} did not answer in time",
                           "check the server is running and reachable, then ask again")  # fmt: skip
    return RemoteError("connection", f"cannot connect to the hippo-tui server at {url}",
                       "start it (hippo-tui serve) or check --server / HIPPO_SERVER")  # fmt: skip


def refused(url: str, status: int, body: bytes, headers: httpx.Headers) -> RemoteError:
    """A non-2xx answer of the server, in the user's words."""
    import httpx

    try:
        said = str(httpx.Response(status, content=body).json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        said = body[:200].decode(errors="replace")
    if status == 401:
        return RemoteError("auth", f"the server at {url} refused the token (401)",
                           "check --token / HIPPO_TOKEN (hippo-tui token list on the server shows who has one)")  # fmt: skip
    if status == 403:
        return RemoteError("auth", f"not allowed by the server (403): {said}", "ask an auditor or editor")
    if status == 429:
        wait = headers.get("retry-after", "a few")
        return RemoteError("rate_limit", f"the server is busy for this token (429): {said}",
                           f"wait {wait} s and ask again")  # fmt: skip
    if status == 404:
        return RemoteError("not_found", f"not found on the server: {said}", "check the id, or ask again")
    if status in (409, 413, 422):
        return RemoteError("usage", f"the server refused the request ({status}): {said}", "change it and retry")
    return RemoteError("server", f"the server at {url} failed ({status}): {said}", "ask again later")
