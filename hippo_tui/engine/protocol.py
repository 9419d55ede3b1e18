"""What any front end may call on an engine: the one seam between the engine and the Textual app, ``ask``,
``verify``, ``eval``, the server's SSE handler and the tests' fakes.

The local engine (``hippo_tui.engine.local.Engine``) implements it in this process; a remote engine (a client
of ``hippo-tui serve``) implements it over HTTP. Everything a front end shows comes from the event stream of
``ask`` and from these calls; nothing here exposes the store, the backend or the model client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from hippo_tui.audit_stats import AuditStats, StatsBy
from hippo_tui.events import Event
from hippo_tui.models import AnswerRecord


class EngineInfo(BaseModel):
    """What the engine is, for a status line: read after start and after every ``reconfigure``."""

    model_config = ConfigDict(frozen=True, defer_build=True)  # built when first used, not on import

    backend: str  # a label a reader understands, e.g. "offline (extractive, no LLM)"
    model: str
    base_url: str | None = None
    kb_name: str = ""
    kb_size: int = 0  # active sources


@runtime_checkable
class AnswerEngine(Protocol):
    """An engine answers one question at a time per front end; ``cancel`` may be called from any task."""

    # The system prompt in force for the next question, and the one a reset restores.
    system_prompt: str

    @property
    def default_system_prompt(self) -> str: ...

    async def info(self) -> EngineInfo: ...

    def ask(self, question: str) -> AsyncIterator[Event]:
        """The events of one answer: ``start`` first (when its record could be written), ``end`` or
        ``error`` last, whatever happens (a cancelled answer ends with ``end`` outcome ``cancelled``)."""
        ...

    async def cancel(self) -> None:
        """Stop the answer being written, if any: its stream ends with the ``cancelled`` end event."""
        ...

    def new_conversation(self) -> None:
        """Forget earlier turns: the next question starts a conversation of its own."""
        ...

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        """Switch model or endpoint for the next question; unset arguments keep their value."""
        ...

    async def get_answer(self, audit_id: int) -> AnswerRecord | None:
        """One answer's audit record, with every citation attempt and reset."""
        ...

    async def list_answers(self, limit: int = 50) -> list[AnswerRecord]:
        """The newest answers first."""
        ...

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        """The audit record per model or per day, the sources most often cited while retired, and the
        answers with the most failed citations (at most ``limit`` of each list)."""
        ...

    async def close(self) -> None: ...
