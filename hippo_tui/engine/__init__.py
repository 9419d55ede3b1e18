"""Engines: what answers a question. ``protocol`` is the seam every front end uses; ``local`` answers in this
process (store, backend, guard, verification)."""

from hippo_tui.engine.local import MAX_TOOL_ROUNDS, Engine, open_store, safety_policy
from hippo_tui.engine.protocol import AnswerEngine, EngineInfo

__all__ = ["MAX_TOOL_ROUNDS", "AnswerEngine", "Engine", "EngineInfo", "open_store", "safety_policy"]
