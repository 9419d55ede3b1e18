"""Citation markers, sentence splitting and claims_by_source. The marker regex lives here and only here."""

from __future__ import annotations

import re
import uuid

# A canonical marker: a lowercase UUID in square brackets.
MARKER = re.compile(r"\[([0-9a-f-]{36})\]")


def canonical_id(value: str) -> str:
    """A source id in canonical form (lowercase, hyphenated UUID). Raises ValueError when it is not a UUID."""
    return str(uuid.UUID(value.strip()))
