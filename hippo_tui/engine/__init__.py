"""Engines: what answers a question. ``protocol`` is the seam every front end uses; ``local`` answers in this
process (store, backend, guard, verification)."""

from hippo_tui.engine.local import MAX_TOOL_ROUNDS, Engine, load_policy, open_store
from hippo_tui.engine.protocol import AnswerEngine, EngineInfo

__all__ = ["MAX_TOOL_ROUNDS", "AnswerEngine", "Engine", "EngineInfo", "load_policy", "open_store"]
