"""The audit dashboard: how citations fared per model or per day, the sources most often cited while
retired, and the answers with the most failed citations (Enter opens one in the audit panel).

The numbers are ``AnswerEngine.audit_stats`` (the same as ``hippo-tui audit stats --by day|model``). Every
bar has its number beside it, so nothing depends on colour; each group is a block of lines rather than a
table row, so it reads at 40 columns. One more metric is one more entry in ``METRICS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from hippo_tui.safe_text import sanitize
from hippo_tui.ui.screens._base import PanelScreen
from hippo_tui.ui.screens.audit import AuditScreen, asked_text, short_id
from hippo_tui.ui.widgets.bars import BarRow, bar_rows
from hippo_tui.ui.widgets.safe import one_line

if TYPE_CHECKING:
    from hippo_tui.audit_stats import AuditStats, FailedAnswer, RetiredCitation, StatsBy, StatsGroup
    from hippo_tui.engine.protocol import AnswerEngine

# (label, a percentage of the group's) — one row of bars per entry, in this order. The first three are of the
# citations attempted; "backed" is the mean share of statements backed by a verified citation (coverage).
METRICS: list[tuple[str, Callable[[StatsGroup], float | None]]] = [
    ("flagged", lambda g: g.flagged_pct),
    ("ungrounded", lambda g: g.ungrounded_pct),
    ("unchecked", lambda g: g.unchecked_pct),
    ("backed", lambda g: g.backed_pct),
]
LEGEND = "Bars: % of citations; backed: % of statements backed by a verified citation."
LIMIT = 10  # retired sources and failed answers listed
EMPTY = "The audit record is empty: no answers yet. Ask a question, then open the dashboard again."


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


def group_rows(group: StatsGroup, most_answers: int) -> list[BarRow]:
    """Answers (against the busiest group), then each metric as a share of the citations."""
    rows = [BarRow("answers", group.answers / most_answers if most_answers else 0.0, str(group.answers))]
    for label, value in METRICS:
        pct = value(group)
        rows.append(BarRow(label, None if pct is None else pct / 100, _pct(pct)))
    return rows


def group_summary(group: StatsGroup) -> str:
    citations = "no citations" if not group.citations else f"{group.citations} citations"
    failed = "answer" if group.flagged_answers == 1 else "answers"
    return f"{citations} · {group.flagged_answers} {failed} failed"


class GroupBars(Widget):
    """One model's or day's bars, drawn to the width it gets. Every line is clipped, never wrapped, so the
    height is known before the width is (no relayout when the terminal is resized)."""

    DEFAULT_CSS = "GroupBars { height: auto; margin-top: 1; }"

    def __init__(self, group: StatsGroup, most_answers: int) -> None:
        super().__init__()
        self.group = group
        self.rows = group_rows(group, most_answers)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 2 + len(self.rows)

    def render(self) -> Content:
        width = self.content_region.width
        return Content.assemble(
            (one_line(self.group.key, width), "bold"),
            "\n",
            one_line(group_summary(self.group), width),
            "\n",
            bar_rows(self.rows, width),
        )


def retired_content(source: RetiredCitation) -> Content:
    title = one_line(source.title, 120) if source.title else "(no title)"
    times = "time" if source.citations == 1 else "times"
    answers = "answer" if source.answers == 1 else "answers"
    parts: list[str | tuple[str, str]] = [
        (title, "bold"),
        f"\nsource {short_id(sanitize(source.source_id))} · cited {source.citations} {times} in "
        f"{source.answers} {answers}",
    ]
    if source.superseded_by:
        parts.append(f"\nsuperseded by {short_id(sanitize(source.superseded_by))}")
    parts.append(f"\nlast cited {asked_text(source.last_cited)}")
    return Content.assemble(*parts)


def failed_prompt(answer: FailedAnswer) -> Content:
    return Content.assemble(
        (f"#{answer.audit_id} · {answer.failed} of {answer.citations} failed", "bold"),
        f" · {one_line(answer.model, 30)} · {asked_text(answer.created)[:10]}\n",
        f"“{one_line(answer.question, 160)}”",
    )


class DashboardScreen(PanelScreen[None]):
    """The audit dashboard over ``engine.audit_stats``; ``d``/``m`` switch between per day and per model."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("d", "show_by('day')", "Per day"),
        Binding("m", "show_by('model')", "Per model"),
    ]

    DEFAULT_CSS = """
    DashboardScreen {
        & #dash-body { height: 1fr; }
        & .dash-section { text-style: bold; margin-top: 1; height: auto; }
        & .dash-retired { height: auto; margin-top: 1; padding-left: 1; border-left: wide $error; }
        & #dash-failed { height: auto; max-height: 10; margin-top: 1; }
    }
    """

    def __init__(self, engine: AnswerEngine, by: StatsBy = "model") -> None:
        super().__init__()
        self.engine = engine
        self.by: StatsBy = by
        self.stats: AuditStats | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "Audit dashboard"
            panel.border_subtitle = "d day · m model · Esc"
            with VerticalScroll(id="dash-body"):
                yield Static("Reading the audit record…", classes="panel-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#dash-body").focus()
        self.load()

    def action_show_by(self, by: StatsBy) -> None:
        if by != self.by:
            self.by = by
            self.load()

    @work(exclusive=True, group="dashboard")
    async def load(self) -> None:
        body = self.query_one("#dash-body", VerticalScroll)
        try:
            stats = await self.engine.audit_stats(self.by, limit=LIMIT)
        except Exception as e:  # the store's errors say what went wrong; the panel stays open
            await body.remove_children()
            await body.mount(
                Static(f"Could not read the audit record: {one_line(str(e))}", classes="panel-error")
            )
            return
        self.stats = stats
        await body.remove_children()
        await body.mount_all(list(self._widgets(stats)))
        body.scroll_home(animate=False)

    def _widgets(self, stats: AuditStats) -> list[Widget]:
        if not stats.groups:
            return [Static(EMPTY, id="dash-empty")]
        per = "Per day (UTC)" if stats.by == "day" else "Per model"
        most = max(g.answers for g in stats.groups)
        widgets: list[Widget] = [
            Static(per, classes="dash-section", id="dash-by"),
            Static(LEGEND, classes="panel-hint"),
        ]
        widgets += [GroupBars(g, most) for g in stats.groups]
        widgets.append(Static(f"Cited while retired ({len(stats.retired_sources)})", classes="dash-section"))
        if not stats.retired_sources:
            widgets.append(Static("No answer cited a retired source.", classes="panel-hint"))
        widgets += [Static(retired_content(s), classes="dash-retired") for s in stats.retired_sources]
        widgets.append(Static(f"Most failed citations ({len(stats.most_failed)})", classes="dash-section"))
        if not stats.most_failed:
            widgets.append(Static("No answer has a failed citation.", classes="panel-hint"))
        else:
            widgets.append(Static("Tab to the list, Enter opens the audit.", classes="panel-hint"))
            options = [Option(failed_prompt(a), id=str(a.audit_id)) for a in stats.most_failed]
            widgets.append(OptionList(*options, id="dash-failed"))
        return widgets

    @on(OptionList.OptionSelected, "#dash-failed")
    def _open_answer(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.open_answer(int(event.option.id))

    @on(OptionList.OptionHighlighted, "#dash-failed")
    def _keep_list_in_view(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.has_focus:  # not when the list is first drawn: the view starts at the top
            body = self.query_one("#dash-body", VerticalScroll)
            body.scroll_to_widget(event.option_list, animate=False)

    @work(exclusive=True, group="dashboard-open")
    async def open_answer(self, audit_id: int) -> None:
        try:
            record = await self.engine.get_answer(audit_id)
        except Exception as e:
            self.notify(f"Could not read answer {audit_id}: {one_line(str(e))}", severity="error")
            return
        if record is None:
            self.notify(f"Answer {audit_id} is no longer in the audit record.", severity="warning")
            return
        self.app.push_screen(AuditScreen(record))
