"""The audit statements that PostgreSQL writes differently: ``RETURNING id``, arrays, ``FILTER`` counts,
JSON read with ``->>``. Recording an answer's parts is the shared ``AuditMixin``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hippo_tui.store.audit import (
    _ANSWER_COLUMNS,
    _FAILED_FIELDS,
    _GROUP_FIELDS,
    _RETIRED_FIELDS,
    _answer,
    _now,
)
from hippo_tui.store.pg.base import PgBase
from hippo_tui.store.sources import provenance_from_row

if TYPE_CHECKING:
    from hippo_tui.audit_stats import AuditStats, StatsBy
    from hippo_tui.models import AnswerRecord

_KEYS: dict[str, str] = {"model": "a.model", "day": "substr(a.created, 1, 10)"}
_GROUPS = """
    WITH per AS (
        SELECT a.id, {key} AS key,
               count(c.id) AS citations,
               count(*) FILTER (WHERE c.check_one = 'confirmed') AS confirmed,
               count(*) FILTER (WHERE c.check_one = 'missing') AS missing,
               count(*) FILTER (WHERE c.check_one = 'retired') AS retired,
               count(*) FILTER (WHERE c.check_two = 'grounded') AS grounded,
               count(*) FILTER (WHERE c.check_one = 'confirmed' AND c.check_two = 'ungrounded') AS ungrounded,
               count(*) FILTER (WHERE c.check_one = 'confirmed' AND c.check_two = 'unchecked') AS unchecked,
               coalesce(sum(c.shown), 0) AS shown,
               coalesce((a.coverage::json ->> 'abstained')::boolean::int, 0) AS abstained,
               CASE WHEN (a.coverage::json ->> 'statements')::int > 0
                    THEN 1.0 * (a.coverage::json ->> 'backed')::int / (a.coverage::json ->> 'statements')::int
               END AS backed_share
        FROM answers a LEFT JOIN citations c ON c.answer_id = a.id
        GROUP BY a.id
    )
    SELECT key, count(*), count(*) FILTER (WHERE missing + retired + ungrounded > 0), sum(citations),
           sum(confirmed), sum(missing), sum(retired), sum(grounded), sum(ungrounded), sum(unchecked), sum(shown),
           sum(abstained), avg(backed_share)::float
    FROM per GROUP BY key ORDER BY key
"""
_RETIRED = """
    SELECT c.source_id, coalesce(max(s.title), max(c.title)), count(*), count(DISTINCT c.answer_id),
           max(s.superseded_by), max(a.created)
    FROM citations c JOIN answers a ON a.id = c.answer_id LEFT JOIN sources s ON s.id = c.source_id
    WHERE c.check_one = 'retired'
    GROUP BY c.source_id ORDER BY count(*) DESC, max(a.created) DESC LIMIT %s
"""
_FAILED = """
    SELECT a.id, a.created, a.model, a.question,
           count(*) FILTER (WHERE c.check_one <> 'confirmed' OR c.check_two = 'ungrounded') AS failed, count(c.id)
    FROM answers a JOIN citations c ON c.answer_id = a.id
    GROUP BY a.id HAVING count(*) FILTER (WHERE c.check_one <> 'confirmed' OR c.check_two = 'ungrounded') > 0
    ORDER BY failed DESC, a.id DESC LIMIT %s
"""
_CITATIONS = (
    "SELECT c.answer_id, c.source_id, c.claims, c.check_one, c.check_two, c.reason, c.shown, c.number, "
    "c.title, c.verdict, c.element, s.doc_key, s.section, s.page, s.doc_version, s.ingested "
    "FROM citations c LEFT JOIN sources s ON s.id = c.source_id WHERE c.answer_id = ANY(%s::bigint[]) ORDER BY c.id"
)


class PgAuditMixin(PgBase):
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
        """Record the question at once (outcome "in_flight"); the id comes from the server's sequence, so
        answers from several processes never share one."""
        with self._errors():
            rows = await self._conn.native(
                "INSERT INTO answers (created, question, model, backend, conversation_id, asked_by, client, "
                "writer, outcome) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'in_flight') RETURNING id",
                (_now(), question, model, backend, conversation_id, asked_by, client, self.writer),
            )
        return int(rows[0][0])

    async def mark_interrupted(self, client_prefix: str) -> int:
        """Answers left in flight by a process that is gone become errors that say so. Several servers
        share one database, so an answer another live server is writing is left alone: each process holds
        an advisory lock on its lease (``writer``) while it runs, and an answer is taken as orphaned only
        when its writer's lock can be taken (released again at this transaction's end)."""
        with self._errors():
            rows = await self._conn.native(
                "WITH gone AS (SELECT id FROM answers WHERE outcome = 'in_flight' AND client LIKE %s || '%%' "
                "AND (writer IS NULL OR (writer <> %s AND pg_try_advisory_xact_lock(hashtextextended(writer, 0))))) "
                "UPDATE answers a SET outcome = 'error', finished = %s, error = %s FROM gone WHERE a.id = gone.id "
                "RETURNING a.id",
                (client_prefix, self.writer, _now(), "interrupted: the server stopped while it was being written"),
            )
        return len(rows)

    async def _attach(self, answers: list[AnswerRecord]) -> list[AnswerRecord]:
        if not answers:
            return answers
        from hippo_tui.models import ResetRecord
        from hippo_tui.provenance import where

        by_id = {a.id: a for a in answers}
        ids = list(by_id)
        rows = await self._conn.native(
            "SELECT answer_id, reason, rule, withdrawn, withdrawn_chars, at FROM resets "
            "WHERE answer_id = ANY(%s::bigint[]) ORDER BY id",
            (ids,),
        )
        for aid, reason, rule, withdrawn, chars, at in rows:
            by_id[aid].resets.append(
                ResetRecord(reason=reason, rule=rule, withdrawn=withdrawn, withdrawn_chars=chars, at=at)
            )
        for aid, sid, claims, one, two, reason, shown, number, title, verdict, element, *prov in (
            await self._conn.native(_CITATIONS, (ids,))
        ):
            provenance = provenance_from_row(*prov)
            place = where(title, provenance) if title and provenance is not None else None
            by_id[aid].citations.append(
                _attempt(sid, claims, one, two, reason, shown, number, title, verdict, element, place)
            )
        return answers

    async def list_answers(self, limit: int | None = 50, *, asked_by: str | None = None) -> list[AnswerRecord]:
        where = "WHERE asked_by = %s " if asked_by is not None else ""
        params: tuple[Any, ...] = (asked_by,) if asked_by is not None else ()
        with self._errors():
            rows = await self._conn.native(
                f"SELECT {', '.join(_ANSWER_COLUMNS)} FROM answers {where}ORDER BY id DESC LIMIT %s",
                (*params, limit),
            )
            return await self._attach([_answer(r) for r in rows])

    async def audit_stats(self, by: StatsBy = "model", *, limit: int = 10) -> AuditStats:
        from hippo_tui.audit_stats import AuditStats, FailedAnswer, RetiredCitation, StatsGroup

        with self._errors():
            groups = await self._conn.native(_GROUPS.format(key=_KEYS[by]), ())
            retired = await self._conn.native(_RETIRED, (limit,))
            failed = await self._conn.native(_FAILED, (limit,))
        return AuditStats(
            by=by,
            groups=[StatsGroup(**dict(zip(_GROUP_FIELDS, r, strict=True))) for r in groups],
            retired_sources=[RetiredCitation(**dict(zip(_RETIRED_FIELDS, r, strict=True))) for r in retired],
            most_failed=[FailedAnswer(**dict(zip(_FAILED_FIELDS, r, strict=True))) for r in failed],
        )


def _attempt(sid: str, claims: str, one: str, two: str, reason: str, shown: int, number: int | None,
             title: str | None, verdict: str | None, element: str | None, where: str | None) -> Any:  # fmt: skip
    import json

    from hippo_tui.models import CitationAttempt

    return CitationAttempt.model_validate(dict(
        source_id=sid, claims=json.loads(claims), check_one=one, check_two=two, reason=reason, shown=bool(shown),
        number=number, title=title, verdict=verdict, element=element, where=where,
    ))  # fmt: skip
