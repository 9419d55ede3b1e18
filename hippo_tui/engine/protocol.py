"""What any front end may call on an engine: the one seam between the engine and the Textual app, ``ask``,
``verify``, ``eval``, the server's SSE handler and the tests' fakes.

The engine is shared, a conversation is not: ``AnswerEngine`` is process-wide (what it is, the audit record,
checking an answer written elsewhere, switching model) and hands out ``Conversation``s, each with its own
history, system prompt and running answer. The local engine (``hippo_tui.engine.local``) implements both in
this process; the remote engine (``hippo_tui.engine.remote``, a client of ``hippo-tui serve``) over HTTP.
Nothing here is a mutable attribute, and nothing exposes the store, the backend or the model client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from hippo_tui.events import Coverage, Event, VerificationSummary
from hippo_tui.models import AnswerRecord, CitationAttempt

if TYPE_CHECKING:  # the audit's statistics (pydantic models) load where they are asked for
    from hippo_tui.audit_stats import AuditStats, StatsBy


class EngineInfo(BaseModel):
    """What the engine is, for a status line: read after start and after every ``reconfigure``."""

    model_config = ConfigDict(frozen=True, defer_build=True)  # built when first used, not on import

    backend: str  # a label a reader understands, e.g. "offline (extractive, no LLM)"
    model: str
    base_url: str | None = None
    kb_name: str = ""
    kb_size: int = 0  # active sources


class Checked(BaseModel):
    """An answer written elsewhere, checked (both checks) and recorded: what ``verify`` reports."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    audit_id: int
    judge: str  # the backend label of whoever ran check two
    text: str  # the final text: passing markers as [n], the others removed
    attempts: list[CitationAttempt]
    summary: VerificationSummary
    coverage: Coverage
    grounding_step: str | None = None  # which response_format gave check two's verdicts


class ReconfigureRefused(Exception):
    """This engine does not switch model or endpoint for its users (a shared server decides)."""


@runtime_checkable
class Conversation(Protocol):
    """One front end's conversation: one answer at a time; ``cancel`` may be called from any task."""

    @property
    def id(self) -> str: ...

    @property
    def system_prompt(self) -> str:
        """The system prompt in force for the next question."""
        ...

    def ask(self, question: str) -> AsyncIterator[Event]:
        """The events of one answer: ``start`` first (when its record could be written), ``end`` or
        ``error`` last, whatever happens (a cancelled answer ends with ``end`` outcome ``cancelled``)."""
        ...

    async def cancel(self) -> None:
        """Stop the answer being written, if any: its stream ends with the ``cancelled`` end event."""
        ...

    async def set_system_prompt(self, text: str) -> None:
        """The system prompt for the next question of this conversation."""
        ...

    async def close(self) -> None:
        """Cancel the running answer, if any, and forget the conversation."""
        ...


@runtime_checkable
class AnswerEngine(Protocol):
    """The process-wide engine: many conversations may answer on it at once."""

    @property
    def default_system_prompt(self) -> str:
        """The prompt a conversation starts with, and the one a reset of the editor restores."""
        ...

    async def info(self) -> EngineInfo: ...

    async def open_conversation(self, *, system_prompt: str | None = None) -> Conversation:
        """A conversation of its own: no earlier turn of another one reaches its model."""
        ...

    async def verify(self, text: str, *, question: str | None = None) -> Checked:
        """Both checks of an answer written elsewhere (``[source-id]`` markers), kept in the audit record."""
        ...

    async def reconfigure(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | None = None,
    ) -> None:
        """Switch model or endpoint for the next question; unset arguments keep their value. Raises
        ``ReconfigureRefused`` where the engine is not this user's to switch."""
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
