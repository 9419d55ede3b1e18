"""Every event of every answer, grouped by answer, with the numbers the event inspector shows.

All timings come from ``event.t`` (the engine's clock, seconds since the answer started), never from wall
time, so the inspector is deterministic under a frozen clock. No Textual here: the log is plain data.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from hippo_tui.events import EndEvent, ErrorEvent, Event, ResetEvent, TextEvent, ThinkingEvent

# Old answers are dropped past these bounds so a long session does not grow without limit (a
# 50,000-character answer is ~10,000 text events). The answer being written is never dropped.
DEFAULT_MAX_ANSWERS = 100
DEFAULT_MAX_EVENTS = 200_000


@dataclass(frozen=True)
class AnswerMetrics:
    """What one answer's events say about it."""

    events: int
    counts: dict[str, int] = field(default_factory=dict)  # event type -> how many
    first_text_s: float | None = None  # t of the first text event (time to first text)
    max_held: int = 0  # most characters the guard held back at once
    mean_held: float = 0.0  # mean of ``held`` over the text events
    verification_s: float | None = None  # verification time, from the end event
    resets: int = 0
    withdrawn_chars: int = 0
    text_chars: int = 0  # characters released (``display``), withdrawn ones included
    duration_s: float = 0.0  # t of the last event
    outcome: str = "in progress"  # end outcome, "error: <kind>", or "in progress"


def compute_metrics(events: list[Event]) -> AnswerMetrics:
    """The inspector's numbers for one answer's events (works on an answer still in progress)."""
    counts = Counter(e.type for e in events)
    texts = [e for e in events if isinstance(e, TextEvent)]
    resets = [e for e in events if isinstance(e, ResetEvent)]
    held = [e.held for e in texts]
    outcome = "in progress"
    verification: float | None = None
    checking_t: float | None = None
    for e in events:
        if isinstance(e, ThinkingEvent) and e.phase == "checking":
            checking_t = e.t
        elif isinstance(e, EndEvent):
            outcome = e.outcome
            # The engine's own measure when it gives one; else the span from "Checking citations…".
            if e.verification.seconds > 0:
                verification = e.verification.seconds
            elif checking_t is not None:
                verification = max(0.0, e.t - checking_t)
        elif isinstance(e, ErrorEvent):
            outcome = f"error: {e.kind}"
    return AnswerMetrics(
        events=len(events),
        counts=dict(counts),
        first_text_s=texts[0].t if texts else None,
        max_held=max(held, default=0),
        mean_held=sum(held) / len(held) if held else 0.0,
        verification_s=verification,
        resets=len(resets),
        withdrawn_chars=sum(len(r.withdrawn_display) for r in resets),
        text_chars=sum(len(e.display) for e in texts),
        duration_s=events[-1].t if events else 0.0,
        outcome=outcome,
    )


class EventLog:
    """Every event the app consumed, split into answers.

    An answer ends at its ``end`` or ``error`` event. A cancelled answer has neither, so a new answer also
    starts after ``begin_answer()`` (the app calls it when a question is asked) or when ``t`` goes backwards
    (each answer's clock starts at zero). Event shapes alone cannot tell: after a reset the engine searches
    again within the same answer.
    """

    def __init__(self, max_answers: int = DEFAULT_MAX_ANSWERS, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        if max_answers < 1 or max_events < 1:
            raise ValueError("max_answers and max_events must be at least 1")
        self.max_answers = max_answers
        self.max_events = max_events
        self._answers: list[list[Event]] = []
        self._count = 0  # events kept, so len() and pruning stay O(1) per event
        self._open = False  # the last answer can still take events
        self.dropped_answers = 0  # pruned past the bounds

    def begin_answer(self) -> None:
        """Mark that the next event starts a new answer (the app calls this when a question is asked)."""
        self._open = False

    def _starts_new_answer(self, event: Event) -> bool:
        if not self._open or not self._answers or not self._answers[-1]:
            return True
        # Each answer's clock starts at zero, so time going backwards means a new answer.
        return event.t < self._answers[-1][-1].t

    def add(self, event: Event) -> None:
        if self._starts_new_answer(event):
            self._answers.append([])
            self._open = True
        self._answers[-1].append(event)
        self._count += 1
        if isinstance(event, EndEvent | ErrorEvent):
            self._open = False
        self._prune()

    def _prune(self) -> None:
        while len(self._answers) > 1 and (
            len(self._answers) > self.max_answers or self._count > self.max_events
        ):
            self._count -= len(self._answers.pop(0))
            self.dropped_answers += 1

    @property
    def entries(self) -> list[Event]:
        """Every kept event, oldest first."""
        return [e for answer in self._answers for e in answer]

    def answers(self) -> list[list[Event]]:
        """The kept answers, oldest first, each its events in order."""
        return [list(a) for a in self._answers]

    def __len__(self) -> int:
        return self._count

    def metrics(self, index: int = -1) -> AnswerMetrics:
        """The numbers for one answer (default: the latest). Raises IndexError when there is none."""
        return compute_metrics(self._answers[index])

    def clear(self) -> None:
        self._answers.clear()
        self._count = 0
        self._open = False
