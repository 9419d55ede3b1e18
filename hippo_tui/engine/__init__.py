"""Engines: what answers a question. ``protocol`` is the seam every front end uses; ``local`` answers in this
process (store, backend, guard, verification), one ``conversation`` per front end.

The local engine is loaded on first use (PEP 562): a front end that only types against the protocol
(``hippo_tui.engine.protocol``) must not pull in the model client at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hippo_tui.engine.protocol import AnswerEngine, Checked, Conversation, EngineInfo

if TYPE_CHECKING:
    from hippo_tui.config import Settings
    from hippo_tui.engine.local import MAX_TOOL_ROUNDS, Engine, load_policy

_LOCAL = {"MAX_TOOL_ROUNDS", "Engine", "load_policy"}

__all__ = [
    "MAX_TOOL_ROUNDS",
    "AnswerEngine",
    "Checked",
    "Conversation",
    "Engine",
    "EngineInfo",
    "load_policy",
    "open_engine",
]


def __getattr__(name: str) -> Any:
    if name in _LOCAL:
        from hippo_tui.engine import local

        return getattr(local, name)
    raise AttributeError(f"module 'hippo_tui.engine' has no attribute {name!r}")


async def open_engine(settings: Settings, *, client: str = "ask") -> AnswerEngine:
    """The engine these settings name, as a front end sees it: only the protocol, never the store or backend.
    With ``server`` set, a thin client of that `hippo-tui serve` (``client`` says which front end asks).

    Raises StoreError, CassetteError or PolicyError when it cannot start; RemoteError for a server.
    """
    if settings.server:
        from hippo_tui.engine.remote import RemoteEngine

        return await RemoteEngine.connect(settings.server, settings.token, client=client)
    from hippo_tui.engine.local import Engine

    return await Engine.create(settings, client=client)
