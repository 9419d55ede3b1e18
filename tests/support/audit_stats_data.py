"""Fixed audit statistics for the dashboard tests: two models over three days, retired sources cited
anyway and the answers with the most failed citations. Nothing comes from the wall clock."""

from __future__ import annotations

from hippo_tui.audit_stats import AuditStats, FailedAnswer, RetiredCitation, StatsBy, StatsGroup

MODEL_GROUPS = [
    StatsGroup(
        key="gpt-4o-mini",
        backed_share=0.82,
        answers=12,
        flagged_answers=4,
        citations=40,
        confirmed=34,
        missing=2,
        retired=4,
        grounded=28,
        ungrounded=3,
        unchecked=3,
        shown=28,
    ),
    StatsGroup(
        key="llama3.1:8b",
        backed_share=0.55,
        answers=5,
        flagged_answers=3,
        citations=16,
        confirmed=11,
        missing=3,
        retired=2,
        grounded=6,
        ungrounded=4,
        unchecked=1,
        shown=6,
    ),
    StatsGroup(key="offline", answers=2, citations=0),
]
DAY_GROUPS = [
    StatsGroup(
        key="2026-11-28",
        backed_share=0.61,
        answers=6,
        flagged_answers=3,
        citations=20,
        confirmed=15,
        missing=3,
        retired=2,
        grounded=11,
        ungrounded=3,
        unchecked=1,
        shown=11,
    ),
    StatsGroup(
        key="2026-11-29",
        backed_share=0.78,
        answers=9,
        flagged_answers=3,
        citations=26,
        confirmed=22,
        missing=1,
        retired=3,
        grounded=18,
        ungrounded=3,
        unchecked=1,
        shown=18,
    ),
    StatsGroup(
        key="2026-11-30",
        backed_share=0.7,
        answers=4,
        flagged_answers=1,
        citations=10,
        confirmed=8,
        missing=1,
        retired=1,
        grounded=5,
        ungrounded=1,
        unchecked=2,
        shown=5,
    ),
]
RETIRED = [
    RetiredCitation(
        source_id="5b1e7c2a-0000-4000-8000-000000000001",
        title="Cystitis guideline 2019",
        citations=4,
        answers=3,
        superseded_by="9f3d1a44-0000-4000-8000-000000000002",
        last_cited="2026-11-30T09:12:00+00:00",
    ),
    RetiredCitation(
        source_id="77aa0c19-0000-4000-8000-000000000003",
        title="Nitrofurantoin leaflet (old)",
        citations=2,
        answers=2,
        last_cited="2026-11-29T16:40:00+00:00",
    ),
]
MOST_FAILED = [
    FailedAnswer(
        audit_id=42,
        created="2026-11-30T09:12:00+00:00",
        model="llama3.1:8b",
        question="How should uncomplicated cystitis in adults be treated?",
        failed=4,
        citations=5,
    ),
    FailedAnswer(
        audit_id=17,
        created="2026-11-29T16:40:00+00:00",
        model="gpt-4o-mini",
        question="What is the first-line treatment for cystitis in pregnancy?",
        failed=2,
        citations=4,
    ),
]


def fixed_stats(by: StatsBy) -> AuditStats:
    groups = DAY_GROUPS if by == "day" else MODEL_GROUPS
    return AuditStats(by=by, groups=groups, retired_sources=RETIRED, most_failed=MOST_FAILED)


def empty_stats(by: StatsBy) -> AuditStats:
    return AuditStats(by=by, groups=[], retired_sources=[], most_failed=[])
