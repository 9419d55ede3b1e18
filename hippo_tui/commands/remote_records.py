"""What `audit` and `kb search|show` read, from a `hippo-tui serve` instead of the data folder (``--server``):
the same calls as the store's, so each command's printing is the same either way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hippo_tui.audit_stats import AuditStats, StatsBy
from hippo_tui.engine.remote import RemoteEngine
from hippo_tui.engine.remote_errors import RemoteError
from hippo_tui.models import AnswerRecord, SearchHit, Source

ALL_ANSWERS = 1000  # the server's largest page


@dataclass(frozen=True)
class RemoteHit:
    """A search result as `kb search` prints it (``HitRow``'s fields), from the server's JSON."""

    found: SearchHit

    def hit(self) -> SearchHit:
        return self.found

    def __getattr__(self, name: str) -> Any:
        return getattr(self.found, name)


class RemoteRecords:
    def __init__(self, engine: RemoteEngine) -> None:
        self.engine = engine
        self.path = engine.url  # where error messages say the records are

    async def list_answers(self, limit: int | None = 50) -> list[AnswerRecord]:
        return await self.engine.list_answers(limit or ALL_ANSWERS)

    async def get_answer(self, answer_id: int) -> AnswerRecord | None:
        return await self.engine.get_answer(answer_id)

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        return await self.engine.audit_stats(by, limit=limit)

    async def search_rows(self, query: str, k: int = 5) -> list[RemoteHit]:
        data = await self.engine.call("GET", "/v1/kb/search", params={"q": query, "k": k})
        return [RemoteHit(SearchHit.model_validate(d)) for d in data]

    async def get(self, source_id: str) -> Source | None:
        try:
            return Source.model_validate(await self.engine.call("GET", f"/v1/kb/sources/{source_id}"))
        except RemoteError as e:
            if e.kind == "not_found":
                return None
            raise

    async def close(self) -> None:
        await self.engine.close()
