"""The audit panel: every citation attempt of one answer with both checks and why, and every reset.

Nothing is hidden here: flagged (missing, retired) and ungrounded citations that the reader never saw are
listed next to the shown ones. Each attempt is a block of wrapped lines rather than a table row, so it
stays readable at 40 columns; status is always a ✓/✗ mark plus a word, never colour alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from hippo_tui.safe_text import clip, sanitize
from hippo_tui.ui.screens._base import FAIL, OK, UNKNOWN, PanelScreen

if TYPE_CHECKING:  # the records arrive built; the panel does not need the models loaded before it opens
    from hippo_tui.models import AnswerRecord, CitationAttempt, ResetRecord

CLAIMS_SHOWN = 3  # claims listed per attempt; the rest are counted
CLAIM_CHARS = 160
WITHDRAWN_PREVIEW_CHARS = 120


def short_id(source_id: str) -> str:
    """A UUID's first 8 characters, enough to tell sources apart on screen."""
    return source_id if len(source_id) <= 9 else f"{source_id[:8]}…"


def check_one_label(attempt: CitationAttempt) -> str:
    return {
        "confirmed": f"{OK} confirmed",
        "missing": f"{FAIL} missing",
        "retired": f"{FAIL} retired",
    }[attempt.check_one]


def check_two_label(attempt: CitationAttempt) -> str:
    if attempt.check_one != "confirmed":
        return "– not run (check 1 failed)"
    if said := attempt.failed_check_two:
        return f"{FAIL} {said}" + (f" ({attempt.element})" if attempt.element else "")
    return {
        "grounded": f"{OK} supported" if attempt.verdict == "supported" else f"{OK} grounded",
        "ungrounded": f"{FAIL} ungrounded",
        "unchecked": f"{UNKNOWN} unchecked",
    }[attempt.check_two]


def shown_label(attempt: CitationAttempt) -> str:
    if attempt.shown:
        number = f" as [{attempt.number}]" if attempt.number is not None else ""
        return f"{OK} shown{number}"
    return f"{FAIL} hidden"


def attempt_content(attempt: CitationAttempt) -> Content:
    """One attempt as wrapped lines: shown/hidden, where it comes from (title, and page for a PDF), id, both
    checks, reason, claims."""
    named = attempt.where or attempt.title
    title = clip(named, 200, flat=True) if named else "(no title: not in the knowledge base)"
    parts: list[str | tuple[str, str]] = [
        (shown_label(attempt), "bold"),
        "  ",
        (title, "bold"),
        "\n",
        f"source {short_id(sanitize(attempt.source_id))}\n",
        f"check 1: {check_one_label(attempt)}\n",
        f"check 2: {check_two_label(attempt)}",
    ]
    if attempt.reason:
        parts += ["\n", ("reason: ", "bold"), clip(attempt.reason, 300, flat=True)]
    if attempt.claims:
        parts += ["\n", (f"claims ({len(attempt.claims)}):", "bold")]
        for claim in attempt.claims[:CLAIMS_SHOWN]:
            parts += ["\n", f"  “{clip(claim, CLAIM_CHARS, flat=True)}”"]
        if len(attempt.claims) > CLAIMS_SHOWN:
            parts += ["\n", f"  … and {len(attempt.claims) - CLAIMS_SHOWN} more"]
    return Content.assemble(*parts)


_RESET_REASONS = {"safety": "safety check", "tool_call": "looked something up"}


def reset_content(index: int, reset: ResetRecord) -> Content:
    why = _RESET_REASONS.get(reset.reason) or clip(reset.reason, 40, flat=True)
    rule = f" (rule: {clip(reset.rule, 60, flat=True)})" if reset.rule else ""
    noun = "character" if reset.withdrawn_chars == 1 else "characters"
    parts: list[str | tuple[str, str]] = [
        (f"{index}. {why}{rule}", "bold"),
        f"\nat {reset.at:.2f} s: {reset.withdrawn_chars} {noun} withdrawn",
    ]
    if reset.withdrawn.strip():
        parts.append(f"\nwithdrawn: “{clip(reset.withdrawn, WITHDRAWN_PREVIEW_CHARS, flat=True)}”")
    return Content.assemble(*parts)


def asked_text(created: str) -> str:
    """``2026-11-30T03:48:30.141+00:00`` as ``2026-11-30 03:48:30 UTC``; anything else as it is."""
    try:
        when = datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return clip(created, 40, flat=True)
    if when.utcoffset() is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if when.tzinfo else "")


def _split(attempts: list[CitationAttempt]) -> str:
    """ "(1 contradicted, 1 not established)" of the ungrounded, when the record says which."""
    contradicted = sum(a.verdict == "contradicted" for a in attempts)
    unestablished = sum(a.verdict == "not_established" for a in attempts)
    parts = [f"{n} {said}" for n, said in ((contradicted, "contradicted"), (unestablished, "not established")) if n]
    return f" ({', '.join(parts)})" if parts else ""


def summary_content(record: AnswerRecord) -> Content:
    attempts = record.citations
    shown = sum(a.shown for a in attempts)
    flagged = sum(a.flagged for a in attempts)
    ungrounded = sum(a.check_one == "confirmed" and a.check_two == "ungrounded" for a in attempts)
    unchecked = sum(a.check_one == "confirmed" and a.check_two == "unchecked" for a in attempts)
    parts: list[str | tuple[str, str]] = [
        ("Question: ", "bold"),
        clip(record.question, 300, flat=True),
        "\n",
        ("Outcome: ", "bold"),
        f"{record.outcome} · {sanitize(record.backend)} · {sanitize(record.model)}",
        "\n",
        ("Asked: ", "bold"),
        asked_text(record.created),
        "\n",
        ("Citations: ", "bold"),
        f"{len(attempts)} attempted · {shown} shown · {flagged} flagged · "
        f"{ungrounded} ungrounded{_split(attempts)} · {unchecked} unchecked",
        "\n",
        ("Resets: ", "bold"),
        f"{len(record.resets)}",
    ]
    if record.coverage is not None:
        parts += ["\n", ("Coverage: ", "bold"), record.coverage.line]
    if record.timings:
        timings = " · ".join(f"{clip(k, 20, flat=True)} {v:.2f} s" for k, v in record.timings.items())
        parts += ["\n", ("Timings: ", "bold"), timings]
    if record.error:
        parts += ["\n", ("Error: ", "bold"), clip(record.error, 300, flat=True)]
    return Content.assemble(*parts)


class AuditScreen(PanelScreen[None]):
    """The audit record of one answer (``store.get_answer(audit_id)``), or a note when there is none."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    DEFAULT_CSS = """
    AuditScreen {
        & #audit-body { height: 1fr; }
        & .audit-section { text-style: bold; margin-top: 1; height: auto; }
        & .attempt, & .reset { height: auto; margin-top: 1; padding-left: 1; border-left: wide $success; }
        & .attempt.-hidden, & .reset { border-left: wide $error; }
        & .attempt.-unchecked { border-left: wide $warning; }
    }
    """

    def __init__(self, record: AnswerRecord | None) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        record = self.record
        with Vertical(id="panel") as panel:
            panel.border_title = f"Audit: answer {record.id}" if record else "Audit"
            panel.border_subtitle = "Esc closes"
            with VerticalScroll(id="audit-body"):
                if record is None:
                    yield Static("No answer to audit yet: ask a question first.", id="audit-empty")
                else:
                    yield from self._compose_record(record)
        yield Footer(compact=True)

    def _compose_record(self, record: AnswerRecord) -> ComposeResult:
        yield Static(summary_content(record), id="audit-summary")
        yield Static(f"Citation attempts ({len(record.citations)})", classes="audit-section")
        if not record.citations:
            yield Static("The answer cited no sources.", classes="panel-hint")
        for attempt in record.citations:
            classes = "attempt"
            if not attempt.shown:
                classes += " -hidden"
            elif attempt.check_two == "unchecked":
                classes += " -unchecked"
            yield Static(attempt_content(attempt), classes=classes)
        yield Static(f"Resets ({len(record.resets)})", classes="audit-section")
        if not record.resets:
            yield Static("Nothing was withdrawn.", classes="panel-hint")
        for i, reset in enumerate(record.resets, 1):
            yield Static(reset_content(i, reset), classes="reset")

    def on_mount(self) -> None:
        self.query_one("#audit-body").focus()
