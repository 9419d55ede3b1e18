"""The Textual app: the main screen, and the wiring from the answer session to the widgets and panels.

The app depends on the engine protocol only (``AnswerEngine``) and parses nothing: the session consumes each
answer's events in a worker and posts one message per event type (ui/messages.py), which the ``on_answer_…``
handlers below draw. The prompt comes back at phase "checking" while the same worker finishes verification
in the background, so a new question never cancels the previous verification.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input

from hippo_tui.config import Settings
from hippo_tui.heap import hold_collections, settle_after_startup
from hippo_tui.ui import keys, themes
from hippo_tui.ui.coverage_text import shown_text
from hippo_tui.ui.event_log import EventLog
from hippo_tui.ui.messages import (
    AnswerEnded,
    AnswerFailed,
    AnswerReset,
    AnswerSources,
    AnswerStarted,
    AnswerText,
    AnswerThinking,
    acknowledges,
    message_for,
)
from hippo_tui.ui.session import Answer, AnswerSession
from hippo_tui.ui.settings_mirror import mirror_endpoint, save_prompt, saved_prompt
from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.footer import KeyFooter
from hippo_tui.ui.widgets.prompt import PLACEHOLDER, QUEUED, PromptInput
from hippo_tui.ui.widgets.safe import one_line
from hippo_tui.ui.widgets.sources import SourcesPanel
from hippo_tui.ui.widgets.status import SHORT_PHASE, StatusBar

# The engine package pulls in the model client, the event models pydantic: neither before the first frame
# (they load with the engine; the app reads events by their ``type`` tag, imports these where it uses them).
if TYPE_CHECKING:
    from hippo_tui.engine.protocol import AnswerEngine
    from hippo_tui.events import EndEvent, ErrorEvent, Event
    from hippo_tui.export import Turn
    from hippo_tui.ui.widgets.turn import TurnView

NARROW = 80  # columns: below this the sidebar is an overlay, the status bar and the footer shorten

EngineFactory = Callable[[Settings], Awaitable["AnswerEngine"]]
# Errors the model/endpoint switcher can fix, so the notification points at it too.
SWITCHABLE_ERRORS = {"connection", "auth", "not_found", "rate_limit", "server"}


async def open_local_engine(settings: Settings) -> AnswerEngine:
    """The engine these settings name: in this process, or a thin client of ``settings.server``. Imported
    in a thread: it pulls in the model client or httpx (half a second of imports), which must neither delay
    the first frame nor freeze the spinner."""
    which = "hippo_tui.engine.remote" if settings.server else "hippo_tui.engine.local"
    await asyncio.to_thread(importlib.import_module, which)
    from hippo_tui.engine import open_engine

    return await open_engine(settings, client="tui")


def error_text(error: ErrorEvent, switch_key: str) -> str:
    """An error's notification: what happened, what to do, and the switcher's key when it can help."""
    lines = [one_line(error.message) or error.kind, one_line(error.action)]
    if error.kind in SWITCHABLE_ERRORS:
        lines.append(f"In the app: {switch_key} switches the model or endpoint.")
    return "\n".join(line for line in lines if line)


class HippoApp(App[int]):
    """hippo-tui: ask, watch the answer stream, see which citations were verified."""

    CSS_PATH = "app.tcss"
    TITLE = "hippo-tui"
    # Instance attributes in Textual's typing (not ClassVar): mypy needs the same declaration.
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (NARROW, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[Binding]] = keys.BINDINGS  # type: ignore[assignment]
    COMMANDS_TABLE: ClassVar[list[tuple[str, str, str]]] = keys.COMMANDS_TABLE

    def __init__(
        self,
        settings: Settings,
        *,
        engine: AnswerEngine | None = None,
        animate: bool = True,
        engine_factory: EngineFactory | None = None,
        settle_heap: bool = False,
    ) -> None:
        """``engine_factory`` opens the engine after the first frame when ``engine`` is None
        (default: the local engine, ``open_local_engine``). ``settle_heap``: the process is this app's
        (``run_app``), so once the engine is ready its garbage collector is set for it (``hippo_tui.heap``)."""
        super().__init__()
        self.settings = settings
        self._settle_heap = settle_heap
        self.session = AnswerSession(engine)
        self._engine_factory = engine_factory or open_local_engine
        self.animated = animate  # spinner and cursor blink (off for snapshots)
        self.event_log = EventLog()
        self._views: dict[Answer, TurnView] = {}  # answers still running, and where they are drawn
        self.register_theme(themes.HIGH_CONTRAST)
        self._unknown_theme = ""
        if settings.theme:
            name = themes.theme_name(settings.theme, self.available_themes)
            if name is not None:
                self.theme = name
            else:
                self._unknown_theme = settings.theme

    @property
    def engine(self) -> AnswerEngine | None:
        return self.session.engine

    @property
    def turns(self) -> list[Turn]:
        """The conversation's finished answers, for copy and export."""
        return self.session.turns

    # ------------------------------------------------------------------ layout

    def get_default_screen(self) -> Screen[Any]:
        """The main screen, born with its breakpoint classes (-wide/-narrow, -tall/-short). Textual sets them
        on the first Resize, after the first paint: the start-up frame was styled, laid out and drawn twice."""
        screen = super().get_default_screen()
        width, height = self.size
        for dimension, points in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
            names = [name for edge, name in sorted(points or [], reverse=True) if dimension >= edge]
            if names:
                screen.add_class(names[0])
        return screen

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield AnswerPane(id="answers")
            yield SourcesPanel(id="sidebar")
        yield StatusBar(animate=self.animated, id="status")
        yield PromptInput(id="prompt", blink=self.animated)
        yield KeyFooter()

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def sidebar(self) -> SourcesPanel:
        return self.query_one("#sidebar", SourcesPanel)

    @property
    def pane(self) -> AnswerPane:
        return self.query_one("#answers", AnswerPane)

    async def on_mount(self) -> None:
        # First of all: keys typed from the first frame on go to the prompt.
        self.prompt.focus()
        self._apply_settings()
        await self.pane.clear("Ask a question below. Answers cite their sources; citations are checked.")
        self.prompt.focus()
        if self.engine is None:
            # The prompt stays enabled: what is typed now is kept, and a question is queued (see _queue).
            self.status.set_phase("Opening the knowledge base…", short="Starting…", busy=True)
            # After the first frame: the app is on screen while the engine and the KB open.
            self.call_after_refresh(
                self.run_worker, self._create_engine(), name="engine", exit_on_error=False
            )
        else:
            await self._engine_ready()

    def _apply_settings(self) -> None:
        """Keys and theme from the settings, with a warning for names that are none of ours."""
        unknown = keys.apply_keymap(self, self.settings.keys)
        if unknown:
            self.notify(f"Unknown actions in settings.keys: {', '.join(unknown)}", severity="warning")
        if self._unknown_theme:
            message = themes.unknown_theme_message(self._unknown_theme, self.available_themes)
            self.notify(message, severity="warning")
        self.sidebar.audit_key = self._key_for("show_audit")
        self.status.sources_key = self._key_for("toggle_sidebar")

    def on_resize(self, event: events.Resize) -> None:
        # Thin terminals: keys without the padding between them, so Copy and Audit fit in 40 columns.
        footer = self.query_one(Footer)
        wide = event.size.width >= NARROW
        if footer.show_command_palette != wide:
            footer.compact = not wide
            footer.show_command_palette = wide  # thin: F1 lists ^p with the other keys
            footer.refresh(recompose=True)

    # ------------------------------------------------------------------ the engine

    async def _create_engine(self) -> None:
        try:
            self.session.engine = await self._engine_factory(self.settings)
        except Exception as e:
            self._engine_failed(e)
            return
        await self._engine_ready()

    def _engine_failed(self, e: Exception) -> None:
        self._unqueue()
        self.status.set_phase(
            f"✗ Engine unavailable: {one_line(str(e))}", short="✗ Engine unavailable", error=True
        )
        self.notify(
            f"{one_line(str(e)) or type(e).__name__}\nCheck the settings (hippo-tui --help) and restart.",
            title="Could not start the engine",
            severity="error",
            timeout=30,
        )

    async def _engine_ready(self) -> None:
        try:
            await self.session.open(self._saved_prompt())
        except Exception as e:  # a remote engine that cannot open a conversation: nothing can be asked
            self._engine_failed(e)
            return
        await self._refresh_info()
        self.status.set_phase("Ready", short="Ready")
        self.prompt.disabled = False
        if self.prompt.placeholder == QUEUED:
            self.prompt.placeholder = PLACEHOLDER
        if self.screen is self.screen_stack[0]:
            self.prompt.focus()
        if self._settle_heap:
            settle_after_startup()
        question = self.session.take_queued()
        if question is not None:
            await self.ask(question)

    def _queue(self, question: str) -> None:
        """Enter before the engine is open: keep the question and ask it once the engine is ready."""
        waiting = self.session.queued
        if waiting is not None:
            self.notify(f"Still starting: “{one_line(waiting, 60)}” is waiting to be asked.")
            return
        self.session.queue(question)
        self.prompt.queued(question)
        self.status.set_phase(QUEUED, short="Starting… (queued)", busy=True)

    def _unqueue(self) -> None:
        """The engine could not open: a waiting question goes back into the prompt."""
        question = self.session.take_queued()
        self.prompt.placeholder = PLACEHOLDER
        if question is not None and not self.prompt.value:
            self.prompt.give_back(question)

    async def _refresh_info(self) -> None:
        if self.engine is None:
            return
        try:
            info = await self.engine.info()
        except Exception as e:  # the status line only: answering may still work
            self.notify(f"Could not read what the engine is: {one_line(str(e))}", severity="warning")
            return
        self.status.show_info(info)

    # ------------------------------------------------------------------ keys, footer, palette

    def _key_for(self, action: str) -> str:
        return keys.key_for(self, action)

    def key_table(self) -> list[tuple[str, str]]:
        """(key, what it does) for the help screen, with any re-mapped keys."""
        return keys.key_table(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys that do nothing right now, so the footer shows the ones that matter."""
        if action == "cancel":
            return self.session.active is not None
        if action in ("copy_answer", "show_audit", "export"):
            return bool(self.turns)
        return True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action, title, help_text in self.COMMANDS_TABLE:
            name = action.split("(")[0]
            if self.check_action(name, ()) is False:
                continue  # like the footer: no "Cancel answer" when nothing is being written
            key = self._key_for(action)
            yield SystemCommand(
                f"{title} ({key})" if key else title,
                help_text,
                lambda a=action: self.run_action(a),
            )

    # ------------------------------------------------------------------ asking

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "prompt":
            return
        question = event.value.strip()
        if not question:
            return
        if self.session.active is not None:
            self.notify("An answer is still being written: wait for it, or press Esc to cancel it.")
            return
        if not self.session.ready:
            self._queue(question)
            return
        self.prompt.remember(question)
        self.prompt.value = ""
        await self.ask(question)

    async def ask(self, question: str) -> None:
        """Start one answer: a new turn in the pane, a fresh sidebar, and a worker consuming its events."""
        answer = self.session.start(question)
        self._views[answer] = await self.pane.add_turn(question)
        await self.sidebar.clear()
        self.status.sources = 0
        self.status.set_phase("Searching…", short="Searching…", busy=True)
        self.prompt.take(self._key_for("cancel"))
        self.run_worker(
            self.session.run(answer, self._post),
            name=f"answer-{answer.number}",
            group="answers",
            exit_on_error=False,
        )
        self.refresh_bindings()

    async def _post(self, answer: Answer, batch: list[Event]) -> None:
        message = message_for(answer, batch)
        if self.post_message(message):  # False once the app is closing
            await message.drawn.wait()

    def _take(self, answer: Answer, event: Event, *, last: bool = False) -> TurnView | None:
        """Log an answer's event; the view to draw it into, unless it is gone (pruned, new conversation)."""
        # Keyed by answer: a new question may start while an earlier one still verifies.
        self.event_log.add(event, answer=answer.number)
        view = self._views.pop(answer, None) if last else self._views.get(answer)
        return view if view is not None and view.is_attached else None

    # ------------------------------------------------------------------ one handler per event type

    @acknowledges
    def on_answer_started(self, message: AnswerStarted) -> None:
        self._take(message.answer, message.event)  # the session keeps its audit id

    @acknowledges
    def on_answer_thinking(self, message: AnswerThinking) -> None:
        answer, event = message.answer, message.event
        if self._take(answer, event) is None:
            return
        if event.phase == "checking":
            self._release_prompt(answer)
        if self.session.is_current(answer):
            self.status.set_phase(event.text, short=SHORT_PHASE.get(event.phase, ""), busy=True)

    @acknowledges
    async def on_answer_sources(self, message: AnswerSources) -> None:
        answer, event = message.answer, message.event
        if self._take(answer, event) is not None and self.session.is_current(answer):
            await self.sidebar.add_previews(event.sources)
            self.status.sources = len(self.sidebar.previews)

    @acknowledges
    async def on_answer_text(self, message: AnswerText) -> None:
        answer = message.answer
        for event in message.events[:-1]:
            self.event_log.add(event, answer=answer.number)
        view = self._take(answer, message.events[-1])
        if view is None:
            return
        # The batch at once: one draw, however many pieces, and none while its blocks are still mounting
        # (a frame of half a batch is work the next frame redoes; the end waited for it).
        with self.batch_update():
            await view.append(message.display)
        if self.session.is_current(answer):
            self.sidebar.set_pending(message.numbers)

    @acknowledges
    async def on_answer_reset(self, message: AnswerReset) -> None:
        answer, event = message.answer, message.event
        view = self._take(answer, event)
        if view is None:
            return
        await view.withdraw(event)
        if self.session.is_current(answer):
            self.sidebar.set_pending({})  # the turn after a reset numbers its citations from 1 again
            word = "safety check" if event.reason == "safety" else "looking something up"
            self.status.set_phase(f"↺ Text withdrawn ({word})", short="↺ Withdrawn", busy=True)

    @acknowledges
    async def on_answer_ended(self, message: AnswerEnded) -> None:
        answer, end = message.answer, message.event
        for event in message.skipped:
            self.event_log.add(event, answer=answer.number)
        view = self._take(answer, end, last=True)
        if not self.is_running:  # the app is closing: nothing left to draw into
            return
        if view is not None:
            # Text read behind the end is appended at once (the streaming path, cheap) so that the end only
            # patches markers in place; one frame shows both, none comes in between.
            from hippo_tui.ui.event_batches import text_runs

            release = hold_collections()  # the final frame first, the garbage collector after it
            try:
                with self.batch_update():
                    for run in text_runs(message.skipped):
                        await view.append(run)
                    await view.finish(end)
            finally:
                self.call_after_refresh(release)
        was_writing = self._release_prompt(answer)
        self.session.finish(answer, end, shown_text(end))
        if end.outcome == "cancelled":
            if was_writing:  # stopped by the engine, not by Esc (which has given the question back)
                self._show_cancelled(answer)
        elif view is not None and self.session.is_current(answer):
            self.status.show_end(end)
            # The verified answer is painted first; the sidebar's marks follow right after that frame
            # (re-mounting the sidebar made the reader wait for the answer's own marks).
            self.call_after_refresh(self._show_verified_sources, answer, end)
            if end.outcome == "withdrawn":
                self.notify(
                    f"The answer was withdrawn by the safety check. The audit panel ({self._key_for('show_audit')}) says why.",
                    title="Answer withdrawn",
                    severity="warning",
                )
        self.refresh_bindings()

    async def _show_verified_sources(self, answer: Answer, end: EndEvent) -> None:
        if self.session.is_current(answer):  # not once a newer question owns the sidebar
            await self.sidebar.show_verified(end)

    @acknowledges
    async def on_answer_failed(self, message: AnswerFailed) -> None:
        answer, error = message.answer, message.event
        view = self._take(answer, error, last=True)
        if not self.is_running:
            return
        # An error the session made up (a stream cut, an engine bug) has no text: what is shown stays.
        if view is not None:
            await view.fail(error, error.partial_text or None)
        was_writing = self._release_prompt(answer)
        shown = error.partial_text or (view.display_text if view is not None else "")
        self.session.finish(answer, error, shown)
        if was_writing and not self.prompt.value:
            self.prompt.give_back(answer.question)  # ready to retry
        self.notify(
            error_text(error, self._key_for("switch_model")),
            title=f"Error ({error.kind.replace('_', ' ')})",
            severity="error",
            timeout=20,
        )
        if self.session.is_current(answer):
            message_text = one_line(error.message) or error.kind
            self.status.set_phase(f"✗ Error: {message_text}", short="✗ Error", error=True)
        self.refresh_bindings()

    def _release_prompt(self, answer: Answer) -> bool:
        """The prompt is free again once ``answer`` no longer writes; True when it held it until now."""
        if not self.session.release(answer):
            return False
        self.prompt.release()
        self.refresh_bindings()
        return True

    def _show_cancelled(self, answer: Answer) -> None:
        self.prompt.release()
        self.prompt.give_back(answer.question)
        self.status.set_phase("✗ Cancelled — the question is back in the prompt", short="✗ Cancelled")

    # ------------------------------------------------------------------ actions

    async def action_cancel(self) -> None:
        """Esc: the engine stops the answer being written (its cancelled end then shows it as stopped);
        the question comes back into the prompt at once."""
        answer = await self.session.cancel()
        if answer is not None:
            self._show_cancelled(answer)
            self.refresh_bindings()

    def _overlay_open(self) -> bool:
        return self.screen_stack[0].has_class("-narrow") and self.query_one("#main").has_class(
            "-sidebar-open"
        )

    def action_scroll_answers(self, direction: int) -> None:
        # Thin terminals: the sources overlay covers the answers, so the page keys scroll what is seen.
        target = self.sidebar if self._overlay_open() else self.pane
        if direction < 0:
            target.scroll_page_up(animate=False)
        else:
            target.scroll_page_down(animate=False)

    def action_toggle_sidebar(self) -> None:
        main = self.query_one("#main")
        if self.screen_stack[0].has_class("-narrow"):
            main.toggle_class("-sidebar-open")
        else:
            main.toggle_class("-sidebar-hidden")

    async def action_new_conversation(self) -> None:
        if self.session.active is not None:
            await self.action_cancel()
            self.prompt.value = ""
        await self.session.new_conversation()
        await self.pane.clear("New conversation. Earlier answers are forgotten.")
        await self.sidebar.clear()
        self.status.set_phase("New conversation", short="New conversation")
        self.refresh_bindings()

    def action_toggle_contrast(self) -> None:
        self.theme = themes.toggled_contrast(self.theme)

    def action_show_help(self) -> None:
        from hippo_tui.ui.screens.help import HelpScreen  # each panel loads when first opened (start-up)

        self.push_screen(HelpScreen(self.key_table()))

    async def action_show_audit(self) -> None:
        latest = self.session.latest
        if latest is not None and latest.cancelled and not latest.done:
            # Just cancelled: its record is final once its end arrives; wait off the message loop.
            self.run_worker(self._open_audit(), name="audit", group="audit", exclusive=True)
        else:
            await self._open_audit()

    async def _open_audit(self) -> None:
        from hippo_tui.ui.screens.audit import AuditScreen

        audit_id = await self.session.latest_audit_id()
        record = None
        if audit_id is not None and self.engine is not None:
            try:
                record = await self.engine.get_answer(audit_id)
            except Exception as e:
                self.notify(f"Could not read the audit record: {one_line(str(e))}", severity="error")

        self.push_screen(AuditScreen(record))

    def action_show_dashboard(self) -> None:
        if self.engine is None:
            self.notify("The engine is not ready yet.", severity="warning")
            return
        from hippo_tui.ui.screens.dashboard import DashboardScreen

        self.push_screen(DashboardScreen(self.engine))

    def action_show_inspector(self) -> None:
        from hippo_tui.ui.screens.inspector import InspectorScreen

        self.push_screen(InspectorScreen(self.event_log))

    def action_edit_prompt(self) -> None:
        from hippo_tui.ui.screens.prompt_editor import PromptEditorScreen

        conversation = self.session.conversation
        if self.engine is None or conversation is None:
            self.notify("The engine is not ready yet.", severity="warning")
            return

        screen = PromptEditorScreen(conversation.system_prompt, self.engine.default_system_prompt)
        self.push_screen(screen, callback=self._prompt_edited)

    def _saved_prompt(self) -> str | None:
        """A prompt saved from the editor applies at startup unless the settings name one."""
        try:
            return saved_prompt(self.settings)
        except OSError as e:
            self.notify(f"Could not read the saved system prompt: {e}", severity="warning")
            return None

    async def _prompt_edited(self, text: str | None) -> None:
        conversation = self.session.conversation
        if text is None or self.engine is None or conversation is None:
            return
        try:
            await conversation.set_system_prompt(text)
        except Exception as e:
            self.notify(f"The system prompt was not changed: {one_line(str(e))}", severity="error")
            return
        try:
            where = save_prompt(self.settings, text, self.engine.default_system_prompt)
        except OSError as e:
            self.notify(f"Applies to the next question, but could not be saved: {e}", severity="warning")
            return
        self.notify(f"System prompt applies to the next question; {where}.", title="System prompt")

    def action_switch_model(self) -> None:
        from hippo_tui.ui.screens.endpoint import EndpointScreen

        if self.engine is None:
            self.notify("The engine is not ready yet.", severity="warning")
            return
        s = self.settings

        screen = EndpointScreen(s.resolved_backend(), s.base_url, s.model, bool(s.api_key))
        self.push_screen(screen, callback=self._endpoint_chosen)

    def _endpoint_chosen(self, values: dict[str, Any] | None) -> None:
        if values:
            self.run_worker(self._reconfigure(values), name="reconfigure", exit_on_error=False)

    async def _reconfigure(self, values: dict[str, Any]) -> None:
        if self.engine is None:
            return
        try:
            await self.engine.reconfigure(
                base_url=values.get("base_url"),
                model=values.get("model"),
                api_key=values.get("api_key"),
                backend=values.get("backend"),
            )
        except Exception as e:
            self.notify(
                f"{one_line(str(e))}\nCheck the URL, model and key.",
                title="Model not switched",
                severity="error",
            )
            return
        mirror_endpoint(self.settings, values)
        await self._refresh_info()
        # Messages about the old endpoint ("cannot connect to …") no longer hold: do not leave them up.
        self.clear_notifications()
        self.notify(f"Now using {self.status.model} ({self.status.backend}).")

    def action_copy_answer(self) -> None:
        if not self.turns:
            self.notify("No answer to copy yet.")
            return
        from hippo_tui.export import answer_with_citations

        text = answer_with_citations(self.turns[-1])
        self.copy_to_clipboard(text)
        self.notify(f"Copied the answer and its citations ({len(text)} characters).")

    def action_export(self, fmt: str = "markdown") -> None:
        if not self.turns:
            self.notify("Nothing to export yet.")
            return
        from hippo_tui.ui.exporting import write_export

        folder = self.settings.data_dir() / "exports"
        try:
            path = write_export(self.turns, folder, as_json=fmt == "json")
        except OSError as e:
            self.notify(f"Could not write to {folder}: {e}", title="Export failed", severity="error")
            return
        count = len(self.turns)
        self.notify(f"Exported {count} answer{'s' if count != 1 else ''} to {path}", title="Exported")

    async def on_unmount(self) -> None:
        if self.engine is not None:
            try:
                await self.engine.close()
            except Exception:
                pass


def run_app(settings: Settings) -> int:
    """Run the app on this terminal; the exit code for the CLI."""
    app = HippoApp(settings, settle_heap=True)
    app.run()
    return app.return_code or 0
