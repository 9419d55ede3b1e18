"""Properties of the engine over arbitrary chunk boundaries (model output replayed from a cassette)."""

from __future__ import annotations

import asyncio
import itertools
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippo_tui.backends import sse
from hippo_tui.backends.cassette import VERSION
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent, Event, ResetEvent, TextEvent
from hippo_tui.store import DEMO_KB, Store
from hippo_tui.verification.markers import finalize_markers
from tests.support.asking import ask_once

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"
DIAG = "161d3bb9-a9a9-4bf2-b928-18b327f42fea"
NOWHERE = "00000000-0000-4000-8000-000000000000"

SENTENCES = [
    f"Amlodipine is commonly started at 5 mg once daily. [{AMLO}]",
    f"Confirm a clinic reading with home monitoring. [{DIAG}]",
    f"This one cites nothing real. [{NOWHERE}]",
    "A plain sentence without a citation.",
    "Control \x1b[31mcodes\x1b[0m are removed.",
]


def cassette(path: Path, pieces: list[str]) -> None:
    chunks = [sse.chunk("p", role="assistant", content="")]
    chunks += [sse.chunk("p", content=p) for p in pieces]
    chunks.append(sse.chunk("p", finish_reason="stop"))
    verdicts = json.dumps(
        {"checks": [{"source_id": AMLO, "grounded": True}, {"source_id": DIAG, "grounded": False}]}
    )
    records = [
        {"type": "meta", "version": VERSION},
        {"type": "request", "n": 0, "kind": "chat"},
        {"type": "response", "n": 0, "status": 200, "content_type": "text/event-stream"},
        *({"type": "chunk", "n": 0, "t": 0, "data": json.dumps(c)} for c in chunks),
        {"type": "chunk", "n": 0, "t": 0, "data": "[DONE]"},
        {"type": "request", "n": 1, "kind": "grounding"},
        {"type": "response", "n": 1, "status": 200, "content_type": "application/json"},
        {"type": "body", "n": 1, "t": 0, "text": json.dumps(sse.completion("p", verdicts))},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


async def run(store: Store, home: Path, pieces: list[str], mode: str) -> list[Event]:
    tape = home / "p.jsonl"
    cassette(tape, pieces)
    engine = await Engine.create(Settings(home=home, replay=tape, replay_speed=0, hold=mode), store=store)
    try:
        return await ask_once(engine, "amlodipine")
    finally:
        await engine.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    order=st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=6),
    cuts=st.lists(st.integers(0, 10_000), max_size=40),
    mode=st.sampled_from(["adaptive", "fixed"]),
)
def test_any_chunking_gives_the_same_answer(order, cuts, mode):
    text = " ".join(SENTENCES[i] for i in order)

    async def main() -> tuple[list[Event], list[Event]]:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            store = await Store.open(home / "h.db", seed=DEMO_KB)
            try:
                whole = await run(store, home, [text], mode)
                pieces = await run(store, home, split(text, cuts), mode)
            finally:
                await store.close()
            return whole, pieces

    whole, pieces = asyncio.run(main())
    end_whole, end_pieces = whole[-1], pieces[-1]
    assert isinstance(end_whole, EndEvent) and isinstance(end_pieces, EndEvent)
    # The chunking never changes the final answer or its citations.
    assert end_pieces.text == end_whole.text
    assert end_pieces.citations == end_whole.citations
    texts = [e for e in pieces if isinstance(e, TextEvent)]
    released = "".join(e.delta for e in texts)
    assert not any(isinstance(e, ResetEvent) for e in pieces)
    # Released text is sanitised, markers arrive whole, and it is the answer before finalising.
    assert "\x1b" not in released
    assert finalize_markers(released, {c.id: c.number for c in end_pieces.citations}) == end_pieces.text
    for e in texts:
        assert e.delta.count("[") == e.delta.count("]")
        assert e.display.count("[") == e.display.count("]")
    assert [c.id for c in end_pieces.citations] == [i for i in (AMLO,) if AMLO in text]
