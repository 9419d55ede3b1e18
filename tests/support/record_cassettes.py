"""Record the demo cassettes (``hippo_tui/data/cassettes``) through the real record path.

    python -m tests.support.record_cassettes [OUT_DIR]

One cassette per path the engine can take. The mid-answer tool call is the offline backend itself; the
others come from the scripted SSE server playing a model that does the thing in question, with grounding
verdicts computed by the offline backend's lexical judge (so they are what a judge would say).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.store import DEMO_KB, Store
from hippo_tui.verification import offline_judge
from hippo_tui.verification.markers import claims_by_source
from tests.support import scenarios as sc
from tests.support.asking import ask_once
from tests.support.server import ScriptedServer

OUT = Path(__file__).resolve().parents[2] / "hippo_tui" / "data" / "cassettes"

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug
DIAG = "161d3bb9-a9a9-4bf2-b928-18b327f42fea"  # Hypertension: confirming the diagnosis
ATENOLOL = "5b0d2bf0-a79c-4ce5-b758-d85dcd04650b"  # retired: beta-blockers first-line
INVENTED = "7f3c2a10-5b1e-4d2a-9c4e-1a2b3c4d5e6f"  # no such source
CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"  # Uncomplicated cystitis in non-pregnant women

PACE = 0.025  # seconds between chunks: about 40 tokens/s, like the offline backend

AMLO_TEXT = (
    "For adults aged 55 or over, a calcium-channel blocker such as amlodipine is the usual first-line drug. "
    f"[{AMLO}] Amlodipine is commonly started at 5 mg once daily and may be increased to 10 mg once daily. [{AMLO}]"
)

# name -> (question, chat responses, grounding wait (None: answer at once), grounding_timeout)
SCRIPTED: dict[str, tuple[str, list[str], float | None, float]] = {
    "safety-trip": (
        "What dose of amlodipine should my patient start on?",
        [
            f"{AMLO_TEXT} For the patient with MRN 40392817, start at 5 mg and review the blood pressure in 4 weeks."
        ],
        None,
        12.0,
    ),
    "missing-id": (
        "What dose of amlodipine is usual?",
        [f"{AMLO_TEXT} It should be taken with food to reduce dizziness. [{INVENTED}]"],
        None,
        12.0,
    ),
    "retired-source": (
        "Which drug is first-line for hypertension?",
        [
            f"{AMLO_TEXT} Atenolol 50 mg once daily is a first-line drug for uncomplicated hypertension "
            f"in adults of any age. [{ATENOLOL}]"
        ],
        None,
        12.0,
    ),
    "ungrounded": (
        "How is hypertension diagnosed?",
        [
            "A clinic blood pressure of 140/90 mmHg or higher should be confirmed with ambulatory or home "
            f"monitoring before hypertension is diagnosed. [{DIAG}] Amlodipine should never be combined with "
            f"an ACE inhibitor. [{AMLO}]"
        ],
        None,
        12.0,
    ),
    # Check two's three outcomes in one answer: supported (verbatim), contradicted (another drug of the
    # class the excerpt names) and not established (a detail the excerpt does not give).
    "three-outcomes": (
        "How is hypertension diagnosed and treated, and how is cystitis treated?",
        [
            "A clinic blood pressure of 140/90 mmHg or higher should be confirmed with ambulatory or home "
            f"monitoring before hypertension is diagnosed. [{DIAG}] For adults aged 55 or over, nifedipine is "
            f"the usual first-line drug. [{AMLO}] For uncomplicated lower urinary tract infection in "
            "non-pregnant women, nitrofurantoin 100 mg modified-release twice daily for 3 days is a first-line "
            f"choice, taken with food. [{CYSTITIS}]"
        ],
        None,
        12.0,
    ),
    "grounding-timeout": (
        "What dose of amlodipine?",
        [AMLO_TEXT],
        3.0,
        1.0,
    ),
}

OFFLINE: dict[str, str] = {
    "tool-call-reset": "What is the blood pressure target for hypertension and how is a gout flare treated?",
}


async def _verdicts(store: Store, text: str) -> dict[str, bool]:
    claims = claims_by_source(text)
    found = await store.get_many(list(claims))
    items = [
        {"source_id": sid, "excerpt": lk.source.excerpt, "claims": claims[sid]}
        for sid, lk in found.items()
        if lk.status == "active" and lk.source is not None
    ]
    return {c["source_id"]: c["grounded"] for c in offline_judge.judge(items)["checks"]}


async def _record(settings: Settings, question: str, store: Store) -> list[Any]:
    engine = await Engine.create(settings, store=store)
    try:
        return await ask_once(engine, question)
    finally:
        await engine.close()


async def record_all(out: Path) -> dict[str, str]:
    results: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        home = Path(tmp)
        store = await Store.open(home / "hippo.db", seed=DEMO_KB)
        try:
            for name, question in OFFLINE.items():
                # One source in context, so the second part of the question sends the model searching.
                settings = Settings(
                    home=home, record=out / f"{name}.jsonl", offline_tokens_per_second=40, retrieval_k=1
                )
                events = await _record(settings, question, store)
                results[name] = events[-1].type
            for name, (question, texts, wait, timeout) in SCRIPTED.items():
                verdicts: dict[str, bool] = {}
                for text in texts:
                    verdicts.update(await _verdicts(store, text))
                grounding = sc.grounding(verdicts, **({"wait": wait} if wait else {}))
                server.play(
                    {
                        "chat": [sc.stream(sc.text_chunks(t), delay=PACE) for t in texts],
                        "grounding": [grounding],
                        "models": ["scripted"],
                    }
                )
                settings = Settings(
                    base_url=server.url,
                    model="scripted",
                    api_key="demo",
                    home=home,
                    record=out / f"{name}.jsonl",
                    grounding_timeout=timeout,
                )
                events = await _record(settings, question, store)
                end = events[-1]
                results[name] = json.dumps(
                    {
                        "type": end.type,
                        "outcome": getattr(end, "outcome", None),
                        "text": getattr(end, "text", ""),
                    }
                )[:160]
        finally:
            await store.close()
    return results


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, result in asyncio.run(record_all(out)).items():
        print(f"{name}: {result}")


if __name__ == "__main__":
    main(sys.argv)
