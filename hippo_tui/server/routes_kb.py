"""The knowledge base and checking: verify an answer written elsewhere, search, read a source, and (for
editors) retire one."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from hippo_tui.server.auth import require
from hippo_tui.server.errors import ApiError
from hippo_tui.server.state import state

router = APIRouter(prefix="/v1")


class VerifyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    question: str | None = Field(default=None, max_length=4000)


class RetireBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(min_length=1, max_length=500)
    superseded_by: str | None = Field(default=None, max_length=64)


@router.post("/verify")
async def verify(request: Request, body: VerifyBody) -> Any:
    s = state(request)
    user = s.user(request)
    checked = await s.engine.verify(body.text, question=body.question, asked_by=user.name, client="server:verify")
    return checked.model_dump(mode="json")


@router.get("/kb/search")
async def search(request: Request, q: str = Query(min_length=1, max_length=500),
                 k: int = Query(default=5, ge=1, le=50)) -> list[Any]:  # fmt: skip
    s = state(request)
    s.user(request)
    rows = await s.engine.store.search_rows(q, k=k)
    return [h.hit().model_dump(mode="json", exclude_none=True) for h in rows]


@router.get("/kb/sources/{source_id}")
async def source(request: Request, source_id: str) -> Any:
    s = state(request)
    s.user(request)
    found = await s.engine.store.get(source_id)
    if found is None:
        raise ApiError(404, "not_found", "no such source")
    return found.model_dump(mode="json", exclude_none=True)


@router.post("/kb/sources/{source_id}/retire")
async def retire(request: Request, source_id: str, body: RetireBody) -> Any:
    from hippo_tui.store import StoreError

    s = state(request)
    require(s.user(request).edits_kb, "retire sources (editors only)")
    try:
        retired = await s.engine.store.retire(source_id, body.reason, body.superseded_by)
    except StoreError as e:
        raise ApiError(404 if "no source" in str(e) else 409, "kb", str(e)) from None
    return retired.model_dump(mode="json", exclude_none=True)
