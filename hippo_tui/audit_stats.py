"""What the audit record says over many answers: per model or per day, how citations fared; the sources most
often cited while retired; the answers with the most failed citations. ``hippo-tui audit stats`` prints it,
``AnswerEngine.audit_stats`` returns it to any front end.

A citation is *flagged* when check one found it missing or retired; it *failed* when it was flagged or check two
found it ungrounded (either way the reader was not shown it).
Percentages are of the citations attempted (0–100, one decimal), None when there were none; ``answers_flagged_pct``
is of the answers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, computed_field

StatsBy = Literal["day", "model"]
# Validators are built on first use: every command that opens the store imports this module.
FROZEN = ConfigDict(frozen=True, defer_build=True)


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


class StatsGroup(BaseModel):
    """One model's, or one day's (UTC, ``YYYY-MM-DD``), answers."""

    model_config = FROZEN

    key: str
    answers: int = 0
    flagged_answers: int = 0  # answers with at least one failed citation
    citations: int = 0
    confirmed: int = 0
    missing: int = 0
    retired: int = 0
    grounded: int = 0
    ungrounded: int = 0  # confirmed, then found ungrounded
    unchecked: int = 0  # confirmed, check two gave no verdict
    shown: int = 0
    abstained: int = 0  # answers that said the knowledge base does not cover the question
    backed_share: float | None = None  # mean share of statements backed, over answers with statements

    @computed_field  # type: ignore[prop-decorator]
    @property
    def backed_pct(self) -> float | None:
        return None if self.backed_share is None else round(100 * self.backed_share, 1)

    @property
    def flagged(self) -> int:
        """Check one failed: missing or retired (as ``CitationAttempt.flagged``)."""
        return self.missing + self.retired

    @property
    def failed(self) -> int:
        """Flagged, or confirmed and then ungrounded: not shown to the reader."""
        return self.flagged + self.ungrounded

    @computed_field  # type: ignore[prop-decorator]
    @property
    def flagged_pct(self) -> float | None:
        return _pct(self.flagged, self.citations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ungrounded_pct(self) -> float | None:
        return _pct(self.ungrounded, self.citations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def unchecked_pct(self) -> float | None:
        return _pct(self.unchecked, self.citations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def answers_flagged_pct(self) -> float | None:
        return _pct(self.flagged_answers, self.answers)


class RetiredCitation(BaseModel):
    """A retired source and how often answers cited it anyway."""

    model_config = FROZEN

    source_id: str
    title: str | None = None
    citations: int
    answers: int
    superseded_by: str | None = None
    last_cited: str  # ISO 8601 of the newest answer that cited it


class FailedAnswer(BaseModel):
    """An answer with failed citations: open it with ``audit show ID`` (or the audit panel)."""

    model_config = FROZEN

    audit_id: int
    created: str
    model: str
    question: str
    failed: int
    citations: int


class AuditStats(BaseModel):
    model_config = FROZEN

    by: StatsBy
    groups: list[StatsGroup]
    retired_sources: list[RetiredCitation]
    most_failed: list[FailedAnswer]
