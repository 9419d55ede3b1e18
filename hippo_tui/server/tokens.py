"""The tokens file of `hippo-tui serve`: who may call it and with which role.

A token is shown once, when it is made (``add``); the file keeps only its SHA-256, with a name, a role, when
it was made and last used, and whether it was revoked. The file is written with mode 0600, atomically.
The server compares a presented token's hash against every stored one with ``secrets.compare_digest`` (no
early exit on the first match), and reads the file again when it changes: ``token revoke`` applies to a
running server at its next request.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

Role = Literal["clinician", "editor", "auditor"]
ROLES: tuple[Role, ...] = ("clinician", "editor", "auditor")
PREFIX = "hippo_"  # says what a leaked string is (a secret scanner can look for it)
TOUCH_EVERY = 60.0  # seconds: "last used" is written at most this often per token


class TokenFileError(Exception):
    """The tokens file cannot be read, parsed or written; or a name is taken or unknown."""


@dataclass(frozen=True)
class TokenEntry:
    name: str
    role: Role
    sha256: str
    created: str
    last_used: str | None = None
    revoked: str | None = None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def read_entries(path: Path) -> list[TokenEntry]:
    """The file's tokens; a missing file has none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TokenFileError(f"{path}: cannot read the tokens file: {e}") from None
    try:
        return [TokenEntry(**row) for row in data["tokens"]]
    except (KeyError, TypeError) as e:
        raise TokenFileError(f"{path}: not a hippo-tui tokens file ({e})") from None


def write_entries(path: Path, entries: list[TokenEntry]) -> None:
    """Write atomically, readable by the owner only (it holds hashes, but of secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"tokens": [asdict(e) for e in entries]}, indent=1)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tokens-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise TokenFileError(f"{path}: cannot write the tokens file: {e}") from None


def add_token(path: Path, name: str, role: Role) -> str:
    """A new token for ``name`` (a name not in the file); returns the token, which is stored only hashed."""
    entries = read_entries(path)
    if any(e.name == name for e in entries):
        raise TokenFileError(f"{path}: there is already a token named {name!r} (revoke it, or pick another)")
    token = new_token()
    write_entries(path, [*entries, TokenEntry(name=name, role=role, sha256=digest(token), created=_now())])
    return token


def revoke_token(path: Path, name: str) -> None:
    entries = read_entries(path)
    if not any(e.name == name for e in entries):
        raise TokenFileError(f"{path}: no token named {name!r}")
    write_entries(path, [replace(e, revoked=e.revoked or _now()) if e.name == name else e for e in entries])


class TokenCheck:
    """What the server asks of the tokens file: whose token this is, if any."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: list[TokenEntry] = []
        self._stamp: tuple[int, int] | None = None
        self._touched: dict[str, float] = {}
        self._reload()

    def _reload(self) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._entries, self._stamp = [], None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._entries, self._stamp = read_entries(self.path), stamp

    def check(self, token: str) -> TokenEntry | None:
        """The live entry whose hash matches; None for a missing, unknown or revoked token."""
        self._reload()
        presented = digest(token).encode()
        found = None
        for entry in self._entries:  # every entry compared: the time does not say where it matched
            if secrets.compare_digest(presented, entry.sha256.encode()) and entry.revoked is None:
                found = entry
        if found is not None:
            self._touch(found.name)
        return found

    def _touch(self, name: str) -> None:
        now = time.monotonic()
        if now - self._touched.get(name, -TOUCH_EVERY) < TOUCH_EVERY:
            return
        self._touched[name] = now
        try:
            entries = read_entries(self.path)
            write_entries(self.path, [replace(e, last_used=_now()) if e.name == name else e for e in entries])
        except TokenFileError:
            pass  # "last used" is a convenience; a read-only file must not refuse the request
        self._reload()
