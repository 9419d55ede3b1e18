"""The event inspector: the raw events of an answer with their ``t``, and the numbers they add up to.

Opens on the latest answer; p/n step to earlier and later ones, r reloads the live log (an answer may
still be streaming). A row's full event (JSON) shows below the table on tall terminals, and with ``d``
on short ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import DataTable, Footer, Static

from hippo_tui.events import (
    EndEvent,
    Event,
    ResetEvent,
    SourcesEvent,
    StartEvent,
)
from hippo_tui.safe_text import clip
from hippo_tui.ui.event_log import AnswerMetrics, EventLog, compute_metrics
from hippo_tui.ui.screens._base import PanelScreen

# A 50,000-character answer is thousands of text events; the table shows both ends of a long answer.
MAX_ROWS = 1000
DETAIL_CELL_CHARS = 80
DETAIL_PANE_CHARS = 4000
GAP_KEY = "gap"


def _flat(text: str, limit: int) -> str:
    """Sanitised, newlines shown as ⏎, cut to ``limit`` characters."""
    return clip(text.replace("\r\n", "\n").replace("\n", "⏎").replace("\t", " "), limit)


def _start(event: StartEvent) -> str:
    return f"audit record {event.audit_id} · {event.backend} · {event.model}"


def _sources(event: SourcesEvent) -> str:
    titles = "; ".join(s.title for s in event.sources)
    return f"{len(event.sources)} sources: {titles}"


def _reset(event: ResetEvent) -> str:
    rule = f" ({event.rule})" if event.rule else ""
    return f"{event.reason}{rule}: {len(event.withdrawn_display)} chars withdrawn · {event.note}"


def _end(event: EndEvent) -> str:
    v = event.verification
    note = f" · {v.note}" if v.note else ""
    return (
        f"{event.outcome} · {len(event.citations)} shown of {v.attempted} cited · "
        f"{v.missing} missing, {v.retired} retired, {v.ungrounded} ungrounded, "
        f"{v.unchecked} unchecked{note}"
    )


# One line per event type, by its ``type`` tag: a new event type fails the front-end coverage test until
# it has its line here.
DESCRIBE: dict[str, Callable[[Any], str]] = {
    "start": _start,
    "thinking": lambda e: f"{e.phase}: {e.text}",
    "sources": _sources,
    "text": lambda e: f"“{e.display}” held {e.held}",
    "reset": _reset,
    "end": _end,
    "error": lambda e: f"{e.kind}: {e.message}",
}


def describe(event: Event) -> str:
    """One line saying what an event carried."""
    return DESCRIBE[event.type](event)


def shown_rows(n: int) -> list[int | None]:
    """Which of ``n`` events get a row: all of them, or MAX_ROWS from both ends with a gap (None) between."""
    if n <= MAX_ROWS:
        return list(range(n))
    head = MAX_ROWS // 2
    tail = MAX_ROWS - head
    return [*range(head), None, *range(n - tail, n)]


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def metrics_content(index: int, total: int, m: AnswerMetrics, dropped: int = 0) -> Content:
    counts = ", ".join(f"{k} {v}" for k, v in m.counts.items())
    earlier = f" ({dropped} older dropped)" if dropped else ""
    parts: list[str | tuple[str, str]] = [
        (f"Answer {index + 1} of {total}{earlier}", "bold"),
        f" · {m.outcome} · {m.duration_s:.2f} s\n",
        ("first text ", "bold"),
        _seconds(m.first_text_s),
        " · ",
        ("held ", "bold"),
        f"max {m.max_held}, mean {m.mean_held:.1f} chars · ",
        ("verification ", "bold"),
        _seconds(m.verification_s),
        "\n",
        ("events ", "bold"),
        f"{m.events} ({counts}) · ",
        ("resets ", "bold"),
        f"{m.resets} ({m.withdrawn_chars} chars withdrawn) · ",
        ("text ", "bold"),
        f"{m.text_chars} chars",
    ]
    return Content.assemble(*parts)


class InspectorScreen(PanelScreen[None]):
    """Every event of an answer in a scrollable table, with time to first text, held, verification."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        # Short labels so the whole footer fits in 40 columns.
        Binding("p,left_square_bracket", "earlier", "Prev"),
        Binding("n,right_square_bracket", "later", "Next"),
        Binding("d", "toggle_detail", "JSON"),
        Binding("r", "reload", "Reload"),
    ]

    # The detail pane needs room: below 30 rows it opens with d instead of sharing the height.
    # Instance attributes in Textual's typing (not ClassVar): mypy needs the same declaration.
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-short"), (30, "-tall")]  # noqa: RUF012

    DEFAULT_CSS = """
    InspectorScreen {
        & #inspector-metrics { height: auto; }
        & #inspector-events { height: 1fr; margin-top: 1; }
        & #inspector-detail { height: 8; border-top: solid $primary; }
        &.-short #inspector-detail { display: none; }
        &.-short.-show-detail #inspector-events { display: none; }
        &.-short.-show-detail #inspector-detail { display: block; height: 1fr; }
        &.-tall.-hide-detail #inspector-detail { display: none; }
    }
    """

    index: reactive[int] = reactive(-1, init=False)

    def __init__(self, log: EventLog) -> None:
        super().__init__()
        self.event_log = log
        self._answers = log.answers()  # a snapshot: the live log may grow while the panel is open
        self._answer_closed = log.closed()
        self._events: list[Event] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "Event inspector"
            panel.border_subtitle = "Esc closes"
            yield Static(id="inspector-metrics")
            table: DataTable[Text] = DataTable(id="inspector-events", cursor_type="row", zebra_stripes=False)
            yield table
            with VerticalScroll(id="inspector-detail"):
                yield Static(id="inspector-detail-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#inspector-events", DataTable)
        table.add_column("t (s)", key="t")
        table.add_column("type", key="type")
        table.add_column("what", key="what")
        if self._answers:
            self.index = len(self._answers) - 1
        else:
            self.query_one("#inspector-metrics", Static).update("No events yet: ask a question first.")
        table.focus()

    def watch_index(self, index: int) -> None:
        events = self._answers[index]
        self._events = events
        metrics = compute_metrics(events, closed=self._answer_closed[index])
        self.query_one("#inspector-metrics", Static).update(
            metrics_content(index, len(self._answers), metrics, self.event_log.dropped_answers)
        )
        table = self.query_one("#inspector-events", DataTable)
        table.clear()
        for i in shown_rows(len(events)):
            if i is None:
                hidden = len(events) - MAX_ROWS
                table.add_row(Text(""), Text("…"), Text(f"{hidden} events not shown"), key=GAP_KEY)
                continue
            e = events[i]
            table.add_row(
                Text(f"{e.t:.3f}"), Text(e.type), Text(_flat(describe(e), DETAIL_CELL_CHARS)), key=str(i)
            )
        table.move_cursor(row=0)
        self._show_detail(0 if events else None)

    def _show_detail(self, event_index: int | None) -> None:
        detail = self.query_one("#inspector-detail-text", Static)
        if event_index is None or not (0 <= event_index < len(self._events)):
            detail.update("")
            return
        raw = self._events[event_index].model_dump_json(indent=1)
        # JSON escapes C0 controls but not C1 ones or bidi overrides; sanitize covers what JSON does not.
        detail.update(Content(_flat_json(raw)))

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        key = message.row_key.value
        self._show_detail(None if key in (None, GAP_KEY) else int(key))

    def action_earlier(self) -> None:
        if self._answers and self.index > 0:
            self.index -= 1
        else:
            self.notify("This is the earliest answer kept.", timeout=2)

    def action_later(self) -> None:
        if self._answers and self.index < len(self._answers) - 1:
            self.index += 1
        else:
            self.notify("This is the latest answer.", timeout=2)

    def action_reload(self) -> None:
        """Take a fresh copy of the log; stay on the latest answer if that is where the user was."""
        on_latest = self.index == len(self._answers) - 1
        self._answers = self.event_log.answers()
        self._answer_closed = self.event_log.closed()
        if not self._answers:
            return
        index = len(self._answers) - 1 if on_latest else min(self.index, len(self._answers) - 1)
        if index == self.index:
            self.watch_index(index)  # same answer, new events: redraw
        else:
            self.index = index

    def action_toggle_detail(self) -> None:
        visible = self.query_one("#inspector-detail").display
        self.remove_class("-show-detail", "-hide-detail")
        self.add_class("-hide-detail" if visible else "-show-detail")


def _flat_json(raw: str) -> str:
    return clip(raw, DETAIL_PANE_CHARS)
