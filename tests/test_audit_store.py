"""The audit half of the store: every answer, reset and citation attempt is kept, whatever the outcome."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.events import Coverage
from hippo_tui.models import CitationAttempt, GroundingRecord, GroundingTry, ResetRecord
from hippo_tui.store import Store, StoreError, UnknownAnswer
from tests.support.backends import BACKENDS, open_again, open_backend

SRC_A = "8920c0a1-c079-4734-86fe-6c9b0259cc70"
SRC_B = "e8562efb-5edc-44da-840a-c7806e0be0ae"
SRC_C = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with open_backend(request, tmp_path, seed=None) as s:
        yield s


def _attempts() -> list[CitationAttempt]:
    return [
        CitationAttempt(source_id=SRC_A, claims=["Nitrofurantoin for 3 days."], check_one="confirmed",
                        check_two="grounded", shown=True, number=1, title="Cystitis"),
        CitationAttempt(source_id=SRC_B, claims=["Seven days of trimethoprim.", "Culture everyone."],
                        check_one="retired", reason="superseded", title="Old cystitis"),
        CitationAttempt(source_id=SRC_C, claims=["Invented."], check_one="missing", reason="no such source"),
        CitationAttempt(source_id=SRC_A, claims=["Something else."], check_one="confirmed",
                        check_two="ungrounded", reason="excerpt says otherwise"),
        CitationAttempt(source_id=SRC_A, claims=["x"], check_one="confirmed", check_two="unchecked",
                        reason="grounding timed out", shown=True, number=2),
    ]  # fmt: skip


async def test_a_begun_answer_is_committed_at_once(store: Store, tmp_path: Path) -> None:
    answer_id = await store.begin_answer(question="q?", model="m", backend="offline", conversation_id="c1")
    # Another connection (another process, after a crash) already sees it.
    async with await open_again(store) as other:
        record = await other.get_answer(answer_id)
    assert record is not None
    assert (record.outcome, record.question, record.model, record.backend) == (
        "in_flight",
        "q?",
        "m",
        "offline",
    )
    assert record.conversation_id == "c1" and record.created.endswith("+00:00")


async def test_a_complete_answer_round_trips(store: Store) -> None:
    answer_id = await store.begin_answer(question="Cystitis?", model="m1", backend="openai")
    reset = ResetRecord(
        reason="safety", rule="dose-without-source", withdrawn="Take 9 g", withdrawn_chars=8, at=1.25
    )
    await store.record_reset(answer_id, reset)
    await store.record_reset(
        answer_id, ResetRecord(reason="tool_call", withdrawn="Let me", withdrawn_chars=6)
    )
    await store.record_citations(answer_id, _attempts())
    timings = {"ttft": 0.31, "total": 2.5, "verification": 0.4}
    await store.finish_answer(answer_id, raw_text="Take 9 g… Nitro [x]", final_text="Nitro [1]", outcome="complete",
                              timings=timings)  # fmt: skip
    record = await store.get_answer(answer_id)
    assert record is not None
    assert record.outcome == "complete" and record.error is None
    assert (record.raw_text, record.final_text, record.timings) == (
        "Take 9 g… Nitro [x]",
        "Nitro [1]",
        timings,
    )
    assert record.resets[0] == reset and record.resets[1].reason == "tool_call"
    assert record.citations == _attempts()


async def test_the_judges_reply_and_its_step_are_kept(store: Store) -> None:
    answer_id = await store.begin_answer(question="q?", model="m", backend="openai")
    echo = '{"sources": [{"source_id": "x"}]}'
    grounding = GroundingRecord(
        step="json_object+schema",
        raw=f'{{"{SRC_A}": true}}',
        tries=[
            GroundingTry(step="json_schema", outcome="HTTP 500: Input should be 'text' or 'json_object'"),
            GroundingTry(step="json_object+schema", outcome="answered", raw=f'{{"{SRC_A}": true}}'),
        ],
    )
    await store.record_citations(answer_id, _attempts()[:1], grounding=grounding)
    await store.record_citations(answer_id, _attempts()[:1])  # recording again without it keeps it
    assert (await store.get_answer(answer_id)).grounding == grounding
    other = await store.begin_answer(question="q2?", model="m", backend="openai")
    tries = [GroundingTry(step="json_object", outcome="no verdicts (JSON of another shape)", raw=echo)]
    await store.record_citations(other, [], grounding=GroundingRecord(tries=tries))
    assert (await store.get_answer(other)).grounding.tries[0].raw == echo
    assert (await store.get_answer(other)).grounding.step is None


async def test_answers_recorded_before_the_grounding_column_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.core as core

    path = tmp_path / "old.db"
    with monkeypatch.context() as m:  # a database made by the release before the column existed
        m.setattr(core, "MIGRATIONS", core.MIGRATIONS[:1])
        m.setattr(core, "SCHEMA_VERSION", 1)
        # No seed: today's sources rows carry columns a version-1 database does not have yet.
        async with await Store.open(path, seed=None) as s:
            old = await s.begin_answer(question="before", model="m", backend="b")
            a = _attempts()[0]  # as that release wrote it: the version-1 columns only
            await s._db.execute(
                "INSERT INTO citations (answer_id, source_id, claims, check_one, check_two, reason, shown) "
                "VALUES (?, ?, '[]', ?, ?, ?, ?)",
                (old, a.source_id, a.check_one, a.check_two, a.reason, int(a.shown)),
            )
    async with await Store.open(path) as s:
        record = await s.get_answer(old)
        assert record.question == "before" and record.grounding is None and len(record.citations) == 1


async def test_recording_citations_again_replaces_them(store: Store) -> None:
    answer_id = await store.begin_answer(question="q", model="m", backend="b")
    await store.record_citations(answer_id, _attempts())
    await store.record_citations(answer_id, _attempts()[:1])
    assert (await store.get_answer(answer_id)).citations == _attempts()[:1]


@pytest.mark.parametrize("outcome", ["cancelled", "withdrawn", "error"])
async def test_unfinished_answers_are_recorded_too(store: Store, outcome: str) -> None:
    answer_id = await store.begin_answer(question="q", model="m", backend="b")
    error = "server said 500" if outcome == "error" else None
    await store.finish_answer(
        answer_id, raw_text="partial", final_text="", outcome=outcome, timings={}, error=error
    )
    record = await store.get_answer(answer_id)
    assert (record.outcome, record.raw_text, record.error) == (outcome, "partial", error)


async def test_bad_outcome_and_unknown_answer(store: Store) -> None:
    answer_id = await store.begin_answer(question="q", model="m", backend="b")
    with pytest.raises(ValueError, match="outcome"):
        await store.finish_answer(answer_id, raw_text="", final_text="", outcome="in_flight", timings={})
    with pytest.raises(UnknownAnswer):
        await store.finish_answer(999, raw_text="", final_text="", outcome="complete", timings={})
    with pytest.raises(UnknownAnswer):
        await store.record_citations(999, _attempts())
    with pytest.raises(UnknownAnswer):
        await store.record_reset(999, ResetRecord(reason="safety", withdrawn="", withdrawn_chars=0))
    assert await store.get_answer(999) is None
    assert (await store.get_answer(answer_id)).outcome == "in_flight"


async def test_list_answers_newest_first(store: Store) -> None:
    ids = [await store.begin_answer(question=f"q{i}", model="m", backend="b") for i in range(5)]
    await store.record_citations(ids[1], _attempts()[:2])
    listed = await store.list_answers(limit=3)
    assert [a.id for a in listed] == ids[::-1][:3]
    assert ids == sorted(ids)
    everything = await store.list_answers(limit=None)
    assert [a.id for a in everything] == ids[::-1]
    assert len(everything[3].citations) == 2 and everything[0].citations == []


async def test_audit_stats_per_model(store: Store) -> None:
    a = await store.begin_answer(question="q", model="alpha", backend="openai")
    await store.record_citations(a, _attempts())
    b = await store.begin_answer(question="q", model="alpha", backend="openai")
    await store.record_citations(b, _attempts()[:1])
    await store.begin_answer(question="q", model="beta", backend="offline")
    report = await store.audit_stats()
    stats = {g.key: g.model_dump() for g in report.groups}
    assert stats["alpha"] == {
        "key": "alpha", "answers": 2, "flagged_answers": 1, "citations": 6, "confirmed": 4, "missing": 1,
        "retired": 1, "grounded": 2, "ungrounded": 1, "unchecked": 1, "shown": 3, "flagged_pct": 33.3,
        "ungrounded_pct": 16.7, "unchecked_pct": 16.7, "answers_flagged_pct": 50.0, "abstained": 0, "backed_share": None,
        "backed_pct": None,
    }  # fmt: skip
    assert stats["beta"]["answers"] == 1 and stats["beta"]["citations"] == 0
    assert [a.audit_id for a in report.most_failed] == [a]
    assert len((await store.audit_stats("day")).groups) == 1
    # The stats' count and the attempt's own property are one definition.
    alpha = next(g for g in report.groups if g.key == "alpha")
    assert alpha.flagged == sum(c.flagged for c in [*_attempts(), *_attempts()[:1]])
    assert (await store.kb_stats())["answers"] == 3


@pytest.mark.parametrize(
    ("check_one", "check_two", "flagged"),
    [
        ("missing", "unchecked", True),
        ("retired", "unchecked", True),
        ("confirmed", "ungrounded", False),  # check two's verdict: counted as ungrounded, not flagged
        ("confirmed", "grounded", False),
    ],
)
def test_a_citation_is_flagged_when_check_one_failed(check_one, check_two, flagged) -> None:
    attempt = CitationAttempt(source_id="x", claims=[], check_one=check_one, check_two=check_two)
    assert attempt.flagged is flagged


async def _finished(store: Store, model: str, coverage: Coverage | None, outcome: str = "complete") -> int:
    answer_id = await store.begin_answer(question="q", model=model, backend="b")
    await store.finish_answer(
        answer_id, raw_text="r", final_text="A. B.", outcome=outcome, timings={}, coverage=coverage
    )
    return answer_id


async def test_coverage_is_kept_with_the_final_text(store: Store) -> None:
    kept = Coverage(statements=2, backed=1, unbacked=[(3, 5)])
    answer_id = await _finished(store, "m", kept)
    assert (await store.get_answer(answer_id)).coverage == kept
    assert (await store.get_answer(await _finished(store, "m", None, "cancelled"))).coverage is None


async def test_audit_stats_mean_backed_share_is_per_answer(store: Store) -> None:
    a = await _finished(store, "alpha", Coverage(statements=4, backed=4))
    await store.record_citations(a, _attempts())  # three citation rows must not weigh this answer thrice
    await _finished(store, "alpha", Coverage(statements=4, backed=2, unbacked=[(0, 1), (2, 3)]))
    await _finished(store, "alpha", Coverage(abstained=True))  # no statements: not in the mean
    await _finished(store, "alpha", None, "withdrawn")
    await _finished(store, "beta", None, "cancelled")
    stats = {g.key: g.model_dump() for g in (await store.audit_stats()).groups}
    assert stats["alpha"]["backed_share"] == pytest.approx(0.75)
    assert (stats["alpha"]["abstained"], stats["alpha"]["answers"]) == (1, 4)
    assert (stats["beta"]["backed_share"], stats["beta"]["abstained"]) == (None, 0)


# --- questions arriving together -------------------------------------------------------------------------


async def test_questions_begun_together_each_get_their_own_committed_row(tmp_path: Path):
    path = tmp_path / "hippo.db"
    async with await Store.open(path, seed=None) as store:
        asked = [f"question {i % 7}" for i in range(60)]  # some alike in every value: still one row each
        who = [("ann", "server:tui") if i % 2 else (None, None) for i in range(60)]
        ids = await asyncio.gather(*(
            store.begin_answer(question=q, model="m", backend="b", asked_by=a, client=c)
            for q, (a, c) in zip(asked, who, strict=True)
        ))  # fmt: skip
        assert len(set(ids)) == 60
    async with await Store.open(path) as again:  # committed: another connection sees every one
        for answer_id, question, (asked_by, client) in zip(ids, asked, who, strict=True):
            record = await again.get_answer(answer_id)
            assert record is not None and record.outcome == "in_flight"
            assert (record.question, record.asked_by, record.client) == (question, asked_by, client)


async def test_questions_begun_together_on_a_locked_store_all_fail_plainly_and_the_next_one_goes_in(
    tmp_path: Path,
):
    path = tmp_path / "hippo.db"
    async with await Store.open(path, seed=None, busy_timeout=0.3) as store:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            results = await asyncio.gather(
                *(store.begin_answer(question=f"q{i}", model="m", backend="b") for i in range(5)),
                return_exceptions=True,
            )
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert all(isinstance(r, StoreError) and "locked by another process" in str(r) for r in results)
        answer_id = await store.begin_answer(question="after", model="m", backend="b")
        assert [a.question for a in await store.list_answers()] == ["after"]
        assert (await store.get_answer(answer_id)).outcome == "in_flight"
