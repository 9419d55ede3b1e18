"""What the server holds between requests: the one engine, the conversations (each with its owner), the
running and recent answers, who may call, and the limits. Routes reach it through ``state(request)``."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request

from hippo_tui.engine.conversation import LocalConversation
from hippo_tui.engine.local import Engine
from hippo_tui.server.auth import Gate, User
from hippo_tui.server.errors import ApiError
from hippo_tui.server.feeds import Feeds
from hippo_tui.server.limits import Limits

CLIENT_HEADER = "x-hippo-client"  # which kind of front end asks ("tui", "ask", ...), for the record
CLIENT_KINDS = {"tui", "ask", "eval", "verify", "http"}
MAX_CONVERSATIONS = 10_000  # open at once; the oldest is closed past it


@dataclass
class Owned:
    owner: str
    conversation: LocalConversation


@dataclass
class ServerState:
    engine: Engine
    gate: Gate
    limits: Limits
    feeds: Feeds = field(default_factory=Feeds)
    conversations: dict[str, Owned] = field(default_factory=dict)

    def user(self, request: Request) -> User:
        return self.gate.user(request)

    async def open_conversation(self, user: User, request: Request, system_prompt: str | None) -> Owned:
        kind = request.headers.get(CLIENT_HEADER, "http")
        client = f"server:{kind if kind in CLIENT_KINDS else 'http'}"
        conversation = await self.engine.open_conversation(
            system_prompt=system_prompt, asked_by=user.name, client=client
        )
        owned = self.conversations[conversation.id] = Owned(user.name, conversation)
        while len(self.conversations) > MAX_CONVERSATIONS:
            oldest = next(iter(self.conversations))
            await self.conversations.pop(oldest).conversation.close()
        return owned

    def conversation(self, user: User, conversation_id: str) -> Owned:
        """The caller's own conversation; another user's is as unknown as one that does not exist."""
        owned = self.conversations.get(conversation_id)
        if owned is None or owned.owner != user.name:
            raise ApiError(404, "not_found", "no such conversation")
        return owned


def state(request: Request) -> ServerState:
    found: ServerState = request.app.state.hippo
    return found
