"""Engine throughput and the tail after the stream, on a 50,000-character cassette at unlimited speed.

Baseline: the same cassette's chunks iterated through the same OpenAI client and replay transport, with no
engine (no guard, no markers, no events). The engine's rate is reported as a ratio of that baseline, since
the machines running this are noisy. The tail is the time from the last model chunk to ``end`` with an
instant grounding reply (check one, claims, one grounding call, final markers, audit writes).

    python bench/bench_engine.py [--chars 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import openai

from hippo_tui.backends import sse
from hippo_tui.backends.cassette import VERSION, Cassette
from hippo_tui.backends.cassette_transports import ReplayTransport
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent, TextEvent, ThinkingEvent
from hippo_tui.store import DEMO_KB, Store
from hippo_tui.verification.markers import split_sentences

MODEL = "bench"


def build_answer(chars: int) -> tuple[str, list[str]]:
    """Real KB sentences, each cited with its source's id, until ``chars`` characters."""
    rows = [json.loads(line) for line in DEMO_KB.read_text(encoding="utf-8").splitlines() if line.strip()]
    cited = [
        (r["id"], s)
        for r in rows
        if r.get("status", "active") == "active"
        for s in split_sentences(r["excerpt"])
    ]
    parts: list[str] = []
    ids: list[str] = []
    size = 0
    i = 0
    while size < chars:
        sid, sentence = cited[i % len(cited)]
        piece = f"{sentence} [{sid}] " if i % 7 else f"{sentence} [{sid}]\n\n"
        parts.append(piece)
        size += len(piece)
        if sid not in ids:
            ids.append(sid)
        i += 1
    return "".join(parts)[:chars], ids


def write_cassette(path: Path, text: str, ids: list[str], piece: int = 4) -> int:
    """The cassette format, as the recorder writes it (t = 0: no pacing to reproduce)."""
    chunks = [sse.chunk(MODEL, role="assistant", content="")]
    chunks += [sse.chunk(MODEL, content=text[i : i + piece]) for i in range(0, len(text), piece)]
    chunks.append(sse.chunk(MODEL, finish_reason="stop"))
    verdicts = json.dumps({"checks": [{"source_id": s, "grounded": True} for s in ids]})
    lines = [
        {"type": "meta", "version": VERSION, "backend": "bench", "model": MODEL},
        {"type": "request", "n": 0, "kind": "chat", "stream": True, "body": {}},
        {
            "type": "response",
            "n": 0,
            "status": 200,
            "content_type": "text/event-stream",
            "headers": {},
            "t": 0,
        },
        *({"type": "chunk", "n": 0, "t": 0, "data": json.dumps(c)} for c in chunks),
        {"type": "chunk", "n": 0, "t": 0, "data": "[DONE]"},
        {"type": "end", "n": 0, "how": "done", "t": 0},
        {"type": "request", "n": 1, "kind": "grounding", "stream": False, "body": {}},
        {
            "type": "response",
            "n": 1,
            "status": 200,
            "content_type": "application/json",
            "headers": {},
            "t": 0,
        },
        {"type": "body", "n": 1, "t": 0, "text": json.dumps(sse.completion(MODEL, verdicts))},
        {"type": "end", "n": 1, "how": "done", "t": 0},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return len(chunks)


async def raw_chunks(path: Path) -> tuple[int, float]:
    """Baseline: iterate the chunks through the client alone."""
    transport = ReplayTransport(Cassette.load(path), speed=0)
    client = openai.AsyncOpenAI(
        base_url="http://bench.invalid/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=transport),
    )
    t0 = time.perf_counter()
    n = 0
    stream = await client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "q"}], stream=True
    )
    async for chunk in stream:
        n += 1
        for choice in chunk.choices:
            _ = choice.delta.content
    took = time.perf_counter() - t0
    await client.close()
    return n, took


async def engine_run(path: Path, store: Store, home: Path) -> dict[str, float]:
    engine = await Engine.create(Settings(home=home, replay=path, replay_speed=0), store=store)
    n = 0
    last_text = checking = 0.0
    t0 = time.perf_counter()
    end: EndEvent | None = None
    conversation = await engine.open_conversation()
    async for event in conversation.ask("bench"):
        n += 1
        now = time.perf_counter()
        if isinstance(event, TextEvent):
            last_text = now
        elif isinstance(event, ThinkingEvent) and event.phase == "checking":
            checking = now
        elif isinstance(event, EndEvent):
            end = event
    t_end = time.perf_counter()
    await engine.close()
    assert end is not None and end.outcome == "complete", end
    return {
        "events": n,
        "seconds": t_end - t0,
        "tail": t_end - last_text,
        "checking_to_end": t_end - checking,
        "citations": len(end.citations),
    }


async def main(chars: int, runs: int) -> None:
    text, ids = build_answer(chars)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        tape = home / "bench.jsonl"
        nchunks = write_cassette(tape, text, ids)
        store = await Store.open(home / "hippo.db", seed=DEMO_KB)
        await raw_chunks(tape)  # warm up imports and pydantic
        await engine_run(tape, store, home)
        raw = [await raw_chunks(tape) for _ in range(runs)]
        eng = [await engine_run(tape, store, home) for _ in range(runs)]
        await store.close()
    raw_s = statistics.median(t for _, t in raw)
    eng_s = statistics.median(r["seconds"] for r in eng)
    events = eng[0]["events"]
    tail = statistics.median(r["tail"] for r in eng)
    check = statistics.median(r["checking_to_end"] for r in eng)
    print(
        f"cassette: {len(text):,} characters, {nchunks:,} chunks, {len(ids)} distinct cited sources; median of {runs}"
    )
    print()
    print("| path                                  | items  | seconds | items/s   | vs raw |")
    print("|---------------------------------------|--------|---------|-----------|--------|")
    print(
        f"| raw chunks through the client (base)  | {raw[0][0]:>6} | {raw_s:>7.3f} | {raw[0][0] / raw_s:>9,.0f} |  1.00x |"
    )
    print(
        f"| engine: chunks → guard → events       | {events:>6} | {eng_s:>7.3f} | {events / eng_s:>9,.0f} | "
        f"{eng_s / raw_s:>5.2f}x |"
    )
    print()
    print("| after the last model chunk (instant grounding reply) | ms     |")
    print("|------------------------------------------------------|--------|")
    print(f"| last text event → end                                | {tail * 1000:>6.1f} |")
    print(f"| 'Checking citations…' → end (both checks + audit)    | {check * 1000:>6.1f} |")
    rate = (events / eng_s) / (raw[0][0] / raw_s)
    print(
        f"\nengine events/s ÷ raw chunks/s = {rate:.2f}; engine time = {eng_s / raw_s:.2f}x the raw iteration "
        f"({eng[0]['citations']} citations shown)"
    )


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--chars", type=int, default=50_000)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    asyncio.run(main(a.chars, a.runs))
    sys.exit(0)
