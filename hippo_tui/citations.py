"""The marker contract other tools rely on (``hippo_tui.citations.MARKER``, ``claims_by_source``); the code
lives in ``hippo_tui.verification.markers``."""

from hippo_tui.verification.markers import MARKER, claims_by_source

__all__ = ["MARKER", "claims_by_source"]
