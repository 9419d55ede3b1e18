"""Verification: every cited source is checked twice, and every attempt is kept.

Check one: one ``get_many`` for all cited ids; confirmed (exists, active) or flagged (missing, retired).
Check two: ONE structured model call over the confirmed sources, each with its claims and excerpt, returning
``grounded`` per source, with a reply schema made for those ids and fallbacks for servers that refuse it
(``hippo_tui.verification.llm_judge``). The whole of check two, fallbacks included, runs under a hard time limit; when it
times out or fails, the confirmed citations stay visible as ``unchecked`` (an earlier partial reply still
counts for the sources it covers): a missing check is not evidence of a bad source. Every "grounded" verdict,
whichever judge gave it, then goes past the deterministic veto (``veto``: numbers, comparators, direction,
negation), which can turn it into "ungrounded" with its reason. Three outcomes (``conclude``): supported
(shown as verified), contradicted and not established (neither shown; the record keeps which, the element
that decided it and the reason).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from hippo_tui.backends.errors import is_connection, is_status, is_timeout, status_code
from hippo_tui.backends.local_client import ChatClient
from hippo_tui.events import Citation, Coverage, VerificationSummary
from hippo_tui.models import CitationAttempt, GroundingRecord, Lookup, Source
from hippo_tui.provenance import where
from hippo_tui.safe_text import sanitize
from hippo_tui.verification.coverage import measure
from hippo_tui.verification.llm_judge import GroundingRun, GroundingUnavailable, ask_judge
from hippo_tui.verification.markers import cited_ids, claims_by_source, finalize_markers
from hippo_tui.verification.offline_judge import Verdict, conflict, judge_source


class LookupStore(Protocol):
    async def get_many(self, ids: list[str]) -> Mapping[str, Lookup]: ...


@dataclass
class Verification:
    text: str  # the final text: passing markers as [n], the others removed
    attempts: list[CitationAttempt]  # every cited id, in order of first appearance
    citations: list[Citation]  # the shown ones, by number
    summary: VerificationSummary
    grounding: GroundingRecord | None = None  # every step tried, for the record; None: check two did not run
    # Which statements of ``text`` cite a shown citation (hippo_tui.verification.coverage): always of this text and these
    # citations, so it is derived here rather than passed in.
    coverage: Coverage = field(init=False)

    def __post_init__(self) -> None:
        self.coverage = measure(self.text, self.citations)


def why(e: BaseException) -> str:
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, GroundingUnavailable):
        return str(e)
    if isinstance(e, json.JSONDecodeError):
        return "the grounding reply was not the JSON asked for"
    if is_status(e):
        return f"the server answered {status_code(e)}"
    if is_timeout(e):  # a subclass of the connection error: the server was reached
        return "the server did not answer in time"
    if is_connection(e):
        return "the server could not be reached"
    return type(e).__name__


def _flag_reason(status: str, source: Source | None) -> str:
    """Why check one flagged a citation; a retired source says why it was retired and what replaces it."""
    if status == "missing":
        return "no source has this id"
    if status != "retired":
        return ""
    reason = "the source is retired"
    if source is not None and source.retired_reason:
        reason += f" ({sanitize(source.retired_reason)})"
    if source is not None and source.superseded_by:
        reason += f"; superseded by {source.superseded_by}"
    return reason


def _citation(a: CitationAttempt, source: Source | None) -> Citation:
    """A shown citation; ``where`` says where an ingested passage comes from ("Document › Section, p. 3")."""
    return Citation(
        id=a.source_id,
        number=a.number or 0,
        title=sanitize(a.title or ""),
        grounding="grounded" if a.check_two == "grounded" else "unchecked",
        where=where(source.title, source.provenance) if source is not None and source.provenance else None,
    )


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
        src = lk.source if lk is not None else None
        attempts[sid] = CitationAttempt(
            source_id=sid,
            claims=claims.get(sid, []),
            check_one="confirmed" if status == "active" else status,
            title=src.title if src is not None else None,
            reason=_flag_reason(status, src),
            where=where(src.title, src.provenance) if src is not None and src.provenance else None,
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


def _number_shown(
    attempts: list[CitationAttempt], lookups: Mapping[str, Lookup]
) -> tuple[dict[str, int], list[Citation]]:
    """Number the citations that are shown (confirmed, not ungrounded) in order of first use."""
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    for a in attempts:
        if a.check_one == "confirmed" and a.check_two != "ungrounded":
            a.shown, a.number = True, len(numbers) + 1
            numbers[a.source_id] = a.number
            citations.append(_citation(a, lookups[a.source_id].source))
    return numbers, citations


def conclude(a: CitationAttempt, grounded: bool | None, excerpt: str, note: str | None) -> None:
    """Check two's outcome for one confirmed citation, from the judge's verdict and the offline reading.

    A judge's "grounded" stands unless the claims conflict with the excerpt (a wrong drug, population,
    strength, number, direction or negation) or give a number it does not: then contradicted, or not
    established. A judge's "not grounded" is contradicted when the reading finds the conflict, else not
    established, with the element the reading found missing when it found one.
    """
    if grounded is None:
        a.check_two, a.verdict = "unchecked", None
        a.reason = note or "the grounding check gave no verdict for this source"
        return
    found = _first_conflict(a.claims, excerpt) if grounded else judge_source(a.claims, excerpt)
    if grounded and found is None:
        a.check_two, a.verdict, a.element, a.reason = "grounded", "supported", None, ""
        return
    outcome = found.outcome if found is not None and found.outcome != "supported" else "not_established"
    reason = (
        found.reason if found is not None and found.reason else "the judge found no support in the excerpt"
    )
    a.check_two, a.verdict, a.reason = "ungrounded", outcome, reason
    a.element = found.element if found is not None else None


def _first_conflict(claims: list[str], excerpt: str) -> Verdict | None:
    """The first claim's conflict with the excerpt: every claim citing a source must stand."""
    return next((v for v in (conflict(c, excerpt) for c in claims) if v is not None), None)


def _summary(attempts: list[CitationAttempt], *, note: str | None, seconds: float) -> VerificationSummary:
    confirmed = [a for a in attempts if a.check_one == "confirmed"]
    return VerificationSummary(
        attempted=len(attempts),
        confirmed=len(confirmed),
        missing=sum(a.check_one == "missing" for a in attempts),
        retired=sum(a.check_one == "retired" for a in attempts),
        grounded=sum(a.check_two == "grounded" for a in confirmed),
        ungrounded=sum(a.check_two == "ungrounded" for a in confirmed),
        contradicted=sum(a.verdict == "contradicted" for a in confirmed),
        not_established=sum(a.verdict == "not_established" for a in confirmed),
        unchecked=sum(a.check_two == "unchecked" for a in confirmed),
        note=note,
        seconds=seconds,
    )


async def verify(
    answer: str,
    *,
    store: LookupStore,
    client: ChatClient,
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
                await ask_judge(client, model, items, run, seconds=limit)
        except Exception as e:  # any failure of check two leaves the citations it gave no verdict unchecked
            note = f"Verification unavailable: {why(e)}"
            run.failed(why(e))
    verdicts = run.verdicts

    for a in confirmed:
        conclude(a, verdicts.get(a.source_id), lookups[a.source_id].source.excerpt, note)  # type: ignore[union-attr]

    numbers, citations = _number_shown(list(attempts.values()), lookups)
    all_attempts = list(attempts.values())
    return Verification(
        text=finalize_markers(answer, numbers),
        attempts=all_attempts,
        citations=citations,
        summary=_summary(all_attempts, note=note, seconds=round(clock() - start, 3)),
        grounding=run.record() if confirmed else None,
    )
