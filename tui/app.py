"""The Contextual app: one screen of four regions (chat, live scratchpad, history as stored, token meter); below
100 columns one region at a time, chosen by tabs.

This module orchestrates only: a turn's events are consumed in a worker (``turn`` group, one at a time) and routed
by ``EventRouter`` onto the surfaces this app provides (``tui.surfaces.Surfaces``); the slash commands are handler
objects in ``tui.commands``' table, talking to the app through ``tui.slash.port.AppPort``; screens and widgets are
in their own modules.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Tab, Tabs, TextArea
from textual.worker import Worker, WorkerError, WorkerState

from contextual.core import secrets, tokens
from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.core.plural import plural
from contextual.core.textsafe import valid_unicode
from contextual.tui import commands
from contextual.tui.contrast import ReadableText
from contextual.tui.format import mode_line, unparsed
from contextual.tui.hangup import quit_on_signals
from contextual.tui.host import Host, Opened, undoable_turns_of
from contextual.tui.layout import Regions
from contextual.tui.palette import Palette, SlashCommands
from contextual.tui.prompt_view import Shown, next_prompt
from contextual.tui.resume_hint import resume_line
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.settings import Remembered
from contextual.tui.queued import SENDS_NEXT, Queued
from contextual.tui.slash.memory import ask_and_remember, is_memory
from contextual.tui.startup import Startup
from contextual.tui.slash.context_tools import pinned_ids, toggle_pin, with_pins
from contextual.tui.slash.files import run_shell
from contextual.tui.slash.model import how_to_configure
from contextual.tui.slash.reading import open_message, open_tool_result
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView, summary_numbers
from contextual.tui.widgets.prompt_input import PromptBox, PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView, recorded_turns
from contextual.tui.widgets.status_line import StatusLine
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.top_bar import TopBar
from contextual.tui.widgets.welcome import Welcome

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.session.schema import CompactionRecord
    from contextual.core.agent import Engine
    from contextual.core.custom_commands import CustomCommand
    from contextual.tui.router import EventRouter
    from contextual.core.prompt import PromptView

QUIT_AGAIN_WITHIN = 3.0            # seconds: a second ctrl+c when idle quits
REWIND_WITHIN = 0.8                # seconds: esc twice on an empty input when idle opens /rewind (as in Claude Code)
MAIN_ONLY = {"compact", "open_stored_full", "resume", "context", "toggle_region", "resize_side", "cancel_turn",
             "rewind"}


class ContextualApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "Contextual"
    # Screens under 120 columns or 30 rows get -narrow / -short, by which a dialog spans them (app.tcss); under 70
    # also -slim, where the footer's palette key goes (docked right, it covered the keys under it); under 20 -tiny,
    # where scrollbars go (a scrollbar taking a column re-wrapped the chat, which hid it again)
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (20, "-slim"), (70, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-low"), (20, "-short"), (30, "-tall")]     # -low: a dialog keeps its buttons
    COMMANDS = {SlashCommands} | App.COMMANDS
    BINDINGS = [
        # not in the footer: idle it interrupts nothing, and a running turn's status line says "esc to interrupt"
        # (at 80 columns the footer's keys then fit beside a pane's own: "^r res" was cut under the palette key)
        Binding("escape", "cancel_turn", "interrupt", show=False),
        Binding("ctrl+c", "interrupt_or_quit", "interrupt/quit", show=False, priority=True),
        Binding("ctrl+k", "compact", "compact", priority=True),
        Binding("ctrl+l", "context", "context"),
        Binding("ctrl+r", "resume", "resume"),
        Binding("ctrl+o", "open_stored_full", "stored vs full", show=False),
        Binding("f2", "toggle_region('chat')", "chat", show=False),
        Binding("f3", "toggle_region('scratchpad')", "scratchpad", show=False),
        Binding("f4", "toggle_region('history')", "history", show=False),
        # priority: the input (a TextArea) would take f6 for its select-line
        Binding("f6", "resize_side", "resize", show=False, priority=True),
        Binding("ctrl+q", "quit", "quit", priority=True),
        # priority: Textual's own shift+tab moves the focus back; on the main screen it cycles the mode
        Binding("shift+tab", "cycle_mode", "mode", show=False, priority=True),
    ]

    def __init__(self, host: Host, opened: Opened | None = None, *, animate: bool = True,
                 open_after_first_frame: bool = False, resume: Path | None = None,
                 quit_on_hangup: bool = False) -> None:
        super().__init__()
        self.host = host
        self.quit_on_hangup = quit_on_hangup     # the launch: SIGHUP / SIGTERM end it as a quit (tui/hangup.py)
        # open_after_first_frame (the launch): the engine opens once the first frame is on screen (on_ready); its
        # imports, and a resumed session's whole record (`resume`: its file), are most of a launch. The first
        # frame of a resumed one shows the end of its record (host.preview). Else it opens now, and mounting
        # shows it.
        self.startup = Startup(self, resume)
        deferred = open_after_first_frame or resume is not None
        self.opened: Opened | None = opened or (None if deferred else host.new_engine())
        self.animated = animate       # not `animate`: that is Textual's own method
        self._router: EventRouter | None = None
        self.remembered = Remembered(self.config.home, self.config.project_root, on_problem=self.not_remembered)
        self.regions = Regions()
        self._quit_armed_at = 0.0
        self._esc_at = 0.0
        self.shown: Shown | None = None
        self.last_sent: Shown | None = None       # the prompt of the latest model call
        self.unsent = ""                           # typed before any model was chosen (/model gives it back)
        self.queued = Queued()                     # typed while a turn runs: sent when it finishes
        self.resume_hint: str | None = None         # set at quit: what launch prints once the terminal is back
        self._loading_theme = True
        self._readable = ReadableText()

    def get_line_filters(self) -> Sequence[LineFilter]:
        # last: it reads the colours the other filters (ANSI to truecolor) leave
        return [*super().get_line_filters(), self._readable]

    @property
    def router(self) -> EventRouter:
        """What routes a turn's events onto the screen; made (and its imports done) when first needed."""
        if self._router is None:
            from contextual.tui.router import EventRouter
            self._router = EventRouter(self)
        return self._router

    @property
    def engine(self) -> Engine:
        """The engine shown; asked for before the first frame opened it (a key pressed meanwhile, a test), it
        opens now."""
        if self.opened is None:
            self.adopt(self.open_deferred())
        assert self.opened is not None
        return self.opened.engine

    @property
    def launch_error(self) -> str | None:
        """Why the session to resume could not be opened (the app then exits with 1)."""
        return self.startup.error

    def open_deferred(self) -> Opened:
        resume = self.startup.resume
        return self.host.resume(path=resume) if resume is not None else self.host.new_engine()

    def adopt(self, opened: Opened) -> None:
        self.opened = opened
        self.router.set_compaction_canceller(getattr(opened.engine, "cancel_compaction", None))

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's palette, its page keys safe on a screen too short to list anything (tui/palette.py)."""
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:
        """/theme's picker: Textual's palette of themes, as ours (tui/palette.py). Textual's own ended the app where
        ours holds: a page key on a screen too short to list a theme (KeyError), and its list wrapped at width 0
        on one 4 columns wide (monkey round 4)."""
        from textual.theme import ThemeProvider
        self.push_screen(Palette(providers=[ThemeProvider], placeholder="Search for themes…"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from contextual.tui.palette import system_commands
        return system_commands(self, super().get_system_commands(screen), self.config.home)

    @property
    def config(self) -> Config:
        """The host's config (the one new engines get; /model and the server's window change it there)."""
        return self.host.config

    # ----- surfaces (what the router may touch)
    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def scratchpad(self) -> ScratchpadView:
        return self.query_one(ScratchpadView)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    def show_prompt(self, view: PromptView | None = None) -> None:
        """History, meter and top bar from one reading of the next prompt. Nothing on this thread waits for the
        tokenizer: until it is loaded the counts come from earlier runs (tokens.remember_counts), or placeholders
        show when a text was never counted."""
        from contextual.tui.prompt_view import shown_from_view
        try:
            with tokens.known_counts_only():
                shown = with_pins(shown_from_view(view) if view is not None else next_prompt(self.engine), self.engine)
        except tokens.NotCounted:
            shown = None
        history = self.query_one(HistoryView)
        history.pinned = pinned_ids(self.engine)
        history.summary_numbers = summary_numbers(self.engine.history.messages, self.engine.compactions)
        history.show(self.engine.history.messages, shown)
        self.shown = shown
        self.query_one(TokenMeter).shown = shown
        self.refresh_topbar()

    def call_started(self) -> None:
        self.last_sent = self.shown          # the engine's PromptChanged before the call: what it sent

    def push_modal(self, screen: Screen, on_close: Callable[[Any], None]) -> None:
        self.push_screen(screen, on_close)

    def accept_edits(self) -> None:
        self.engine.settings.accept_edits()
        self.refresh_topbar()

    def stop_turn(self) -> None:
        for worker in self.workers:
            if worker.group == "turn" and worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
                worker.cancel()

    def compactions_logged(self) -> list[CompactionRecord]:
        return list(self.engine.compactions)

    # ----- layout
    def compose(self) -> ComposeResult:
        # The input has the focus from the start: focused after another widget took it, every style is worked out
        # again (a restyle of the whole screen before the first frame). Modal screens keep Textual's "*".
        self.screen.AUTO_FOCUS = "#prompt"  # type: ignore[misc]  # the default screen only, not the class
        yield TopBar(id="topbar")
        yield Tabs(Tab("Chat", id="tab-chat"), Tab("Scratchpad", id="tab-scratchpad"),
                   Tab("History", id="tab-history"), id="region-tabs")
        with Horizontal(id="main"):
            with Vertical(id="chat-pane"):
                yield ChatLog(id="chat")
            with Vertical(id="side"):
                yield ScratchpadView(id="scratchpad", animate_spinner=self.animated)
                yield HistoryView(id="history")
        yield StatusLine(id="status", animate=self.animated)
        yield PromptBox(self.config.project_root, commands.completions, id="prompt-box")
        yield TokenMeter(id="meter")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        self.query_one("#chat-pane").border_title = "Chat"
        saved = self.remembered.theme()
        if saved and saved in self.available_themes:
            self.theme = saved
        self._loading_theme = False
        prompt = self.query_one(PromptInput)
        prompt.past = self.remembered.inputs()
        prompt.take_queued = self.take_back_queued
        prompt.page_chat = self.page_chat
        inert_commands = commands.load_custom(self.config.project_root, self.config.home)   # issue 30.3
        if not self.animated:
            prompt.cursor_blink = False
        if self.opened is None:
            await self.startup.first_frame()
        else:
            await self.show_engine(self.opened)
        self.apply_layout()
        prompt.focus()
        self.startup.ask_trust(inert_commands)

    def on_ready(self) -> None:
        self.startup.ready()
        if self.quit_on_hangup:
            quit_on_signals(self)

    async def started(self) -> None:
        """Wait (off this thread) until the tokenizer is loaded and the server asked; at once when they are."""
        await self.startup.started()

    async def mcp_changed(self) -> None:
        """An MCP server came up or went away (or counts became ready): between turns, take its tools in now and
        show the prompt (in a turn the engine does)."""
        if self.turn_running or not tokens.ready():
            return
        for event in self.engine.sync_tools():
            await self.router.route(event)
        self.show_prompt()

    def not_remembered(self, problem: str) -> None:
        """A read-only or full home: inputs, titles and the theme are kept for this run only (said once)."""
        self.notify(f"not remembered after this run: {problem}", severity="warning", timeout=8)

    def watch_theme(self, theme: str) -> None:
        if not getattr(self, "_loading_theme", True):
            self.remembered.set_theme(theme)

    def on_resize(self, event: events.Resize) -> None:
        self.regions.width = event.size.width
        self.apply_layout()
        if self.query("#topbar"):
            self.call_after_refresh(self.refresh_topbar)     # at the new width

    @property
    def narrow(self) -> bool:
        return self.regions.narrow(self.size.width)

    def apply_layout(self) -> None:
        # The regions are the first screen's: a screen may be open on top of it, and at exit none is left
        main = self.screen_stack[0] if self.screen_stack else None
        if main is not None and main.query("#region-tabs"):
            self.regions.apply(main, self.narrow)

    @on(Tabs.TabActivated, "#region-tabs")
    def tab_activated(self, event: Tabs.TabActivated) -> None:
        if not self.screen_stack:       # the tabs' last message, as the app exits
            return
        chosen = (event.tab.id or "tab-chat").removeprefix("tab-")
        changed, self.regions.tab = chosen != self.regions.tab, chosen
        self.apply_layout()
        if not changed:                 # the tabs' own first activation at mount: the focus stays where it is
            return
        # The pane chosen has the keys (History's enter and p, the Scratchpad's [ ]); typing still reaches the
        # prompt (on_key), and the Chat's tab gives the prompt the focus back.
        target: Widget = self.query_one(PromptInput)
        if self.regions.tab == "scratchpad":
            target = self.scratchpad
        elif self.regions.tab == "history":
            target = self.query_one(HistoryView)
        target.focus()

    def action_toggle_region(self, region: str) -> None:     # not `toggle`: Textual's own action
        if self.narrow:
            self.query_one("#region-tabs", Tabs).active = f"tab-{region}"
            return
        # Wide, a shown pane without the focus gets it first: the Scratchpad's [ ] and History's enter and p
        # needed a click there, tab never reached them (tmux QA). Pressed again with the focus in it, it hides.
        # The chat's keys are the prompt's: f2 focuses the prompt, or hides the chat when the prompt has it.
        prompt = self.query_one(PromptInput)
        pane = self.query_one("#chat-pane" if region == "chat" else f"#{region}")
        target = prompt if region == "chat" else pane
        focused = self.focused
        inside = focused is not None and (focused is target or pane in focused.ancestors)
        if region not in self.regions.hidden and not inside:
            target.focus()
            return
        self.regions.toggle(region)
        self.apply_layout()
        if region not in self.regions.hidden:          # shown again: its keys at hand
            target.focus()
        elif inside:                                   # hidden with the focus in it: back to the prompt
            prompt.focus()

    def action_resize_side(self) -> None:
        self.regions.next_side_width()
        self.apply_layout()

    async def show_engine(self, opened: Opened, keep_recent: bool = False) -> None:
        """Show a (new or resumed) engine everywhere: the chat from the session's whole record (``keep_recent``:
        the turns the chat shows stay when they are that record's last ones)."""
        self.adopt(opened)
        self.startup.engine_shown = True
        recorded = recorded_turns(opened.transcript, self.engine.turn_ends)
        self.scratchpad.reset(first_turn=opened.turns_before + 1, recorded=recorded)
        await self.chat.show_transcript(opened.transcript or list(self.engine.history.messages),
                                        self.engine.compactions, keep_recent, self.engine.permissions,
                                        self.engine.turn_ends)
        await self.startup.greet(not (opened.transcript or self.engine.history.messages), opened.notices)
        self.show_prompt()
        self.refresh_undoable(opened.undoable)
        if tokens.ready():          # else once the tokenizer is loaded (Startup.counts_ready)
            await self.chat.mount_earlier()

    def refresh_topbar(self) -> None:
        engine = self.opened.engine if self.opened is not None else None     # None: not open yet
        session_id, compactions = ((engine.session_id, len(engine.compactions)) if engine is not None
                                   else self.startup.preview or (None, 0))
        self.query_one(TopBar).show(self.config.project_root, self.config.model, session_id, compactions,
                                    self.turn_running, self.size.width)
        config = engine.config if engine else self.config        # the model, window and permission mode in force
        for welcome in self.chat.query(Welcome):
            welcome.show(config.model, config.context_window, config.window_source)
        self.query_one(PromptInput).border_subtitle = mode_line(config.permission_mode)

    def action_cycle_mode(self) -> None:
        """shift+tab: the next permission mode (bypass only when the app was started in it); in a file edit's
        permission dialog, allow it and accept edits from now on, as Claude Code's dialog offers."""
        from contextual.tui.screens.permission import PermissionModal
        if isinstance(self.screen, PermissionModal):
            self.screen.action_decide("accept_edits")
            return
        self.engine.settings.cycle_permission_mode()
        self.refresh_topbar()

    def page_chat(self, direction: int) -> bool:
        """pageup/pagedown in the input: a page of the chat, when it shows (narrow, another tab may)."""
        if not self.query_one("#chat-pane").display:
            return False
        chat = self.chat
        (chat.scroll_page_down if direction > 0 else chat.scroll_page_up)(animate=False)
        return True

    # ----- the one "is something running?" guard
    @property
    def turn_running(self) -> bool:
        return self.worker_running("turn")

    def busy(self, what: str) -> bool:
        """True (and says so) when a turn or compaction runs: ``what`` cannot start now."""
        if not self.turn_running:
            return False
        self.notify(f"A turn is running: {what} after it ends, or press esc to interrupt it.", severity="warning")
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Main-screen keys neither show nor run on sub-screens (their footers list their own keys).
        if action in MAIN_ONLY:
            return self.screen is self.screen_stack[0]
        if action == "cycle_mode" and self.screen is not self.screen_stack[0]:
            from contextual.tui.screens.permission import PermissionModal
            return isinstance(self.screen, PermissionModal) and self.screen.edits_files
        return True

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Notices carry outside text (a title the user typed, an error, a fact the model wrote, a path): shown as
        written. Textual reads them as markup by default, where `[/]` crashed the app and `[@click=…]` ran actions.
        As written, but without terminal escapes and keys: a failed turn's toast quotes the exception's text."""
        super().notify(screen_text(message), title=screen_text(title), severity=severity, timeout=timeout,
                       markup=markup)

    def on_key(self, event: events.Key) -> None:
        """A character typed while a pane has the focus (after tab or a click) goes to the prompt, as in any chat
        app, instead of being lost; keys a pane binds (the History's p, the Scratchpad's [ ]) stay the pane's."""
        if self.screen is not self.screen_stack[0]:
            return
        if event.key == "enter" and isinstance(self.focused, PromptInput):
            # The prompt takes its own enter: this one was queued at the pane that had the focus when a burst
            # (`quick⏎`, a paste) arrived, before its first letter moved the focus here. It sends, as typed.
            self.focused.submit()
            event.stop()
            return
        if not (event.is_printable and event.character):
            return
        # A printable key that bubbles up here was typed into no text widget (they stop what they insert); in a
        # burst the rest arrive after the first moved the focus, so this does not ask who has the focus.
        if event.key in self.active_bindings:
            return
        prompts = self.query(PromptInput)
        prompt = prompts.first() if prompts else None
        if prompt is None or prompt.disabled or not prompt.display:
            return
        self.screen.set_focus(prompt)   # at once (focus() waits a frame): the rest of a burst, `[` too, is typed
        prompt.insert(event.character)
        event.stop()

    # ----- what slash commands may ask of the app (tui.slash.port.AppPort)
    async def run_command(self, command: commands.Command, argument: str) -> None:
        await command.handler.run(self, argument)

    def worker_running(self, group: str) -> bool:
        return any(w.group == group and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers)

    async def say(self, text: str, level: str = "info") -> None:
        await self.chat.add_notice(text, level)

    async def show_shell_output(self, output: str, exit_code: int) -> None:
        await self.chat.add_shell_output(output, exit_code)

    async def show_transcript(self, messages: list[Message]) -> None:
        await self.chat.show_transcript(messages, self.engine.compactions, permissions=self.engine.permissions,
                                        ends=self.engine.turn_ends)
        await self.chat.mount_earlier()          # counts are ready by now: all the restored turns at once

    def pending_input(self) -> str:
        prompt = self.query_one(PromptInput)
        return prompt.pastes.expand(prompt.text)      # /context shows what would be sent: the pastes, not their tags

    def load_input(self, text: str) -> None:
        self.query_one(PromptInput).put(text)

    def start_compaction(self, instructions: str | None, keep_rounds: int | None) -> None:
        if self.engine.history.messages:       # a resumed session held elsewhere is forked before it is compacted
            self.ensure_session()
        self._compact(instructions, keep_rounds)

    # ----- keys that open what a command opens
    def action_compact(self) -> None:
        commands.COMPACT.start(self)

    async def action_context(self) -> None:
        await commands.CONTEXT.run(self, "")

    async def action_resume(self) -> None:
        await commands.RESUME.run(self, "")

    # ----- input
    @on(PromptInput.Submitted)
    async def submitted(self, event: PromptInput.Submitted) -> None:
        text = secrets.redact(event.text)       # a key typed or pasted is neither kept in the input history nor sent
        # A path @ completed from a name that is not UTF-8 holds a lone surrogate: every command, `# note` and the
        # input history get the text as the engine sends it (`caf\xe9.py`), which a file can hold.
        text = valid_unicode(text)
        self.remembered.add_input(text)
        parsed = commands.parse(text)
        if parsed is not None:
            await self.run_command(*parsed)
            return
        if text.startswith("/") and " " not in text.split("\n", 1)[0].strip():
            await self.chat.add_notice(f"unknown command {text.split()[0]}: /help lists them", "error")
            return
        if text.startswith("!"):
            run_shell(self, text[1:].strip())
            return
        if is_memory(text):
            ask_and_remember(self, text)
            return
        if self.turn_running:
            self.queued.add(text)           # shown on the input's border; in the chat once its turn starts
            self.show_queue()
            return
        if self.config.missing_model_message():     # shown, kept, and back in the input once /model chose one
            self.unsent = text
            await self.chat.add_notice(f"not sent yet: {text}", "warning")
            await self.chat.add_notice(how_to_configure(self.config), "error")
            return
        self.start_turn(text)

    # ----- turns and compaction (workers)
    def start_turn(self, text: str, command: CustomCommand | None = None, arguments: str = "",
                   typed: str = "") -> None:
        self.ensure_session()
        self._turn(text, command, arguments, typed)

    def ensure_session(self) -> None:
        """The session file what comes next is recorded in (made at the first input, or a fork of a session open
        elsewhere); one that cannot be written is said, and the app goes on unsaved."""
        try:
            said = self.host.ensure_session(self.engine)
        except Exception as exc:
            self.notify(f"session not saved: {exc}", severity="error", timeout=8)
        else:
            if said:
                self.notify(said, timeout=8)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _turn(self, text: str, command: CustomCommand | None, arguments: str, typed: str) -> None:
        await self.started()        # sent within the first second: the turn waits, off the UI thread
        if command is not None:
            typed = command.as_typed(arguments)
        stream = (self.engine.run_turn(text, typed=typed) if command is None
                  else self.engine.run_command(command, arguments))
        await self.router.consume_turn(typed or text, stream)     # the chat shows what was typed

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _compact(self, instructions: str | None, keep_rounds: int | None = None) -> None:
        await self.started()
        # A manual compaction is previewed (issue 19.1): the summary waits beside the rounds it replaces.
        stream = self.engine.compact(instructions, keep_rounds=keep_rounds, preview=True)
        await self.router.consume_compaction(stream)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "tokenizer" and event.state == WorkerState.ERROR:
            self.startup.counted_or_not()
            self.notify(f"the tokenizer did not load, so nothing can be counted: {event.worker.error}",
                        title="token counts", severity="error", timeout=10)
        if event.worker.group != "turn":
            return
        if not self.query(StatusLine):
            return          # the app is closing: its main screen is gone, and a turn ending now has nothing to show
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.notify(f"{type(error).__name__}: {error}", title="turn failed", severity="error", timeout=10)
            self.router.after_turn("failed")
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self.refresh_undoable()
            self.after_queue(event.state == WorkerState.SUCCESS and self.router.last_outcome in SENDS_NEXT)
        self.refresh_topbar()

    def show_queue(self) -> None:
        # a border title is markup, and a queued message is whatever was typed (`[/` ended the app)
        self.query_one(PromptInput).border_title = unparsed(self.queued.label(self.size.width))

    def take_back_queued(self) -> str | None:
        text = self.queued.take_newest()
        self.show_queue()
        return text

    def after_queue(self, send_next: bool) -> None:
        """The queued messages start the next turn together; after a turn that did not finish they all go back to
        the input, before anything typed since."""
        if not self.queued.texts:
            return
        if send_next and not self.turn_running:
            text = self.queued.take_all()
            self.show_queue()
            self.start_turn(text)
            return
        prompt = self.query_one(PromptInput)
        many = len(self.queued.texts) > 1
        back = self.queued.take_all()
        prompt.put(back + ("\n\n" + prompt.text if prompt.text.strip() else ""))
        self.show_queue()
        self.notify(f"The turn did not finish: your queued message{'s are' if many else ' is'} back in the input.",
                    severity="warning")

    def refresh_undoable(self, known: set[str] | None = None) -> None:
        """Mark the turns /undo can take back: ``known`` when opening the session read them from its record (a
        long session's file is not read twice), else read from the session file off the event loop."""
        if self.engine.session is None:
            self.query_one(HistoryView).set_undoable(set())
            return
        if known is not None:
            self.query_one(HistoryView).set_undoable(known)
            return
        self._load_undoable(self.engine)

    @work(exclusive=True, group="undoable", exit_on_error=False)
    async def _load_undoable(self, engine: Engine) -> None:
        try:
            turns = await undoable_turns_of(engine)
        except Exception:       # a session closed meanwhile or unreadable: no marks rather than a crash
            turns = set()
        if engine is self.engine:        # the user may have switched sessions meanwhile
            self.query_one(HistoryView).set_undoable(turns)

    def action_cancel_turn(self) -> None:
        modal = self.router.compaction_modal
        if modal is not None and modal.result is None:
            self.router.cancel_compaction()
            return
        if self.turn_running:
            running = (WorkerState.PENDING, WorkerState.RUNNING)
            shell = any(w.name == "shell" and w.group == "turn" and w.state in running for w in self.workers)
            self.stop_turn()
            self.notify("Command stopped." if shell else "Turn interrupted: it is recorded as interrupted.", timeout=3)
            return
        if self.query_one(PromptInput).text.strip():
            return
        now = time.monotonic()
        if now - self._esc_at > REWIND_WITHIN:
            self._esc_at = now
            return
        self._esc_at = 0.0
        parsed = commands.parse("/rewind")
        if parsed is not None:
            self.call_later(self.run_command, *parsed)

    def action_interrupt_or_quit(self) -> None:
        """ctrl+c: copy a selection (in the input, or dragged over in a pane); else cancel a compaction preview or
        interrupt a running turn; when idle, twice quits."""
        focused = self.focused
        if isinstance(focused, TextArea) and focused.selected_text:
            focused.action_copy()
            self.copied(focused.selected_text)
            return
        selected = self.screen.get_selected_text()
        if selected:                             # text dragged over in the chat: ctrl+c interrupted the turn instead
            self.screen.action_copy_text()
            self.screen.clear_selection()        # copied: the next ctrl+c interrupts or quits
            self.copied(selected)
            return
        from contextual.tui.screens.compaction_preview import CompactionPreviewScreen   # late: not at launch
        if isinstance(self.screen, CompactionPreviewScreen):    # the turn waits on its answer: cancel, as esc does
            self.screen.action_cancel()
            return
        if self.turn_running:
            self.action_cancel_turn()
            return
        now = time.monotonic()
        if now - self._quit_armed_at <= QUIT_AGAIN_WITHIN:
            self.call_later(self.action_quit)
            return
        self._quit_armed_at = now
        self.notify("Press ctrl+c again to quit.", timeout=QUIT_AGAIN_WITHIN)

    def copied(self, text: str) -> None:
        """Said, as nothing on screen changed: the copy goes through the terminal (OSC 52), which may refuse it."""
        self.notify(f"Copied {plural(len(text), 'character', grouped=True)}.", timeout=2)

    # ----- History rows
    def action_open_stored_full(self) -> None:
        history = self.query_one(HistoryView)
        open_tool_result(self, history.messages, history.message_index(history.highlighted))

    @on(HistoryView.PinMessage)
    def pin_message(self, event: HistoryView.PinMessage) -> None:
        toggle_pin(self, event.message, event.of)

    @on(CompactionModal.TypedAhead)
    def typed_ahead(self, event: CompactionModal.TypedAhead) -> None:
        prompt = self.query_one(PromptInput)
        prompt.insert(event.text)
        if event.send:
            prompt.submit()

    @on(HistoryView.OpenMessage)
    def open_message(self, event: HistoryView.OpenMessage) -> None:
        open_message(self, event.message)

    async def action_quit(self) -> None:
        await self.close_all()
        self.exit(0)

    async def close_all(self) -> None:
        """What a quit does before the app exits: the draft remembered, the turn stopped (a running command's
        processes ended), the session closed, the MCP servers stopped."""
        prompts = self.query(PromptInput)
        draft = prompts.first().text if prompts else ""
        if draft.strip():            # a message being written is not lost: ↑ brings it back next time
            self.remembered.add_input(secrets.redact(draft))
        self.stop_turn()
        for worker in list(self.workers):
            # The turn just cancelled ends as CANCELLED, and waiting on it raises: that is the quit working.
            with contextlib.suppress(WorkerError):     # cancelled, failed, or never started
                await worker.wait()
        if self.opened is not None:          # else quit before the engine opened: nothing to close
            engine = self.opened.engine
            # Taken before the close: a closed engine no longer has its session (nor its id).
            self.resume_hint = resume_line(engine.session_id, engine.history.messages, self.config.home,
                                           self.config.project_root)
            try:
                await self.host.close(engine)
            except Exception as exc:     # a full disk refused the last lines: said where the terminal is back
                self.resume_hint = f"{self.resume_hint or ''}\nthe session's last lines were not saved: {exc}".strip()
        if hasattr(self.host, "stop_mcp"):
            await self.host.stop_mcp()
