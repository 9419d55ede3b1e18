"""The audit half of the Store: every answer, every reset, every citation attempt, shown or not."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from hippo_tui.store.base import StoreBase
from hippo_tui.store.errors import UnknownAnswer
from hippo_tui.store.sources import provenance_from_row

# The records (pydantic models) are imported where a method builds one: a command that only searches
# the knowledge base opens the same Store and never loads them.
if TYPE_CHECKING:
    from hippo_tui.audit_stats import AuditStats, StatsBy
    from hippo_tui.events import Coverage
    from hippo_tui.models import AnswerRecord, CitationAttempt, GroundingRecord, ResetRecord

FINAL_OUTCOMES = ("complete", "cancelled", "withdrawn", "error")
# audit_stats: what a group is keyed on (the day is the UTC date of ``created``), and its SELECTs' columns.
_STATS_KEYS: dict[StatsBy, str] = {"model": "a.model", "day": "substr(a.created, 1, 10)"}
_GROUP_FIELDS = ("key", "answers", "flagged_answers", "citations", "confirmed", "missing", "retired", "grounded",
                 "ungrounded", "unchecked", "shown", "abstained", "backed_share")  # fmt: skip
_RETIRED_FIELDS = ("source_id", "title", "citations", "answers", "superseded_by", "last_cited")
_FAILED_FIELDS = ("audit_id", "created", "model", "question", "failed", "citations")
_ANSWER_COLUMNS = (
    "id",
    "created",
    "question",
    "model",
    "backend",
    "outcome",
    "raw_text",
    "final_text",
    "error",
    "timings",
    "conversation_id",
    "grounding",
    "coverage",
    "asked_by",
    "client",
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _answer(row: Sequence[Any]) -> AnswerRecord:
    from hippo_tui.models import AnswerRecord

    data = dict(zip(_ANSWER_COLUMNS, row, strict=True))
    data["timings"] = json.loads(data["timings"] or "{}")
    data["grounding"] = json.loads(data["grounding"]) if data["grounding"] else None
    data["coverage"] = json.loads(data["coverage"]) if data["coverage"] else None
    return AnswerRecord.model_validate(data)


class AuditMixin(StoreBase):
    async def begin_answer(
        self,
        *,
        question: str,
        model: str,
        backend: str,
        conversation_id: str | None = None,
        asked_by: str | None = None,
        client: str | None = None,
    ) -> int:
        """Record the question at once (outcome "in_flight"), so a crash loses at most this answer's ending.
        Committed before it returns; questions arriving together are written in one statement."""
        # Who asked is written only when known: an answer without it reads as NULL either way (and a store
        # built before schema 6, opened by an older migration step, has no such columns).
        who = {k: v for k, v in (("asked_by", asked_by), ("client", client)) if v is not None}
        columns = ("created", "question", "model", "backend", "conversation_id", "outcome", *who)
        row = (_now(), question, model, backend, conversation_id, "in_flight", *who.values())
        return await self._insert_grouped("answers", columns, row)

    async def _require_answer(self, answer_id: int) -> None:
        cur = await self._db.execute("SELECT 1 FROM answers WHERE id = ?", (answer_id,))
        if await cur.fetchone() is None:
            raise UnknownAnswer(f"{self.path}: no answer with id {answer_id} in the audit record")

    async def record_reset(self, answer_id: int, reset: ResetRecord) -> None:
        async with self._transaction() as db:
            await self._require_answer(answer_id)
            await db.execute(
                "INSERT INTO resets (answer_id, reason, rule, withdrawn, withdrawn_chars, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (answer_id, reset.reason, reset.rule, reset.withdrawn, reset.withdrawn_chars, reset.at),
            )

    async def record_citations(
        self, answer_id: int, attempts: list[CitationAttempt], *, grounding: GroundingRecord | None = None
    ) -> None:
        """Store the answer's citation attempts, replacing any recorded before (so a caller can record
        after check one and again after check two), and how check two went when it ran."""
        rows = [
            (
                answer_id,
                a.source_id,
                json.dumps(a.claims, ensure_ascii=False),
                a.check_one,
                a.check_two,
                a.reason,
                int(a.shown),
                a.number,
                a.title,
                a.verdict,
                a.element,
            )
            for a in attempts
        ]
        async with self._transaction() as db:
            await self._require_answer(answer_id)
            await db.execute("DELETE FROM citations WHERE answer_id = ?", (answer_id,))
            if grounding is not None:
                await db.execute(
                    "UPDATE answers SET grounding = ? WHERE id = ?", (grounding.model_dump_json(), answer_id)
                )
            await db.executemany(
                "INSERT INTO citations (answer_id, source_id, claims, check_one, check_two, reason, shown, "
                "number, title, verdict, element) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    async def finish_answer(
        self,
        answer_id: int,
        *,
        raw_text: str,
        final_text: str,
        outcome: str,
        timings: dict[str, float],
        error: str | None = None,
        coverage: Coverage | None = None,
    ) -> None:
        """The answer's ending; ``coverage`` (of ``final_text``) is written with the text its spans index."""
        if outcome not in FINAL_OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(FINAL_OUTCOMES)}, not {outcome!r}")
        async with self._transaction() as db:
            await self._require_answer(answer_id)
            await db.execute(
                "UPDATE answers SET raw_text = ?, final_text = ?, outcome = ?, timings = ?, error = ?, "
                "finished = ?, coverage = ? WHERE id = ?",
                (
                    raw_text,
                    final_text,
                    outcome,
                    json.dumps(timings),
                    error,
                    _now(),
                    coverage.model_dump_json() if coverage is not None else None,
                    answer_id,
                ),
            )

    async def mark_interrupted(self, client_prefix: str) -> int:
        """Answers a dead process left in flight (their client starting with ``client_prefix``) become
        errors that say so: never lost, never shown as still being written. Returns how many."""
        async with self._transaction() as db:
            cur = await db.execute(
                "UPDATE answers SET outcome = 'error', finished = ?, error = ? "
                "WHERE outcome = 'in_flight' AND client LIKE ? || '%'",
                (_now(), "interrupted: the server stopped while it was being written", client_prefix),
            )
            return cur.rowcount

    async def _attach(self, answers: list[AnswerRecord]) -> list[AnswerRecord]:
        """Load the resets and citations of these answers: two queries, whatever their number."""
        if not answers:
            return answers
        from hippo_tui.models import CitationAttempt, ResetRecord
        from hippo_tui.provenance import where

        by_id = {a.id: a for a in answers}
        ids = json.dumps(list(by_id))
        cur = await self._db.execute(
            "SELECT answer_id, reason, rule, withdrawn, withdrawn_chars, at FROM resets "
            "WHERE answer_id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (ids,),
        )
        for aid, reason, rule, withdrawn, chars, at in await cur.fetchall():
            by_id[aid].resets.append(
                ResetRecord(reason=reason, rule=rule, withdrawn=withdrawn, withdrawn_chars=chars, at=at)
            )
        # The cited source's provenance (its page, for a PDF) says where the passage comes from; the title
        # is the one recorded with the answer.
        cur = await self._db.execute(
            "SELECT c.answer_id, c.source_id, c.claims, c.check_one, c.check_two, c.reason, c.shown, c.number, "
            "c.title, c.verdict, c.element, s.doc_key, s.section, s.page, s.doc_version, s.ingested "
            "FROM citations c LEFT JOIN sources s ON s.id = c.source_id "
            "WHERE c.answer_id IN (SELECT value FROM json_each(?)) ORDER BY c.id",
            (ids,),
        )
        for aid, sid, claims, one, two, reason, shown, number, title, verdict, element, *prov in await cur.fetchall():
            provenance = provenance_from_row(*prov)
            by_id[aid].citations.append(
                CitationAttempt(
                    source_id=sid,
                    claims=json.loads(claims),
                    check_one=one,
                    check_two=two,
                    reason=reason,
                    shown=bool(shown),
                    number=number,
                    title=title,
                    verdict=verdict,
                    element=element,
                    where=where(title, provenance) if title and provenance is not None else None,
                )
            )
        return answers

    async def list_answers(self, limit: int | None = 50, *, asked_by: str | None = None) -> list[AnswerRecord]:
        """Newest first, with their resets and citation attempts; only ``asked_by``'s when given."""
        where = "WHERE asked_by = ? " if asked_by is not None else ""
        params: tuple[Any, ...] = (asked_by,) if asked_by is not None else ()
        with self._errors():
            cur = await self._db.execute(
                f"SELECT {', '.join(_ANSWER_COLUMNS)} FROM answers {where}ORDER BY id DESC LIMIT ?",
                (*params, -1 if limit is None else limit),
            )
            return await self._attach([_answer(r) for r in await cur.fetchall()])

    async def get_answer(self, answer_id: int) -> AnswerRecord | None:
        with self._errors():
            cur = await self._db.execute(
                f"SELECT {', '.join(_ANSWER_COLUMNS)} FROM answers WHERE id = ?", (answer_id,)
            )
            row = await cur.fetchone()
            return (await self._attach([_answer(row)]))[0] if row else None

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        """Per model or per day (UTC): answers and how their citations fared; the ``limit`` sources most often
        cited while retired, and the ``limit`` answers with the most failed citations."""
        from hippo_tui.audit_stats import AuditStats, FailedAnswer, RetiredCitation, StatsGroup

        key = _STATS_KEYS[by]  # one of two fixed expressions, never user text
        groups_sql = f"""
            WITH per AS (
                SELECT a.id, {key} AS key,
                       count(c.id) AS citations,
                       coalesce(sum(c.check_one = 'confirmed'), 0) AS confirmed,
                       coalesce(sum(c.check_one = 'missing'), 0) AS missing,
                       coalesce(sum(c.check_one = 'retired'), 0) AS retired,
                       coalesce(sum(c.check_two = 'grounded'), 0) AS grounded,
                       coalesce(sum(c.check_one = 'confirmed' AND c.check_two = 'ungrounded'), 0) AS ungrounded,
                       coalesce(sum(c.check_one = 'confirmed' AND c.check_two = 'unchecked'), 0) AS unchecked,
                       coalesce(sum(c.shown), 0) AS shown,
                       coalesce(json_extract(a.coverage, '$.abstained'), 0) AS abstained,
                       -- per answer, not per citation row; NULL when it has no statements (or no coverage)
                       CASE WHEN json_extract(a.coverage, '$.statements') > 0
                            THEN 1.0 * json_extract(a.coverage, '$.backed') / json_extract(a.coverage, '$.statements')
                       END AS backed_share
                FROM answers a LEFT JOIN citations c ON c.answer_id = a.id
                GROUP BY a.id
            )
            SELECT key, count(*), sum(missing + retired + ungrounded > 0), sum(citations), sum(confirmed),
                   sum(missing), sum(retired), sum(grounded), sum(ungrounded), sum(unchecked), sum(shown),
                   sum(abstained), avg(backed_share)
            FROM per GROUP BY key ORDER BY key
        """
        retired_sql = """
            SELECT c.source_id, coalesce(s.title, max(c.title)), count(*), count(DISTINCT c.answer_id),
                   s.superseded_by, max(a.created)
            FROM citations c JOIN answers a ON a.id = c.answer_id LEFT JOIN sources s ON s.id = c.source_id
            WHERE c.check_one = 'retired'
            GROUP BY c.source_id ORDER BY count(*) DESC, max(a.created) DESC LIMIT ?
        """
        failed_sql = """
            SELECT a.id, a.created, a.model, a.question,
                   sum(c.check_one != 'confirmed' OR c.check_two = 'ungrounded') AS failed, count(c.id)
            FROM answers a JOIN citations c ON c.answer_id = a.id
            GROUP BY a.id HAVING failed > 0 ORDER BY failed DESC, a.id DESC LIMIT ?
        """
        with self._errors():
            groups = await (await self._db.execute(groups_sql)).fetchall()
            retired = await (await self._db.execute(retired_sql, (limit,))).fetchall()
            failed = await (await self._db.execute(failed_sql, (limit,))).fetchall()
        return AuditStats(
            by=by,
            groups=[StatsGroup(**dict(zip(_GROUP_FIELDS, r, strict=True))) for r in groups],
            retired_sources=[RetiredCitation(**dict(zip(_RETIRED_FIELDS, r, strict=True))) for r in retired],
            most_failed=[FailedAnswer(**dict(zip(_FAILED_FIELDS, r, strict=True))) for r in failed],
        )
