"""Verification: every cited source is checked twice, and every attempt is kept.

Check one: one ``get_many`` for all cited ids; confirmed (exists, active) or flagged (missing, retired).
Check two: ONE structured model call over the confirmed sources, each with its claims and excerpt, returning
``grounded`` per source, with a reply schema made for those ids and fallbacks for servers that refuse it
(``hippo_tui.grounding``). The whole of check two, fallbacks included, runs under a hard time limit; when it
times out or fails, the confirmed citations stay visible as ``unchecked`` (an earlier partial reply still
counts for the sources it covers): a missing check is not evidence of a bad source.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import openai

from hippo_tui.citations import cited_ids, claims_by_source, finalize_markers
from hippo_tui.events import Citation, VerificationSummary
from hippo_tui.grounding import GroundingRun, GroundingUnavailable, ask_judge
from hippo_tui.models import CheckTwo, CitationAttempt, GroundingRecord, Lookup
from hippo_tui.safe_text import sanitize


class LookupStore(Protocol):
    async def get_many(self, ids: list[str]) -> Mapping[str, Lookup]: ...


@dataclass
class Verification:
    text: str  # the final text: passing markers as [n], the others removed
    attempts: list[CitationAttempt]  # every cited id, in order of first appearance
    citations: list[Citation]  # the shown ones, by number
    summary: VerificationSummary
    grounding_raw: str | None = None  # the judge's reply the verdicts came from
    grounding: GroundingRecord | None = None  # every step tried, for the record; None: check two did not run
    numbers: dict[str, int] = field(default_factory=dict)


def _why(e: BaseException) -> str:
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, GroundingUnavailable):
        return str(e)
    if isinstance(e, json.JSONDecodeError):
        return "the grounding reply was not the JSON asked for"
    if isinstance(e, openai.APIStatusError):
        return f"the server answered {e.status_code}"
    if isinstance(e, openai.APIConnectionError):
        return "the server could not be reached"
    return type(e).__name__


async def check_one(
    answer: str, store: LookupStore
) -> tuple[dict[str, CitationAttempt], Mapping[str, Lookup]]:
    """Every cited id in ``answer`` with its claims, looked up in ONE ``get_many``: confirmed or flagged."""
    order = cited_ids(answer)
    claims = claims_by_source(answer)
    lookups = await store.get_many(order) if order else {}
    attempts: dict[str, CitationAttempt] = {}
    for sid in order:
        lk = lookups.get(sid)
        status = lk.status if lk is not None else "missing"
        attempts[sid] = CitationAttempt(
            source_id=sid,
            claims=claims.get(sid, []),
            check_one="confirmed" if status == "active" else status,
            title=lk.source.title if lk is not None and lk.source is not None else None,
            reason={"missing": "no source has this id", "retired": "the source is retired"}.get(status, ""),
        )
    return attempts, lookups


async def unshown_attempts(answer: str, *, store: LookupStore, reason: str) -> list[CitationAttempt]:
    """The citation attempts of an answer nobody is shown (withdrawn, cancelled, failed): check one only.

    Check two is not run (there is nothing to show, and no reason to spend a model call): it is
    ``unchecked`` with ``reason``, and nothing is shown. A flagged id keeps its check-one reason too.
    """
    attempts, _ = await check_one(answer, store)
    for a in attempts.values():
        a.check_two, a.shown, a.number = "unchecked", False, None
        a.reason = f"{a.reason}; {reason}" if a.reason else reason
    return list(attempts.values())


async def verify(
    answer: str,
    *,
    store: LookupStore,
    client: openai.AsyncOpenAI,
    model: str,
    limit: float = 12.0,
    clock: Callable[[], float] = time.monotonic,
) -> Verification:
    """Both checks over ``answer`` (raw text with ``[id]`` markers). Store errors propagate."""
    start = clock()
    attempts, lookups = await check_one(answer, store)
    confirmed = [a for a in attempts.values() if a.check_one == "confirmed"]

    note: str | None = None
    run = GroundingRun(wanted=[a.source_id for a in confirmed])
    if confirmed:
        items = [
            {"source_id": a.source_id, "excerpt": lookups[a.source_id].source.excerpt, "claims": a.claims}  # type: ignore[union-attr]
            for a in confirmed
        ]
        try:
            async with asyncio.timeout(limit):
                await ask_judge(client, model, items, run)
        except Exception as e:  # any failure of check two leaves the citations it gave no verdict unchecked
            note = f"Verification unavailable: {_why(e)}"
            run.failed(_why(e))
    verdicts = run.verdicts

    for a in confirmed:
        verdict = verdicts.get(a.source_id)
        check: CheckTwo = "unchecked" if verdict is None else ("grounded" if verdict else "ungrounded")
        a.check_two = check
        if check == "ungrounded":
            a.reason = "the excerpt does not support the claims"
        elif check == "unchecked":
            a.reason = note or "the grounding check gave no verdict for this source"

    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    for a in attempts.values():
        if a.check_one == "confirmed" and a.check_two != "ungrounded":
            a.shown, a.number = True, len(numbers) + 1
            numbers[a.source_id] = a.number
            grounding = "grounded" if a.check_two == "grounded" else "unchecked"
            citations.append(
                Citation(id=a.source_id, number=a.number, title=sanitize(a.title or ""), grounding=grounding)
            )

    all_attempts = list(attempts.values())
    summary = VerificationSummary(
        attempted=len(all_attempts),
        confirmed=len(confirmed),
        missing=sum(a.check_one == "missing" for a in all_attempts),
        retired=sum(a.check_one == "retired" for a in all_attempts),
        grounded=sum(a.check_two == "grounded" for a in confirmed),
        ungrounded=sum(a.check_two == "ungrounded" for a in confirmed),
        unchecked=sum(a.check_two == "unchecked" for a in confirmed),
        note=note,
        seconds=round(clock() - start, 3),
    )
    return Verification(
        text=finalize_markers(answer, numbers),
        attempts=all_attempts,
        citations=citations,
        summary=summary,
        grounding_raw=run.raw,
        grounding=run.record() if confirmed else None,
        numbers=numbers,
    )
