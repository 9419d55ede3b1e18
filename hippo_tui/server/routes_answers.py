"""Conversations and answers: ask (a stream of the engine's events), cancel, resume after a dropped
connection, and the audit record (a clinician reads their own; an auditor everyone's and the stats)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from hippo_tui.engine.conversation import LocalConversation
from hippo_tui.server.auth import User, require
from hippo_tui.server.errors import ApiError
from hippo_tui.server.feeds import Feed
from hippo_tui.server.sse import HEADERS, MEDIA_TYPE, parse_last_event_id, stream
from hippo_tui.server.state import ServerState, state

router = APIRouter(prefix="/v1")
PROMPT_LIMIT = 20_000  # characters of a conversation's system prompt


class NewConversation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system_prompt: str | None = Field(default=None, max_length=PROMPT_LIMIT)


class PromptChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system_prompt: str = Field(min_length=1, max_length=PROMPT_LIMIT)


class Ask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    conversation_id: str | None = Field(default=None, max_length=64)


def _conversation_json(conversation_id: str, prompt: str) -> dict[str, str]:
    return {"id": conversation_id, "system_prompt": prompt}


@router.post("/conversations")
async def new_conversation(request: Request, body: NewConversation | None = None) -> dict[str, str]:
    s = state(request)
    owned = await s.open_conversation(s.user(request), request, body.system_prompt if body else None)
    return _conversation_json(owned.conversation.id, owned.conversation.system_prompt)


@router.put("/conversations/{conversation_id}")
async def change_prompt(request: Request, conversation_id: str, body: PromptChange) -> dict[str, str]:
    s = state(request)
    owned = s.conversation(s.user(request), conversation_id)
    await owned.conversation.set_system_prompt(body.system_prompt)
    return _conversation_json(conversation_id, body.system_prompt)


@router.delete("/conversations/{conversation_id}")
async def close_conversation(request: Request, conversation_id: str) -> dict[str, str]:
    s = state(request)
    owned = s.conversation(s.user(request), conversation_id)
    del s.conversations[conversation_id]
    await owned.conversation.close()
    return {"id": conversation_id}


@router.post("/ask")
async def ask(request: Request, body: Ask) -> StreamingResponse:
    s = state(request)
    user = s.user(request)
    if len(body.question) > s.limits.max_question:
        raise ApiError(422, "invalid", f"question: longer than {s.limits.max_question} characters")
    if s.feeds.running_for(user.name) >= s.limits.answers_per_token:
        retry = str(s.limits.retry_after)
        raise ApiError(429, "rate_limit", f"{s.limits.answers_per_token} answers are already running for "
                       "this token; wait for one to end", {"Retry-After": retry})  # fmt: skip
    if body.conversation_id is not None:
        owned = s.conversation(user, body.conversation_id)
        if owned.conversation.busy:
            raise ApiError(409, "conflict", "this conversation is still writing an answer")
    else:
        owned = await s.open_conversation(user, request, None)
    feed = _start(s, user, owned.conversation, body.question)
    return StreamingResponse(stream(feed, -1, s.limits.heartbeat), media_type=MEDIA_TYPE, headers=HEADERS)


def _start(s: ServerState, user: User, conversation: LocalConversation, question: str) -> Feed:
    limits = s.limits
    feed = Feed(user.name, conversation, question, grace=limits.grace, deadline=limits.deadline,
                on_start=s.feeds.started)  # fmt: skip
    feed.start()
    s.feeds.add(feed)
    return feed


def _own_feed(s: ServerState, user: User, audit_id: int) -> Feed:
    feed = s.feeds.get(audit_id)
    if feed is None or feed.owner != user.name:
        raise ApiError(404, "not_found", "no events are kept for that answer")
    return feed


@router.post("/answers/{audit_id}/cancel")
async def cancel(request: Request, audit_id: int) -> dict[str, object]:
    s = state(request)
    feed = _own_feed(s, s.user(request), audit_id)
    running = not feed.done
    feed.cancel_soon()
    return {"audit_id": audit_id, "cancelled": running}


@router.get("/answers/{audit_id}/events")
async def events(
    request: Request, audit_id: int, last_event_id: str | None = Header(default=None)
) -> StreamingResponse:
    s = state(request)
    feed = _own_feed(s, s.user(request), audit_id)
    after = parse_last_event_id(last_event_id, audit_id)
    return StreamingResponse(stream(feed, after, s.limits.heartbeat), media_type=MEDIA_TYPE, headers=HEADERS)


@router.get("/answers")
async def list_answers(request: Request, limit: int = Query(default=50, ge=1, le=1000)) -> list[Any]:
    s = state(request)
    user = s.user(request)
    records = await s.engine.list_answers(limit, asked_by=None if user.sees_all else user.name)
    return [r.model_dump(mode="json") for r in records]


@router.get("/answers/{audit_id}")
async def get_answer(request: Request, audit_id: int) -> Any:
    s = state(request)
    user = s.user(request)
    record = await s.engine.get_answer(audit_id)
    if record is None or not (user.sees_all or record.asked_by == user.name):
        raise ApiError(404, "not_found", "no such answer")
    return record.model_dump(mode="json")


@router.get("/audit/stats")
async def audit_stats(
    request: Request, by: Literal["model", "day"] = "model", limit: int = Query(default=10, ge=1, le=100)
) -> Any:
    s = state(request)
    require(s.user(request).sees_all, "read the audit stats (auditors only)")
    return (await s.engine.audit_stats(by, limit=limit)).model_dump(mode="json")
