"""The engine in this process: what lasts between answers and is shared by every conversation on it (store,
backend, safety policy, whether the endpoint takes tools). Headless; no front end here.

Conversations (engine/conversation.py) hold their own history, system prompt and running answer; each
question is one ``Answer`` (engine/answer.py) built from explicit ``AnswerInputs``. A reconfigure applies to
the next answer of every conversation; the backend it replaced is closed once no answer still uses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_tui.backends import Backend, open_backend
from hippo_tui.backends.chat import RetryPolicy
from hippo_tui.config import Settings
from hippo_tui.engine.answer import MAX_TOOL_ROUNDS, Answer, AnswerInputs
from hippo_tui.engine.conversation import LocalConversation
from hippo_tui.engine.protocol import Checked, EngineInfo
from hippo_tui.guard import SafetyPolicy
from hippo_tui.models import AnswerRecord
from hippo_tui.prompts import DEFAULT_SYSTEM_PROMPT
from hippo_tui.store import Store, open_store

if TYPE_CHECKING:  # the audit's statistics (pydantic models) load where they are asked for
    from hippo_tui.audit_stats import AuditStats, StatsBy

__all__ = ["MAX_TOOL_ROUNDS", "Engine", "load_policy"]


class Engine:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        backend: Backend,
        *,
        clock: Callable[[], float],
        owns_store: bool,
        max_answers: int | None = None,
        client: str | None = None,
    ) -> None:
        self._settings = settings
        self._store = store
        self._backend = backend
        self._clock = clock
        self._owns_store = owns_store
        self._default_prompt: str = settings.system_prompt or DEFAULT_SYSTEM_PROMPT
        self.retry = RetryPolicy()  # tests shorten its waits
        self._tools_refused = False  # this endpoint refused the search tool once: stop offering it
        # Parsed once: a bad policy file fails at start, not mid-answer; each answer adds its own canary.
        self._policy = load_policy(settings.policy)
        self._first_record = settings.record
        self._recordings = 0
        self._leases: dict[int, int] = {}  # id(backend) -> answers using it now
        self._retired: dict[int, Backend] = {}  # replaced by a reconfigure, still used by an answer
        self._conversations: set[LocalConversation] = set()
        # How many answers may be past their start at once (a server sets it): the others have their start
        # event and record at once, and wait for a slot rather than slow every running answer down.
        self._slots = asyncio.Semaphore(max_answers) if max_answers else None
        self._client = client  # the front end in this process ("tui", "ask", "eval"), for the record

    @classmethod
    async def create(
        cls,
        settings: Settings,
        *,
        store: Store | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_answers: int | None = None,
        client: str | None = None,
    ) -> Engine:
        backend = open_backend(settings)
        owns = store is None
        try:
            if store is None:
                store = await open_store(settings)
            return cls(settings, store, backend, clock=clock, owns_store=owns, max_answers=max_answers,
                       client=client)  # fmt: skip
        except BaseException:
            await backend.aclose()
            if owns and store is not None:
                await store.close()
            raise

    # -- what is shared, read-only ------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def store(self) -> Store:
        return self._store

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def backend_label(self) -> str:
        return self._backend.label

    @property
    def model(self) -> str:
        return self._backend.model

    @property
    def default_system_prompt(self) -> str:
        return self._default_prompt

    async def info(self) -> EngineInfo:
        return EngineInfo(
            backend=self._backend.label,
            model=self._backend.model,
            base_url=self._backend.base_url,
            kb_name=self._store.kb_name,
            kb_size=await self._store.count(),
        )

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        return await self._store.get_answer(audit_id)

    async def list_answers(self, limit: int = 50, *, asked_by: str | None = None) -> list[AnswerRecord]:
        return await self._store.list_answers(limit=limit, asked_by=asked_by)

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        return await self._store.audit_stats(by, limit=limit)

    # -- conversations and their answers -------------------------------------------------------

    async def open_conversation(
        self, *, system_prompt: str | None = None, asked_by: str | None = None, client: str | None = None
    ) -> LocalConversation:
        conversation = LocalConversation(
            self,
            system_prompt=system_prompt or self._default_prompt,
            asked_by=asked_by,
            client=client or self._client,
            clock=self._clock,
        )
        self._conversations.add(conversation)
        return conversation

    def forget(self, conversation: LocalConversation) -> None:
        self._conversations.discard(conversation)

    @contextlib.asynccontextmanager
    async def answering(self, **inputs: Any) -> AsyncIterator[AnswerInputs]:
        """The shared parts one answer uses, held until it ends: a reconfigure meanwhile does not close its
        backend under it. ``inputs`` are the conversation's own (prompt, history, id, who asked)."""
        backend = self._backend
        self._leases[id(backend)] = self._leases.get(id(backend), 0) + 1
        try:
            yield AnswerInputs(
                store=self._store,
                backend=backend,
                settings=self._settings,
                policy=self._policy,
                retry=self.retry,
                tools_refused=self._tools_refused,
                slots=self._slots,
                **inputs,
            )
        finally:
            self._leases[id(backend)] -= 1
            if not self._leases[id(backend)]:
                del self._leases[id(backend)]
                retired = self._retired.pop(id(backend), None)
                if retired is not None:
                    await retired.aclose()

    def learn(self, answer: Answer) -> None:
        """What an answer found out about the endpoint it used: a refusal of the search tool."""
        if answer.tools_refused and answer.backend is self._backend:
            self._tools_refused = True

    # -- checking an answer written elsewhere --------------------------------------------------

    async def verify(
        self,
        text: str,
        *,
        question: str | None = None,
        asked_by: str | None = None,
        client: str | None = None,
    ) -> Checked:
        from hippo_tui.engine.checking import check_and_record

        who = {"asked_by": asked_by, "client": client or self._client}
        async with self.answering(system_prompt="", conversation_id="", **who) as inputs:
            return await check_and_record(inputs, text, question=question or "(hippo-tui verify)")

    # -- switching and closing -----------------------------------------------------------------

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        """Switch model or endpoint; applies to the next question. Unset arguments keep their value."""
        update: dict[str, Any] = {
            k: v for k, v in (("base_url", base_url), ("model", model)) if v is not None
        }
        if api_key is not None:
            update["api_key"] = api_key
        if backend is not None:
            update["backend"] = backend
        elif base_url is not None:
            update["backend"] = "openai"
        if self._first_record is not None:
            # A cassette holds one backend's session: the new backend records next to the first one.
            self._recordings += 1
            first = self._first_record
            update["record"] = first.with_name(f"{first.stem}.{self._recordings}{first.suffix}")
        settings = Settings.model_validate({**self._settings.model_dump(), **update})
        new = open_backend(settings)
        self._tools_refused = False  # a new endpoint or model may take tools
        old, self._backend, self._settings = self._backend, new, settings
        if id(old) in self._leases:
            self._retired[id(old)] = old  # closed when its last answer ends
        else:
            await old.aclose()

    async def close(self) -> None:
        for conversation in list(self._conversations):
            await conversation.close()
        await self._backend.aclose()
        for retired in self._retired.values():
            await retired.aclose()
        if self._owns_store:
            await self._store.close()


def load_policy(path: Path | None) -> SafetyPolicy:
    """The safety policy without a canary (each answer adds its own): read once, when the engine starts."""
    return SafetyPolicy.from_toml(path) if path is not None else SafetyPolicy.default()
