"""The answer session: which answer is being written, the question waiting for the engine, cancel, and the
conversation's turns with their audit ids. No Textual here: the app draws, this decides.

One ``Answer`` per question. Its events are consumed by ``run`` and handed to a ``deliver`` callback in batches
(ui/event_batches.py: a run of text events already read, or one other event; the app posts one message per
batch); the app reports back how each answer ended (``finish``), so the turns
and the audit ids stay in one place. The audit id comes from the engine's ``start`` event (or, for an
answer that never had one, its ``end``/``error``), never from matching question text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hippo_tui.ui.coverage_text import coverage_line

# The engine package pulls in the model client, the event models pydantic: neither before the app's first
# frame (they load with the engine; the session reads events by their ``type`` tag).
if TYPE_CHECKING:
    from hippo_tui.engine.protocol import AnswerEngine, Conversation
    from hippo_tui.events import EndEvent, ErrorEvent, Event
    from hippo_tui.export import Turn

STREAM_CUT_ACTION = "Ask again; if it keeps happening, pick another model (F6)."
INTERNAL_ACTION = "Ask again; the event inspector (F4) shows what happened."
# Turns of a conversation kept for copy and export; older ones stay in the audit record (``audit list``).
MAX_TURNS = 200


@dataclass(eq=False)
class Answer:
    """One question being answered: where it is, and what the engine said about it so far."""

    question: str
    number: int  # the n-th question of the session: its key in the event log
    conversation: int
    audit_id: int | None = None
    writing: bool = True  # until phase "checking" (or the end): the prompt is taken meanwhile
    cancelled: bool = False  # Esc was pressed: the engine's cancelled end is on its way
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # its end or error was drawn

    @property
    def done(self) -> bool:
        return self.ended.is_set()


# Returns once the batch (one event, or consecutive text events) is drawn: the next batch is taken only then,
# and the engine runs at most a bounded read-ahead in front of the screen.
Deliver = Callable[[Answer, list["Event"]], Awaitable[None]]


class AnswerSession:
    """The answers of one app session against one engine (set once it has opened), on one conversation of
    that engine at a time (``open``; ctrl+n opens the next)."""

    def __init__(self, engine: AnswerEngine | None = None) -> None:
        self.engine = engine
        self.conversation: Conversation | None = None
        self._closing: set[asyncio.Future[None]] = set()  # earlier conversations closed once their answer ends
        self.queued: str | None = None  # asked before the engine was ready: asked once it is
        self.active: Answer | None = None  # the answer being written (holds the prompt)
        self.latest: Answer | None = None  # the answer the sidebar and status bar follow
        self.turns: list[Turn] = []
        self.max_turns = MAX_TURNS
        self.dropped_turns = 0  # of this conversation, past ``max_turns``
        self.number = 0  # of the conversation, counted from 0: an answer of an earlier one is not current
        self.asked = 0

    # -- asking ------------------------------------------------------------------------------

    def queue(self, question: str) -> bool:
        """Keep a question asked before the engine opened; False when one is already waiting."""
        if self.queued is not None:
            return False
        self.queued = question
        return True

    def take_queued(self) -> str | None:
        question, self.queued = self.queued, None
        return question

    async def open(self, system_prompt: str | None = None) -> Conversation:
        """The conversation answers go to, opened on the engine (the engine's default prompt unless given)."""
        if self.engine is None:
            raise RuntimeError("the engine is not open yet")
        if self.conversation is None:
            self.conversation = await self.engine.open_conversation(system_prompt=system_prompt)
        return self.conversation

    @property
    def ready(self) -> bool:
        return self.conversation is not None

    def start(self, question: str) -> Answer:
        """A new answer: it holds the prompt and owns the sidebar and status bar from now on."""
        if self.conversation is None:
            raise RuntimeError("the engine is not open yet")
        if self.active is not None:
            raise RuntimeError("an answer is still being written")
        self.asked += 1
        answer = Answer(question=question, number=self.asked, conversation=self.number)
        self.active = self.latest = answer
        return answer

    async def run(self, answer: Answer, deliver: Deliver) -> None:
        """Consume the answer's events into ``deliver``; whatever the engine does, the last one is an end
        or an error (a stream that stops early or an engine bug becomes an error event)."""
        assert self.conversation is not None
        from hippo_tui.events import ErrorEvent
        from hippo_tui.ui.event_batches import EventBatches

        batches = EventBatches(self.conversation.ask(answer.question))
        last: Event | None = None
        try:
            async for batch in batches:
                for event in batch:
                    if event.type == "start":
                        answer.audit_id = event.audit_id
                last = batch[-1]
                await deliver(answer, batch)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an engine bug must not take the app down or keep the prompt
            message = f"{type(e).__name__}: {e}"
            await deliver(answer, [ErrorEvent(kind="internal", message=message, action=INTERNAL_ACTION)])
            return
        finally:  # stopped early (the app quits): the engine's record is written now
            await batches.close()
        if last is None or last.type not in ("end", "error"):
            message = "The answer stopped without an end."
            await deliver(answer, [ErrorEvent(kind="stream_cut", message=message, action=STREAM_CUT_ACTION)])

    # -- where an answer is --------------------------------------------------------------------

    def is_current(self, answer: Answer) -> bool:
        """Whether this answer still owns the sidebar and status bar (a newer one takes them over)."""
        return answer is self.latest and answer.conversation == self.number

    def release(self, answer: Answer) -> bool:
        """The answer no longer holds the prompt (phase "checking", or its end); True when it just did."""
        answer.writing = False
        if self.active is not answer:
            return False
        self.active = None
        return True

    async def cancel(self) -> Answer | None:
        """Esc: ask the engine to stop the answer being written; its stream ends with the cancelled end."""
        answer = self.active
        if answer is None or self.conversation is None:
            return None
        answer.cancelled = True
        self.release(answer)
        await self.conversation.cancel()
        return answer

    def finish(self, answer: Answer, end: EndEvent | ErrorEvent, text: str) -> Turn | None:
        """The answer ended as drawn (``text``): its turn, unless a new conversation began meanwhile."""
        if end.audit_id is not None:
            answer.audit_id = end.audit_id
        self.release(answer)
        turn = None
        if answer.conversation == self.number:
            from hippo_tui.export import Turn

            if end.type == "end":
                turn = Turn(
                    answer.question,
                    text,
                    list(end.citations),
                    end.outcome,
                    answer.audit_id,
                    coverage_line(end),
                )
            else:
                turn = Turn(answer.question, text, [], "error", answer.audit_id)
            self.turns.append(turn)
            if len(self.turns) > self.max_turns:
                self.dropped_turns += len(self.turns) - self.max_turns
                del self.turns[: -self.max_turns]
        answer.ended.set()
        return turn

    async def new_conversation(self) -> None:
        """Forget the turns; the engine opens a conversation of its own with the same system prompt (the
        old one is closed: an answer still verifying on it ends there, and is no longer this one's)."""
        self.number += 1
        still, self.latest = self.latest, None
        self.turns = []
        self.dropped_turns = 0
        old, self.conversation = self.conversation, None
        if old is None or self.engine is None:
            return
        await self.open(old.system_prompt)
        if still is not None and not still.done:  # verifying: its record is finished before the close
            task = asyncio.ensure_future(_close_after(old, still))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        else:
            await old.close()

    async def latest_audit_id(self) -> int | None:
        """The audit id of the latest answer of this conversation, once a cancelled one has ended (its
        record is written by then)."""
        latest = self.latest
        if latest is not None and latest.cancelled and latest.conversation == self.number:
            await latest.ended.wait()
        return next((t.audit_id for t in reversed(self.turns) if t.audit_id is not None), None)


async def _close_after(conversation: Conversation, answer: Answer) -> None:
    await answer.ended.wait()
    await conversation.close()
