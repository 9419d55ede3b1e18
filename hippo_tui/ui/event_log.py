"""Every event of every answer, grouped by answer, with the numbers the event inspector shows.

All timings come from ``event.t`` (the engine's clock, seconds since the answer started), never from wall
time, so the inspector is deterministic under a frozen clock. No Textual here: the log is plain data.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the app makes its log before the engine (and the event models, pydantic) load
    from hippo_tui.events import Event

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
    outcome: str = "in progress"  # end outcome, "error: <kind>", "cancelled", or "in progress"


def compute_metrics(events: list[Event], *, closed: bool = False) -> AnswerMetrics:
    """The inspector's numbers for one answer's events (works on an answer still in progress).

    ``closed``: the answer takes no more events; without an end or error it was cancelled.
    """
    counts = Counter(e.type for e in events)
    # By each event's ``type`` tag: the event classes need not be loaded to read a log.
    texts = [e for e in events if e.type == "text"]
    resets = [e for e in events if e.type == "reset"]
    held = [e.held for e in texts]
    outcome = "in progress"
    verification: float | None = None
    checking_t: float | None = None
    for e in events:
        if e.type == "thinking" and e.phase == "checking":
            checking_t = e.t
        elif e.type == "end":
            outcome = e.outcome
            # The engine's own measure when it gives one; else the span from "Checking citations…".
            if e.verification.seconds > 0:
                verification = e.verification.seconds
            elif checking_t is not None:
                verification = max(0.0, e.t - checking_t)
        elif e.type == "error":
            outcome = f"error: {e.kind}"
    if closed and outcome == "in progress":
        outcome = "cancelled"
    return AnswerMetrics(
        events=len(events),
        counts={str(kind): n for kind, n in counts.items()},
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


@dataclass
class _Answer:
    key: Hashable | None  # the caller's key for the answer, None when grouped by the heuristics
    events: list[Event] = field(default_factory=list)
    open: bool = True  # can still take events (no end or error yet)


class EventLog:
    """Every event the app consumed, split into answers.

    Answers can overlap: a second question may start while the first is still verifying. The app passes
    each answer's key (``add(event, answer=key)``), so each answer's events stay together whatever the
    interleaving; answers are listed in the order they started.

    Without a key (a single stream of answers, e.g. a replayed log), an answer ends at its ``end`` or
    ``error`` event. A cancelled answer has neither, so a new answer also starts after ``begin_answer()``
    or when ``t`` goes backwards (each answer's clock starts at zero). Event shapes alone cannot tell:
    after a reset the engine searches again within the same answer.
    """

    def __init__(self, max_answers: int = DEFAULT_MAX_ANSWERS, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        if max_answers < 1 or max_events < 1:
            raise ValueError("max_answers and max_events must be at least 1")
        self.max_answers = max_answers
        self.max_events = max_events
        self._answers: list[_Answer] = []
        self._keyed: dict[Hashable, _Answer] = {}
        self._unkeyed: _Answer | None = None  # the answer events without a key go to
        self._count = 0  # events kept, so len() and pruning stay O(1) per event
        self.dropped_answers = 0  # pruned past the bounds

    def begin_answer(self) -> None:
        """Mark that the next event without a key starts a new answer."""
        if self._unkeyed is not None:
            self._unkeyed.open = False
        self._unkeyed = None

    def close_answer(self, answer: Hashable) -> None:
        """An answer that ends without an end or error event (cancelled): it takes no more events."""
        target = self._keyed.get(answer)
        if target is not None:
            target.open = False

    def _target(self, event: Event, key: Hashable | None) -> _Answer:
        if key is not None:
            answer = self._keyed.get(key)
            if answer is None:
                answer = self._keyed[key] = _Answer(key)
                self._answers.append(answer)
            return answer
        current = self._unkeyed
        # Each answer's clock starts at zero, so time going backwards means a new answer.
        if current is None or not current.open or (current.events and event.t < current.events[-1].t):
            if current is not None:
                current.open = False
            current = self._unkeyed = _Answer(None)
            self._answers.append(current)
        return current

    def add(self, event: Event, answer: Hashable | None = None) -> None:
        """Log one event; ``answer`` keys the answer it belongs to (any hashable, e.g. a question number)."""
        target = self._target(event, answer)
        target.events.append(event)
        self._count += 1
        if event.type in ("end", "error"):
            target.open = False
        self._prune(target)

    def _prune(self, latest: _Answer) -> None:
        """Drop the oldest answers past the bounds: finished ones first, never the one just written to."""
        while len(self._answers) > 1 and (
            len(self._answers) > self.max_answers or self._count > self.max_events
        ):
            victim = next((a for a in self._answers if not a.open and a is not latest), None)
            if victim is None:
                victim = next(a for a in self._answers if a is not latest)
            self._answers.remove(victim)
            self._count -= len(victim.events)
            self.dropped_answers += 1
            if victim.key is not None:
                self._keyed.pop(victim.key, None)
            if victim is self._unkeyed:
                self._unkeyed = None

    @property
    def entries(self) -> list[Event]:
        """Every kept event, answer by answer in the order they started."""
        return [e for answer in self._answers for e in answer.events]

    def answers(self) -> list[list[Event]]:
        """The kept answers in the order they started, each its events in order."""
        return [list(a.events) for a in self._answers]

    def closed(self) -> list[bool]:
        """For each kept answer (as in ``answers()``): whether it takes no more events."""
        return [not a.open for a in self._answers]

    def __len__(self) -> int:
        return self._count

    def metrics(self, index: int = -1) -> AnswerMetrics:
        """The numbers for one answer (default: the latest). Raises IndexError when there is none."""
        answer = self._answers[index]
        return compute_metrics(answer.events, closed=not answer.open)

    def clear(self) -> None:
        self._answers.clear()
        self._keyed.clear()
        self._unkeyed = None
        self._count = 0
