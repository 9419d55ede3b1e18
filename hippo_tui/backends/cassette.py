"""Cassettes: a model's raw responses recorded as JSONL with timing, and played back through the same path.

``RecordingTransport`` wraps any transport (the offline one, or a real HTTP one) and writes, per request:
``request`` (its kind and body), ``response`` (status, content type), every raw SSE ``data`` payload as a
``chunk`` (unparsed, so malformed frames replay as they came), a non-streamed ``body``, and an ``end`` saying
how it finished: ``done``, ``error`` (the connection broke) or ``cancelled`` (the client gave up, e.g. a
grounding check that timed out). ``ReplayTransport`` answers the n-th request with the n-th recording, at
the recorded pace divided by ``speed`` (0: unlimited); a recording that was cancelled never answers. Both
transports are in ``cassette_transports`` (they need httpx; reading a cassette does not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSION = 1


class CassetteError(Exception):
    """A cassette that cannot be read or does not fit the conversation."""


def request_kind(body: dict[str, Any]) -> str:
    return "grounding" if body.get("response_format") else "chat"


@dataclass
class Recording:
    n: int
    kind: str
    status: int | None = None
    content_type: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    t_response: float = 0.0
    chunks: list[tuple[float, str]] = field(default_factory=list)
    body: tuple[float, str] | None = None
    how: str = "done"  # done | closed (the client stopped reading) | error | cancelled


@dataclass
class Cassette:
    meta: dict[str, Any]
    notes: list[dict[str, Any]]
    recordings: list[Recording]

    @property
    def question(self) -> str | None:
        return next((n["question"] for n in self.notes if isinstance(n.get("question"), str)), None)

    @classmethod
    def load(cls, path: Path) -> Cassette:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise CassetteError(f"cannot read cassette {path}: {e.strerror or e}") from None
        meta: dict[str, Any] = {}
        notes: list[dict[str, Any]] = []
        recs: dict[int, Recording] = {}
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                kind = r["type"]
                if kind == "meta":
                    meta = r
                elif kind == "note":
                    notes.append(r)
                elif kind == "request":
                    recs[r["n"]] = Recording(n=r["n"], kind=r.get("kind", "chat"))
                elif kind == "response":
                    rec = recs[r["n"]]
                    rec.status, rec.content_type = int(r["status"]), r.get("content_type", "")
                    rec.headers, rec.t_response = r.get("headers") or {}, float(r.get("t", 0))
                elif kind == "chunk":
                    recs[r["n"]].chunks.append((float(r["t"]), str(r["data"])))
                elif kind == "body":
                    recs[r["n"]].body = (float(r["t"]), str(r["text"]))
                elif kind == "end":
                    recs[r["n"]].how = r.get("how", "done")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                raise CassetteError(f"{path}: line {i} is not a cassette record ({e})") from None
        if meta.get("version") != VERSION:
            raise CassetteError(f"{path}: not a version {VERSION} cassette")
        return cls(meta=meta, notes=notes, recordings=[recs[k] for k in sorted(recs)])
