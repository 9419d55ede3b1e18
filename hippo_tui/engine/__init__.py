"""Engines: what answers a question. ``protocol`` is the seam every front end uses; ``local`` answers in this
process (store, backend, guard, verification)."""

from hippo_tui.config import Settings
from hippo_tui.engine.local import MAX_TOOL_ROUNDS, Engine, load_policy, open_store
from hippo_tui.engine.protocol import AnswerEngine, EngineInfo

__all__ = [
    "MAX_TOOL_ROUNDS",
    "AnswerEngine",
    "Engine",
    "EngineInfo",
    "load_policy",
    "open_engine",
    "open_store",
]


async def open_engine(settings: Settings) -> AnswerEngine:
    """The engine these settings name, as a front end sees it: only the protocol, never the store or backend.

    Raises StoreError, CassetteError or PolicyError when it cannot start.
    """
    return await Engine.create(settings)
