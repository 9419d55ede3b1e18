"""Who is calling, and what their role lets them do. Every ``/v1`` route but health needs a bearer token
(when the server runs with ``--tokens``); a missing, unknown or revoked one is a 401 that says nothing
about which tokens exist, and a client address that keeps failing is held off (429)."""

from __future__ import annotations

import time
from collections import defaultdict, deque
from dataclasses import dataclass

from fastapi import Request

from hippo_tui.server.errors import ApiError
from hippo_tui.server.tokens import TokenCheck

FAILURES_ALLOWED = 10  # failed attempts per client address per window
FAILURE_WINDOW = 60.0  # seconds


@dataclass(frozen=True)
class User:
    name: str
    role: str  # clinician | editor | auditor; "local" without a tokens file (loopback only)

    @property
    def sees_all(self) -> bool:
        """Reads every user's answers and the audit stats."""
        return self.role in ("auditor", "local")

    @property
    def edits_kb(self) -> bool:
        return self.role in ("editor", "local")


LOCAL = User(name="local", role="local")


class Gate:
    def __init__(self, tokens: TokenCheck | None) -> None:
        self.tokens = tokens
        self._failures: dict[str, deque[float]] = defaultdict(deque)

    def user(self, request: Request) -> User:
        if self.tokens is None:
            return LOCAL
        address = request.client.host if request.client else "?"
        self._hold_off(address)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        entry = self.tokens.check(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if entry is None:
            self._failures[address].append(time.monotonic())
            raise ApiError(401, "unauthorized", "a valid bearer token is needed (Authorization: Bearer …)",
                           {"WWW-Authenticate": "Bearer"})  # fmt: skip
        return User(name=entry.name, role=entry.role)

    def _hold_off(self, address: str) -> None:
        failures = self._failures[address]
        now = time.monotonic()
        while failures and now - failures[0] > FAILURE_WINDOW:
            failures.popleft()
        if len(failures) >= FAILURES_ALLOWED:
            wait = int(FAILURE_WINDOW - (now - failures[0])) + 1
            raise ApiError(429, "rate_limit", f"too many failed attempts; try again in {wait} s",
                           {"Retry-After": str(wait)})  # fmt: skip


def require(allowed: bool, what: str) -> None:
    if not allowed:
        raise ApiError(403, "forbidden", f"this token's role may not {what}")
