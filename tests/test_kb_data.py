"""The bundled demo knowledge base: schema, counts, retired sources and the packaged copy."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest

from hippo_tui.models import Source

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = ROOT / "kb" / "demo.jsonl"
PACKAGED = ROOT / "hippo_tui" / "data" / "kb" / "demo.jsonl"
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z0-9])")


@pytest.fixture(scope="module")
def sources() -> list[Source]:
    lines = CANONICAL.read_text(encoding="utf-8").splitlines()
    return [Source.model_validate_json(line) for line in lines]


def test_every_line_is_a_valid_source(sources: list[Source]) -> None:
    raw = [json.loads(line) for line in CANONICAL.read_text(encoding="utf-8").splitlines()]
    assert len(raw) == len(sources)
    # Ids are stored in canonical form already (the model would silently normalise them otherwise).
    assert [r["id"] for r in raw] == [s.id for s in sources]


def test_counts(sources: list[Source]) -> None:
    active = [s for s in sources if s.status == "active"]
    retired = [s for s in sources if s.status == "retired"]
    assert len(active) >= 64
    assert len(retired) >= 8


def test_ids_are_unique_uuid4(sources: list[Source]) -> None:
    ids = [s.id for s in sources]
    assert len(set(ids)) == len(ids)
    assert all(uuid.UUID(i).version == 4 for i in ids)


def test_excerpts_have_two_to_five_sentences(sources: list[Source]) -> None:
    for s in sources:
        n = len(SENTENCE_END.split(s.excerpt.strip()))
        assert 2 <= n <= 5, (s.title, n)


def test_retired_sources_point_at_a_different_active_source(sources: list[Source]) -> None:
    by_id = {s.id: s for s in sources}
    for s in sources:
        if s.status == "retired":
            assert s.retired_reason, s.title
            assert s.superseded_by in by_id, s.title
            successor = by_id[s.superseded_by]
            assert successor.status == "active"
            assert successor.excerpt != s.excerpt
        else:
            assert s.superseded_by is None and s.retired_reason is None


def test_packaged_copy_is_the_canonical_file() -> None:
    # A symlink in the tree; the wheel build turns it into a real copy. Either way the bytes must match.
    assert PACKAGED.read_bytes() == CANONICAL.read_bytes()


def test_store_exposes_the_packaged_file() -> None:
    from hippo_tui.store import DEMO_KB

    assert DEMO_KB.is_file()
    assert DEMO_KB.read_bytes() == CANONICAL.read_bytes()
