"""The remote engine: a thin client of `hippo-tui serve` implementing the same protocol as the local engine,
so the app, ``ask``, ``verify`` and ``audit`` cannot tell them apart. Only httpx and the event models:
no store, no model client, no FastAPI.
"""

from __future__ import annotations

from typing import Any

import httpx

from hippo_tui import __version__
from hippo_tui.audit_stats import AuditStats, StatsBy
from hippo_tui.engine.protocol import Checked, EngineInfo, ReconfigureRefused
from hippo_tui.engine.remote_conversation import RemoteConversation
from hippo_tui.engine.remote_errors import RemoteError, refused, unreachable
from hippo_tui.models import AnswerRecord

CLIENT_HEADER = "X-Hippo-Client"
TIMEOUT = httpx.Timeout(30.0, read=60.0)  # a stream's read is bounded by the server's heartbeat


class RemoteEngine:
    def __init__(self, url: str, token: str | None, *, client: str = "tui") -> None:
        self.url = url.rstrip("/")
        headers = {CLIENT_HEADER: client, "User-Agent": f"hippo-tui/{__version__}"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.http = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=TIMEOUT)
        self._default_prompt = ""

    @classmethod
    async def connect(cls, url: str, token: str | None, *, client: str = "tui") -> RemoteEngine:
        """An engine on that server, once it answered and took the token (else RemoteError)."""
        engine = cls(url, token, client=client)
        try:
            info = await engine.call("GET", "/v1/info")
        except BaseException:
            await engine.close()
            raise
        engine._default_prompt = str(info.get("default_system_prompt", ""))
        return engine

    async def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """One JSON request; a refusal or an unreachable server raises RemoteError."""
        try:
            r = await self.http.request(method, path, **kwargs)
        except httpx.TransportError as e:
            raise unreachable(self.url, e) from None
        if r.status_code >= 400:
            raise refused(self.url, r.status_code, r.content, r.headers)
        return r.json()

    @property
    def default_system_prompt(self) -> str:
        return self._default_prompt

    async def info(self) -> EngineInfo:
        data = await self.call("GET", "/v1/info")
        data.pop("default_system_prompt", None)
        return EngineInfo.model_validate(data)

    async def open_conversation(self, *, system_prompt: str | None = None) -> RemoteConversation:
        data = await self.call("POST", "/v1/conversations", json={"system_prompt": system_prompt})
        return RemoteConversation(self, data["id"], data["system_prompt"])

    async def verify(self, text: str, *, question: str | None = None) -> Checked:
        data = await self.call("POST", "/v1/verify", json={"text": text, "question": question})
        return Checked.model_validate(data)

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        raise ReconfigureRefused(f"the server at {self.url} decides the model; ask whoever runs it")

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        try:
            data = await self.call("GET", f"/v1/answers/{audit_id}")
        except RemoteError as e:
            if e.kind == "not_found":
                return None
            raise
        return AnswerRecord.model_validate(data)

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        data = await self.call("GET", "/v1/answers", params={"limit": limit})
        return [AnswerRecord.model_validate(d) for d in data]

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        data = await self.call("GET", "/v1/audit/stats", params={"by": by, "limit": limit})
        return AuditStats.model_validate(data)

    async def close(self) -> None:
        await self.http.aclose()
