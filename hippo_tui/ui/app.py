"""The Textual app: the main screen, the ask worker, keys, commands and the wiring to the panels.

The app consumes engine events only (events.py) and never parses model output. One worker per answer
consumes its events; the prompt comes back at phase "checking" while the same worker finishes
verification in the background, so a new question never cancels the previous verification.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Footer, Input
from textual.worker import Worker

from hippo_tui.citations import finalize_markers
from hippo_tui.config import Settings
from hippo_tui.events import (
    EndEvent,
    ErrorEvent,
    Event,
    ResetEvent,
    SourcesEvent,
    TextEvent,
    ThinkingEvent,
)
from hippo_tui.export import Turn, answer_with_citations, to_json, to_markdown
from hippo_tui.ui.event_log import EventLog
from hippo_tui.ui.widgets.answer import AnswerPane, TurnView, verification_line
from hippo_tui.ui.widgets.prompt import PromptInput
from hippo_tui.ui.widgets.safe import one_line
from hippo_tui.ui.widgets.sources import SourcesPanel
from hippo_tui.ui.widgets.status import SHORT_PHASE, StatusBar

HIGH_CONTRAST = Theme(
    name="hippo-high-contrast",
    primary="#ffff00",
    secondary="#00ffff",
    accent="#ffff00",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1a1a1a",
    success="#00ff00",
    warning="#ffff00",
    error="#ff5555",
    dark=True,
)
# "ansi" uses the terminal's own 16 colours (what a 16-colour terminal or a user's palette shows).
THEME_ALIASES = {"high-contrast": HIGH_CONTRAST.name, "ansi": "ansi-dark"}

NARROW = 80  # columns: below this the sidebar is an overlay, the status bar and the footer shorten
PROMPT_FILE = "system_prompt.md"
PLACEHOLDER = "Ask a question…"
QUEUED = "Starting… your question will be asked when the knowledge base is open"

EngineFactory = Callable[[Settings], Awaitable[Any]]
# Errors the model/endpoint switcher can fix, so the notification points at it too.
SWITCHABLE_ERRORS = {"connection", "auth", "not_found", "rate_limit", "server"}


@dataclass
class _Run:
    """One answer being consumed: its view, its worker and where it is."""

    question: str
    view: TurnView
    conversation: int
    number: int = 0  # the n-th question of the session: its key in the event log
    worker: Worker[None] | None = None
    writing: bool = True  # until phase "checking" (or the end): the prompt is taken meanwhile
    done: bool = False
    raw: str = ""  # released text with its markers (``TextEvent.delta``), withdrawn parts removed

    def withdraw(self, reset: ResetEvent) -> None:
        cut = len(reset.withdrawn)
        self.raw = self.raw[:-cut] if cut else self.raw

    @property
    def unverified_text(self) -> str:
        """What was released, with every citation marker removed: none of them was checked."""
        return finalize_markers(self.raw, {})


class HippoApp(App[int]):
    """hippo-tui: ask, watch the answer stream, see which citations were verified."""

    CSS_PATH = "app.tcss"
    TITLE = "hippo-tui"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (NARROW, "-wide")]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-short"), (30, "-tall")]
    ENABLE_COMMAND_PALETTE = True

    # Binding ids are the action names, so `settings.keys = {"toggle_sidebar": "f2"}` re-maps a key.
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("escape", "cancel", "Cancel", id="cancel"),  # first: it matters most while an answer runs
        Binding("f1", "show_help", "Help", id="show_help"),
        Binding("ctrl+b,f2", "toggle_sidebar", "Sources", id="toggle_sidebar"),
        Binding("f3", "show_audit", "Audit", id="show_audit"),
        Binding("f7", "copy_answer", "Copy", id="copy_answer"),
        # Last: at 40 columns after an answer, the key cut short is the one needed least (F1 lists it).
        Binding("ctrl+n", "new_conversation", "New", id="new_conversation"),
        # Reached from help (F1) and the palette; kept out of the footer so it fits 80 columns.
        Binding("f4", "show_inspector", "Events", id="show_inspector", show=False),
        Binding("f5", "edit_prompt", "Prompt", id="edit_prompt", show=False),
        Binding("f6", "switch_model", "Model", id="switch_model", show=False),
        Binding("f8", "export", "Export", id="export", show=False),
        Binding("f9", "show_dashboard", "Dashboard", id="show_dashboard", show=False),
        # The prompt keeps focus; these scroll the answers from there.
        Binding("pageup", "scroll_answers(-1)", "Scroll up", id="scroll_up", show=False),
        Binding("pagedown", "scroll_answers(1)", "Scroll down", id="scroll_down", show=False),
    ]

    # (action, palette title, help) — every action is reachable from the command palette.
    COMMANDS_TABLE: ClassVar[list[tuple[str, str, str]]] = [
        ("show_help", "Help: keys", "Show the keys and what they do"),
        ("cancel", "Cancel answer", "Stop the answer being written; the question comes back"),
        ("toggle_sidebar", "Toggle sources", "Show or hide the sources sidebar"),
        ("new_conversation", "New conversation", "Forget earlier turns and start again"),
        (
            "show_audit",
            "Audit citations",
            "Every citation attempt of the latest answer, with status and reason",
        ),
        (
            "show_dashboard",
            "Audit dashboard",
            "Per model or day: flagged, ungrounded, unchecked; retired sources; the most failed answers",
        ),
        ("show_inspector", "Event inspector", "Raw events with timestamps and timings"),
        ("edit_prompt", "Edit system prompt", "Change the system prompt for the next question"),
        ("switch_model", "Switch model or endpoint", "Pick the backend, server, model and key"),
        ("copy_answer", "Copy answer", "Copy the latest answer with its citation list"),
        ("export", "Export conversation (Markdown)", "Write the conversation to a Markdown file"),
        ("export('json')", "Export conversation (JSON)", "Write the conversation to a JSON file"),
        ("toggle_contrast", "Toggle high-contrast theme", "Switch between the default and high contrast"),
    ]

    def __init__(
        self,
        settings: Settings,
        *,
        engine: Any = None,
        animate: bool = True,
        engine_factory: EngineFactory | None = None,
    ) -> None:
        """``engine_factory`` opens the engine after the first frame when ``engine`` is None
        (default: ``hippo_tui.engine.Engine.create``)."""
        super().__init__()
        self.settings = settings
        self.engine: Any = engine
        self._engine_factory = engine_factory
        self._queued: str | None = None  # asked before the engine was ready: asked once it is
        self.animate = animate
        self.event_log = EventLog()
        self.turns: list[Turn] = []
        self._active: _Run | None = None  # the answer being written (holds the prompt)
        self._latest: _Run | None = None  # the answer the sidebar and status bar follow
        self._runs: list[_Run] = []
        self._linking: Worker[None] | None = None  # finding a cancelled answer's audit record
        self._conversation = 0
        self._asked = 0
        self.register_theme(HIGH_CONTRAST)
        self._unknown_theme = ""
        if settings.theme:
            name = THEME_ALIASES.get(settings.theme, settings.theme)
            if name in self.available_themes:
                self.theme = name
            else:
                self._unknown_theme = settings.theme

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield AnswerPane(id="answers")
            yield SourcesPanel(id="sidebar")
        yield StatusBar(animate=self.animate, id="status")
        yield PromptInput(id="prompt", blink=self.animate)
        yield Footer()

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
        keys = {action: key for action, key in self.settings.keys.items() if action in self._binding_ids()}
        if keys:
            self.set_keymap(keys)
        unknown = sorted(set(self.settings.keys) - set(keys))
        if unknown:
            self.notify(f"Unknown actions in settings.keys: {', '.join(unknown)}", severity="warning")
        if self._unknown_theme:
            names = ", ".join(["high-contrast", "ansi", *sorted(self.available_themes)])
            self.notify(f"Unknown theme '{self._unknown_theme}'; one of: {names}", severity="warning")
        self.sidebar.audit_key = self._key_for("show_audit")
        self.status.sources_key = self._key_for("toggle_sidebar")
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

    def on_resize(self, event: events.Resize) -> None:
        # Thin terminals: keys without the padding between them, so Copy and Audit fit in 40 columns.
        footer = self.query_one(Footer)
        wide = event.size.width >= NARROW
        if footer.show_command_palette != wide:
            footer.compact = not wide
            footer.show_command_palette = wide  # thin: F1 lists ^p with the other keys
            footer.refresh(recompose=True)

    def _start_engine(self) -> None:
        self.run_worker(self._create_engine(), name="engine", exit_on_error=False)

    async def _create_engine(self) -> None:
        try:
            # Imported in a thread: the engine pulls in the model client (half a second of imports),
            # which must neither delay the first frame nor freeze the spinner.
            if self._engine_factory is not None:
                self.engine = await self._engine_factory(self.settings)
            else:
                module = await asyncio.to_thread(importlib.import_module, "hippo_tui.engine")
                self.engine = await module.Engine.create(self.settings)
        except Exception as e:
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
            return
        await self._engine_ready()

    async def _engine_ready(self) -> None:
        self._load_saved_prompt()
        await self._refresh_info()
        self.status.set_phase("Ready", short="Ready")
        self.prompt.disabled = False
        if self.prompt.placeholder == QUEUED:
            self.prompt.placeholder = PLACEHOLDER
        if self.screen is self.screen_stack[0]:
            self.prompt.focus()
        question, self._queued = self._queued, None
        if question is not None:
            await self.ask(question)

    def _queue(self, question: str) -> None:
        """Enter before the engine is open: keep the question and ask it once the engine is ready."""
        if self._queued is not None:
            self.notify(f"Still starting: “{one_line(self._queued, 60)}” is waiting to be asked.")
            return
        self._queued = question
        self.prompt.remember(question)
        self.prompt.value = ""
        self.prompt.placeholder = QUEUED
        self.status.set_phase(QUEUED, short="Starting… (queued)", busy=True)

    def _unqueue(self) -> None:
        """The engine could not open: a waiting question goes back into the prompt."""
        question, self._queued = self._queued, None
        self.prompt.placeholder = PLACEHOLDER
        if question is not None and not self.prompt.value:
            self.prompt.value = question
            self.prompt.cursor_position = len(question)

    async def _refresh_info(self) -> None:
        engine = self.engine
        kb = ""
        store = getattr(engine, "store", None)
        if store is not None:
            try:
                kb = f"{store.kb_name} ({await store.count()})"
            except Exception:
                kb = str(getattr(store, "kb_name", ""))
        self.status.set_info(backend=str(engine.backend_label), model=str(engine.model), kb=kb)

    def _binding_ids(self) -> set[str]:
        return {b.id for b in self.BINDINGS if isinstance(b, Binding) and b.id}

    def _key_for(self, action: str) -> str:
        """The key currently bound to an action, as a user would type it."""
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.id == action:
                keys = self._keymap.get(action, binding.key)
                return self.get_key_display(Binding(keys.split(",")[0], action))
        return ""

    def key_table(self) -> list[tuple[str, str]]:
        """(key, what it does) for the help screen, with any re-mapped keys."""
        rows = [
            ("Enter", "Ask the question"),
            ("↑ / ↓", "Previous / next question"),
            ("PgUp / PgDn", "Scroll the answers (or the sources over them)"),
        ]
        for action, title, _help in self.COMMANDS_TABLE:
            key = self._key_for(action)
            if key:
                rows.append((key, title))
        # Shown the way the other keys are (``^p``), not as typed in a binding.
        for key, title in (("ctrl+p", "Command palette (every action)"), ("ctrl+q", "Quit")):
            rows.append((self.get_key_display(Binding(key, "noop")), title))
        return rows

    # ------------------------------------------------------------------ keys, footer, palette

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys that do nothing right now, so the footer shows the ones that matter."""
        if action == "cancel":
            return self._active is not None
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
        if self._active is not None:
            self.notify("An answer is still being written: wait for it, or press Esc to cancel it.")
            return
        if self.engine is None:
            self._queue(question)
            return
        self.prompt.remember(question)
        self.prompt.value = ""
        await self.ask(question)

    async def ask(self, question: str) -> None:
        """Start one answer: a new turn in the pane, a fresh sidebar, and a worker consuming its events."""
        view = await self.pane.add_turn(question)
        await self.sidebar.clear()
        self.status.sources = 0
        self._asked += 1
        run = _Run(question=question, view=view, conversation=self._conversation, number=self._asked)
        self._active = self._latest = run
        self._runs.append(run)
        self.status.set_phase("Searching…", short="Searching…", busy=True)
        self.prompt.disabled = True
        self.prompt.placeholder = f"Answering… {self._key_for('cancel')} cancels"
        run.worker = self.run_worker(
            self._consume(run), name=f"answer-{self._asked}", group="answers", exit_on_error=False
        )
        self.refresh_bindings()

    async def _consume(self, run: _Run) -> None:
        events = self.engine.ask(run.question)
        try:
            try:
                async for event in events:
                    # Keyed by answer: a new question may start while this one still verifies.
                    self.event_log.add(event, answer=run.number)
                    await self._apply(run, event)
            finally:
                # Esc may land while an event is being drawn rather than inside the engine: close the
                # stream now, so the engine writes its "cancelled" record at once, not at garbage collection.
                close = getattr(events, "aclose", None)
                if close is not None:
                    await close()
            if not run.done:
                await self._on_error(
                    run,
                    ErrorEvent(
                        kind="stream_cut",
                        message="The answer stopped without an end.",
                        action="Ask again; if it keeps happening, pick another model (F6).",
                    ),
                )
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an engine bug must not take the app down or keep the prompt
            await self._on_error(
                run,
                ErrorEvent(
                    kind="internal",
                    message=f"{type(e).__name__}: {e}",
                    action="Ask again; the event inspector (F4) shows what happened.",
                ),
            )
        finally:
            if run in self._runs:
                self._runs.remove(run)

    def _current(self, run: _Run) -> bool:
        """Whether this answer still owns the sidebar and status bar (a newer one takes them over)."""
        return run is self._latest and run.conversation == self._conversation

    async def _apply(self, run: _Run, event: Event) -> None:
        if not run.view.is_attached:  # pruned or a new conversation: nothing left to draw into
            if isinstance(event, EndEvent | ErrorEvent):
                run.done = True
            return
        current = self._current(run)
        if isinstance(event, ThinkingEvent):
            if event.phase == "checking":
                self._release_prompt(run)
            if current:
                self.status.set_phase(event.text, short=SHORT_PHASE.get(event.phase, ""), busy=True)
        elif isinstance(event, SourcesEvent):
            if current:
                await self.sidebar.add_previews(event.sources)
                self.status.sources = len(self.sidebar.previews)
        elif isinstance(event, TextEvent):
            run.raw += event.delta
            await run.view.append(event.display)
        elif isinstance(event, ResetEvent):
            run.withdraw(event)
            await run.view.withdraw(event)
            if current:
                word = "safety check" if event.reason == "safety" else "looking something up"
                self.status.set_phase(f"↺ Text withdrawn ({word})", short="↺ Withdrawn", busy=True)
        elif isinstance(event, EndEvent):
            await self._on_end(run, event)
        elif isinstance(event, ErrorEvent):
            await self._on_error(run, event)

    async def _on_end(self, run: _Run, end: EndEvent) -> None:
        run.done = True
        await run.view.finish(end)
        if run.conversation == self._conversation:
            self.turns.append(Turn(run.question, end.text, list(end.citations), end.outcome, end.audit_id))
        self._release_prompt(run)
        if self._current(run):
            await self.sidebar.show_verified(end)
            if end.outcome == "withdrawn":
                self.status.set_phase("✗ Answer withdrawn by the safety check", short="✗ Withdrawn")
                self.notify(
                    f"The answer was withdrawn by the safety check. The audit panel ({self._key_for('show_audit')}) says why.",
                    title="Answer withdrawn",
                    severity="warning",
                )
            elif end.verification.note:
                self.status.set_phase(
                    f"⚠ {verification_line(end)}", short=f"⚠ {one_line(end.verification.note)}"
                )
            else:
                line = verification_line(end)
                v = end.verification
                mark = "✓ " if end.citations else ""
                short = f"✓ {v.grounded}/{v.attempted} verified" if v.attempted else line
                self.status.set_phase(f"{mark}{line}", short=short)
        self.refresh_bindings()

    async def _on_error(self, run: _Run, error: ErrorEvent) -> None:
        run.done = True
        await run.view.fail(error, run.unverified_text)
        if run.conversation == self._conversation:
            self.turns.append(Turn(run.question, run.view.display_text, [], "error", error.audit_id))
        was_writing = self._active is run
        self._release_prompt(run)
        if was_writing and not self.prompt.value:
            self.prompt.value = run.question  # the question comes back, ready to retry
            self.prompt.cursor_position = len(run.question)
        message = one_line(error.message) or error.kind
        lines = [message, one_line(error.action)]
        if error.kind in SWITCHABLE_ERRORS:
            lines.append(f"In the app: {self._key_for('switch_model')} switches the model or endpoint.")
        self.notify(
            "\n".join(line for line in lines if line),
            title=f"Error ({error.kind.replace('_', ' ')})",
            severity="error",
            timeout=20,
        )
        if self._current(run):
            self.status.set_phase(f"✗ Error: {message}", short="✗ Error", error=True)
        self.refresh_bindings()

    def _release_prompt(self, run: _Run) -> None:
        if self._active is run:
            self._active = None
            run.writing = False
            self.prompt.disabled = False
            self.prompt.placeholder = PLACEHOLDER
            self.prompt.focus()
            self.refresh_bindings()

    # ------------------------------------------------------------------ actions

    async def action_cancel(self) -> None:
        """Esc: stop the answer being written, record it as cancelled, give the question back."""
        run = self._active
        if run is None:
            return
        self._active = None
        run.done = True
        if run.worker is not None:
            run.worker.cancel()
        self.event_log.close_answer(run.number)
        await run.view.cancel(run.unverified_text)
        turn = Turn(run.question, run.view.display_text, [], "cancelled", None)
        self.turns.append(turn)
        self._linking = self.run_worker(
            self._link_cancelled(run, turn), name="link-cancelled", exit_on_error=False
        )
        self.prompt.disabled = False
        self.prompt.placeholder = PLACEHOLDER
        self.prompt.value = run.question
        self.prompt.cursor_position = len(run.question)
        self.prompt.focus()
        self.status.set_phase("✗ Cancelled — the question is back in the prompt", short="✗ Cancelled")
        self.refresh_bindings()

    async def _link_cancelled(self, run: _Run, turn: Turn) -> None:
        """Find the audit record the engine wrote for a cancelled answer, for the audit panel and exports.

        No event carries its id (the stream was cut), so once the worker has stopped the newest records
        are read back and matched on question and outcome.
        """
        if run.worker is not None:
            try:
                await run.worker.wait()
            except Exception:
                pass  # WorkerCancelled is the expected way out
        store = getattr(self.engine, "store", None)
        if store is None or not hasattr(store, "list_answers"):
            return
        try:
            records = await store.list_answers(limit=5)
        except Exception:
            return  # the panel then shows the previous answer's record; nothing is lost from the audit
        known = {t.audit_id for t in self.turns}
        for record in records:
            if record.question == run.question and record.outcome == "cancelled" and record.id not in known:
                turn.audit_id = record.id
                return

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
        if self._active is not None:
            await self.action_cancel()
            self.prompt.value = ""
        self._conversation += 1
        self._latest = None
        self.turns = []
        if self.engine is not None:
            self.engine.new_conversation()
        await self.pane.clear("New conversation. Earlier answers are forgotten.")
        await self.sidebar.clear()
        self.status.set_phase("New conversation", short="New conversation")
        self.refresh_bindings()

    def action_toggle_contrast(self) -> None:
        self.theme = "textual-dark" if self.theme == HIGH_CONTRAST.name else HIGH_CONTRAST.name

    def action_show_help(self) -> None:
        from hippo_tui.ui.screens.help import HelpScreen  # each panel loads when first opened (start-up)

        self.push_screen(HelpScreen(self.key_table()))

    async def action_show_audit(self) -> None:
        linking = self._linking
        if linking is not None and linking.is_running:
            try:
                await linking.wait()  # a just-cancelled answer: show its record, not the one before
            except Exception:
                pass
        audit_id = next((t.audit_id for t in reversed(self.turns) if t.audit_id is not None), None)
        record = None
        if audit_id is not None and self.engine is not None:
            try:
                record = await self.engine.store.get_answer(audit_id)
            except Exception as e:
                self.notify(f"Could not read the audit record: {one_line(str(e))}", severity="error")
        from hippo_tui.ui.screens.audit import AuditScreen

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
        if self.engine is None:
            self.notify("The engine is not ready yet.", severity="warning")
            return
        from hippo_tui.ui.screens.prompt_editor import PromptEditorScreen

        screen = PromptEditorScreen(self.engine.system_prompt, self.engine.default_system_prompt)
        self.push_screen(screen, callback=self._prompt_edited)

    def _prompt_file(self) -> Path:
        return self.settings.data_dir() / PROMPT_FILE

    def _load_saved_prompt(self) -> None:
        """A prompt saved from the editor applies at startup unless the settings name one."""
        path = self._prompt_file()
        if self.settings.system_prompt is None and path.is_file():
            try:
                self.engine.system_prompt = path.read_text(encoding="utf-8")
            except OSError as e:
                self.notify(f"Could not read the saved system prompt {path}: {e}", severity="warning")

    def _prompt_edited(self, text: str | None) -> None:
        if text is None:
            return
        self.engine.system_prompt = text
        path = self._prompt_file()
        try:
            if text == self.engine.default_system_prompt:
                path.unlink(missing_ok=True)
                where = "the default is restored"
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                where = f"saved to {path}"
        except OSError as e:
            self.notify(f"Applies to the next question, but could not be saved: {e}", severity="warning")
            return
        self.notify(f"System prompt applies to the next question; {where}.", title="System prompt")

    def action_switch_model(self) -> None:
        if self.engine is None:
            self.notify("The engine is not ready yet.", severity="warning")
            return
        s = self.settings
        from hippo_tui.ui.screens.endpoint import EndpointScreen

        screen = EndpointScreen(s.resolved_backend(), s.base_url, s.model, bool(s.api_key))
        self.push_screen(screen, callback=self._endpoint_chosen)

    def _endpoint_chosen(self, values: dict[str, Any] | None) -> None:
        if values:
            self.run_worker(self._reconfigure(values), name="reconfigure", exit_on_error=False)

    async def _reconfigure(self, values: dict[str, Any]) -> None:
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
        # Mirror what the engine now uses; an empty key field means "keep the current key".
        try:
            for key in ("backend", "base_url", "model"):
                if key in values:
                    setattr(self.settings, key, values[key])
            if values.get("api_key"):
                self.settings.api_key = values["api_key"]
        except ValueError:
            pass
        await self._refresh_info()
        # Messages about the old endpoint ("cannot connect to …") no longer hold: do not leave them up.
        self.clear_notifications()
        self.notify(
            f"Now using {one_line(str(self.engine.model))} ({one_line(str(self.engine.backend_label))})."
        )

    def action_copy_answer(self) -> None:
        if not self.turns:
            self.notify("No answer to copy yet.")
            return
        text = answer_with_citations(self.turns[-1])
        self.copy_to_clipboard(text)
        self.notify(f"Copied the answer and its citations ({len(text)} characters).")

    def action_export(self, fmt: str = "markdown") -> None:
        if not self.turns:
            self.notify("Nothing to export yet.")
            return
        as_json = fmt == "json"
        folder = self.settings.data_dir() / "exports"
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        suffix = "json" if as_json else "md"
        path = folder / f"conversation-{stamp}.{suffix}"
        n = 1
        while path.exists():  # two exports in the same second must not overwrite each other
            n += 1
            path = folder / f"conversation-{stamp}-{n}.{suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(to_json(self.turns) if as_json else to_markdown(self.turns), encoding="utf-8")
        except OSError as e:
            self.notify(f"Could not write {path}: {e}", title="Export failed", severity="error")
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
    app = HippoApp(settings)
    app.run()
    return app.return_code or 0
