"""Verification: every cited source is checked twice, and every attempt is kept.

Check one: one ``get_many`` for all cited ids; confirmed (exists, active) or flagged (missing, retired).
Check two: ONE structured model call over the confirmed sources, each with its claims and excerpt, returning
``grounded`` per source. A server that rejects ``json_schema`` gets one retry in ``json_object`` mode with the
schema in the prompt. The whole of check two, retries included, runs under a hard time limit; when it times
out or fails, the confirmed citations stay visible as ``unchecked``: a missing check is not evidence of a bad
source. Verdicts for unknown ids are ignored; contradictory duplicates count as no verdict.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import openai
from pydantic import BaseModel, ValidationError

from hippo_tui.citations import canonical_id, cited_ids, claims_by_source, finalize_markers
from hippo_tui.events import Citation, VerificationSummary
from hippo_tui.models import CheckTwo, CitationAttempt, Lookup
from hippo_tui.prompts import GROUNDING_SYSTEM, grounding_user_message
from hippo_tui.safe_text import sanitize


class GroundingCheck(BaseModel):
    source_id: str
    grounded: bool  # supports at least one claim; contradicting all of them is false


class Grounding(BaseModel):
    checks: list[GroundingCheck]


class LookupStore(Protocol):
    async def get_many(self, ids: list[str]) -> Mapping[str, Lookup]: ...


@dataclass
class Verification:
    text: str  # the final text: passing markers as [n], the others removed
    attempts: list[CitationAttempt]  # every cited id, in order of first appearance
    citations: list[Citation]  # the shown ones, by number
    summary: VerificationSummary


class GroundingUnavailable(Exception):
    """Check two gave no usable answer; the message says why (shown in the summary note)."""


def _parse_verdicts(checks: list[GroundingCheck], wanted: set[str]) -> dict[str, bool]:
    verdicts: dict[str, bool] = {}
    conflicting: set[str] = set()
    for check in checks:
        try:
            sid = canonical_id(check.source_id)
        except ValueError:
            continue
        if sid not in wanted:
            continue  # a verdict for a source we did not ask about means nothing
        if sid in verdicts and verdicts[sid] != check.grounded:
            conflicting.add(sid)
        verdicts.setdefault(sid, check.grounded)
    return {k: v for k, v in verdicts.items() if k not in conflicting}


def _schema_rejected(e: openai.APIStatusError) -> bool:
    # Auth, missing model and rate limits will fail the same way in json_object mode: do not retry those.
    return e.status_code not in (401, 403, 404, 429)


async def grounding_call(
    client: openai.AsyncOpenAI, model: str, items: list[dict[str, Any]]
) -> tuple[list[GroundingCheck], str]:
    """One grounding call (and its one json_object retry). Returns the checks and the raw reply."""
    messages: list[Any] = [
        {"role": "system", "content": GROUNDING_SYSTEM},
        {"role": "user", "content": grounding_user_message(items)},
    ]
    try:
        completion = await client.chat.completions.parse(
            model=model, messages=messages, response_format=Grounding
        )
        message = completion.choices[0].message if completion.choices else None
        if message is None or message.parsed is None:
            raise GroundingUnavailable("the grounding reply was empty")
        return message.parsed.checks, message.content or ""
    except openai.APIStatusError as e:
        if not _schema_rejected(e):
            raise
    # json_object mode: the schema goes in the prompt, and pydantic validates what comes back.
    messages[1] = {
        "role": "user",
        "content": grounding_user_message(items, schema=Grounding.model_json_schema()),
    }
    reply = await client.chat.completions.create(
        model=model, messages=messages, response_format={"type": "json_object"}
    )
    content = (reply.choices[0].message.content if reply.choices else None) or ""
    return Grounding.model_validate_json(content).checks, content


def _why(e: BaseException) -> str:
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, GroundingUnavailable):
        return str(e)
    if isinstance(e, ValidationError | json.JSONDecodeError):
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


def _number_shown(attempts: list[CitationAttempt]) -> tuple[dict[str, int], list[Citation]]:
    """Number the citations that are shown (confirmed, not ungrounded) in order of first use."""
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    for a in attempts:
        if a.check_one == "confirmed" and a.check_two != "ungrounded":
            a.shown, a.number = True, len(numbers) + 1
            numbers[a.source_id] = a.number
            grounding: Literal["grounded", "unchecked"] = (
                "grounded" if a.check_two == "grounded" else "unchecked"
            )
            citations.append(
                Citation(id=a.source_id, number=a.number, title=sanitize(a.title or ""), grounding=grounding)
            )
    return numbers, citations


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
    verdicts: dict[str, bool] = {}
    if confirmed:
        items = [
            {"source_id": a.source_id, "excerpt": lookups[a.source_id].source.excerpt, "claims": a.claims}  # type: ignore[union-attr]
            for a in confirmed
        ]
        try:
            async with asyncio.timeout(limit):
                checks, _reply = await grounding_call(client, model, items)
            verdicts = _parse_verdicts(checks, {a.source_id for a in confirmed})
        except Exception as e:  # any failure of check two leaves the confirmed citations unchecked
            note = f"Verification unavailable: {_why(e)}"

    for a in confirmed:
        verdict = verdicts.get(a.source_id)
        check: CheckTwo = "unchecked" if verdict is None else ("grounded" if verdict else "ungrounded")
        a.check_two = check
        if check == "ungrounded":
            a.reason = "the excerpt does not support the claims"
        elif check == "unchecked":
            a.reason = note or "the grounding check gave no verdict for this source"

    numbers, citations = _number_shown(list(attempts.values()))
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
    )
