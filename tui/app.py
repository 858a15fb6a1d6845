"""The Contextual app: one screen of four regions (chat, live scratchpad, history as stored, token meter); below
100 columns one region at a time, chosen by tabs.

This module orchestrates only: what it owns is in the parts it composes, each with its own state — the launch
(``tui.startup.Startup``), the engine shown and its session (``tui.shown_engine.ShownEngine``), the turn worker
and the queue (``tui.turn_runner.TurnRunner``), History, meter and top bar (``tui.readouts.Readouts``), the
regions and their focus (``tui.panes.Panes``), esc and ctrl+c (``tui.interrupt_keys.InterruptKeys``), the close at
quit (``tui.closing.Closing``). Each part is handed the parts it uses when it is made; the app does not forward to
them. A turn's events are routed by ``EventRouter`` onto the widgets and parts it is handed (``tui.surfaces``); the
slash commands are handler objects in ``tui.commands``' table, talking to the app and its parts through
``tui.slash.port.AppPort``; screens and widgets are in their own modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Tab, Tabs
from textual.worker import Worker, WorkerState

from contextual.core import secrets, tokens
from contextual.core.config import Config
from contextual.core.textsafe import valid_unicode
from contextual.tui import collector, commands
from contextual.tui.closing import Closing
from contextual.tui.contrast import ReadableText
from contextual.tui.hangup import quit_on_signals
from contextual.tui.input_died import panicked
from contextual.tui.host import Host, Opened
from contextual.tui.interrupt_keys import InterruptKeys
from contextual.tui.opening_keys import OpeningKeys
from contextual.tui.palette import Palette, SlashCommands
from contextual.tui.panes import Panes
from contextual.tui.readouts import Readouts
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.remembered import Remembered
from contextual.tui.shown_engine import ShownEngine
from contextual.tui.slash.memory import ask_and_remember, is_memory
from contextual.tui.startup import Startup
from contextual.tui import stop_continue, textual_patches
from contextual.tui.slash.context_tools import toggle_pin
from contextual.tui.slash.files import run_shell
from contextual.tui.slash.model import how_to_configure
from contextual.tui.slash.reading import open_message, open_tool_result
from contextual.tui.turn_runner import TurnRunner
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.chat_pane import ChatPane
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.keys_footer import KeysFooter
from contextual.tui.widgets.prompt_input import PromptBox, PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.status_line import StatusLine
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.top_bar import TopBar
from contextual.tui.workers import TURN

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine
    from contextual.tui.router import EventRouter

MAIN_ONLY = {"compact", "open_stored_full", "resume", "context", "toggle_region", "resize_side", "cancel_turn",
             "rewind"}


class ContextualApp(App[object]):
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
        # priority: run as the app takes the key, before it hands the next key of a burst to what has the focus
        # (f3 [ typed the [ in the input); over a dialog check_action refuses them and the key goes on as before
        Binding("f2", "toggle_region('chat')", "chat", show=False, priority=True),
        Binding("f3", "toggle_region('scratchpad')", "scratchpad", show=False, priority=True),
        Binding("f4", "toggle_region('history')", "history", show=False, priority=True),
        # priority: the input (a TextArea) would take f6 for its select-line
        Binding("f6", "resize_side", "resize", show=False, priority=True),
        Binding("ctrl+q", "quit", "quit", priority=True),
        # priority: Textual's own shift+tab moves the focus back; on the main screen it cycles the mode
        Binding("shift+tab", "cycle_mode", "mode", show=False, priority=True),
    ]

    def __init__(self, host: Host, opened: Opened | None = None, *, animate: bool = True,
                 open_after_first_frame: bool = False, resume: Path | None = None,
                 quit_on_hangup: bool = False, first_message: str = "") -> None:
        textual_patches.install()       # here, not on import: the launch's app and every test's run patched alike
        collector.tune()                # here too: the benchmarks' apps are built as a test's are
        super().__init__()
        self.host = host
        self.quit_on_hangup = quit_on_hangup     # the launch: SIGHUP / SIGTERM end it as a quit (tui/hangup.py)
        # open_after_first_frame (the launch): the engine opens once the first frame is on screen (on_ready); its
        # imports, and a resumed session's whole record (`resume`: its file), are most of a launch. The first
        # frame of a resumed one shows the end of its record (host.preview). Else it opens now, and mounting
        # shows it.
        # Each part is handed the parts it uses that are made before it; one made after it (the readouts, which the
        # shown engine updates) or on first use (the router) it reaches through the app by name, as its Protocol says.
        deferred = open_after_first_frame or resume is not None
        self.shown_engine = ShownEngine(self, resume, opened or (None if deferred else host.new_engine()))
        self.readouts = Readouts(self, self.shown_engine)
        self.startup = Startup(self, self.shown_engine, self.readouts, first_message)
        self.panes = Panes(self)
        self.turns = TurnRunner(self, self.shown_engine, self.startup, self.readouts, self.panes)
        self.interrupt_keys = InterruptKeys(self, self.turns)
        self.opening_keys = OpeningKeys(self, super().on_event)
        self.animated = animate       # not `animate`: that is Textual's own method
        self._router: EventRouter | None = None
        self.remembered = Remembered(self.config.home, self.config.project_root, on_problem=self.not_remembered)
        self.closing = Closing(self, self.turns, self.startup, self.shown_engine)
        self.command_table = commands.CommandTable()   # built-ins and this run's custom commands (on mount)
        self.unsent = ""                           # typed before any model was chosen (/model gives it back)
        self.failure: str | None = None            # why the app ended on a panic (tui/input_died.py): exit status 1
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
            self._router = EventRouter(self, self.readouts, self.turns, self.shown_engine)
        return self._router

    @property
    def config(self) -> Config:
        """The host's config (the one new engines get; /model and the server's window change it there)."""
        return self.host.config

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's palette, its page keys safe on a screen too short to list anything (tui/palette.py)."""
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:
        """/theme's picker: Textual's palette of themes, as ours (tui/palette.py). Textual's own ended the app where
        ours holds: a page key on a screen too short to list a theme (KeyError), and its list wrapped at width 0
        on one 4 columns wide."""
        from textual.theme import ThemeProvider
        self.push_screen(Palette(providers=[ThemeProvider], placeholder="Search for themes…"))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from contextual.tui.palette import system_commands
        return system_commands(self, super().get_system_commands(screen), self.config.home)

    @property
    def engine(self) -> Engine:
        """The engine shown (tui.shown_engine): opened now when asked for before the first frame opened it."""
        return self.shown_engine.engine

    # ----- layout
    def compose(self) -> ComposeResult:
        # The input has the focus from the start: focused after another widget took it, every style is worked out
        # again (a restyle of the whole screen before the first frame). Modal screens keep Textual's "*".
        self.screen.AUTO_FOCUS = "#prompt"  # type: ignore[misc]  # the default screen only, not the class
        self.screen.add_class("-main")      # its notices stand under the top bar (app.tcss), a dialog's at its foot
        yield TopBar(id="topbar")
        # each tab names its key: at 80 columns nothing else said that f2 f3 f4 switch them
        yield Tabs(*(Tab(Text.assemble(f"{name} ", (key, "dim")), id=f"tab-{name.lower()}")
                     for name, key in (("Chat", "f2"), ("Scratchpad", "f3"), ("History", "f4"))), id="region-tabs")
        with Horizontal(id="main"):
            with ChatPane(id="chat-pane"):
                yield ChatLog(id="chat")
            with Vertical(id="side"):
                yield ScratchpadView(id="scratchpad", animate_spinner=self.animated)
                yield HistoryView(id="history")
        yield StatusLine(id="status", animate=self.animated)
        yield PromptBox(self.config.project_root, self.command_table.completions, id="prompt-box")
        yield TokenMeter(id="meter")
        yield KeysFooter(compact=True)

    async def on_mount(self) -> None:
        self.query_one("#chat-pane").border_title = "Chat"
        saved = self.remembered.theme()
        if saved and saved in self.available_themes:
            self.theme = saved
        self._loading_theme = False
        prompt = self.query_one(PromptInput)
        prompt.past = self.remembered.inputs()
        prompt.take_queued = self.turns.take_back_queued
        prompt.page_chat = self.panes.page_chat
        prompt.to_chat = self.panes.to_chat
        prompt.end_of_input = self.interrupt_keys.ctrl_d
        inert_commands = self.command_table.load_custom(self.config.project_root, self.config.home)   # issue 30.3
        if not self.animated:
            prompt.cursor_blink = False
        opened = self.shown_engine.opened
        if opened is None:
            await self.startup.first_frame()
        else:
            await self.shown_engine.show(opened)
        self.panes.apply_layout()
        prompt.focus()
        self.startup.ask_trust(inert_commands)

    def on_ready(self) -> None:
        self.app_resume_signal.subscribe(self, stop_continue.redraw)      # back from SIGTSTP: the screen was cleared
        self.startup.ready()
        if self.quit_on_hangup:
            quit_on_signals(self)

    async def mcp_changed(self) -> None:
        """An MCP server came up or went away (or counts became ready): between turns, take its tools in now and
        show the prompt (in a turn the engine does)."""
        if self.turns.running or not tokens.ready():
            return
        for event in self.engine.sync_tools():
            await self.router.route(event)
        self.readouts.show_prompt()

    def not_remembered(self, problem: str) -> None:
        """A read-only or full home: inputs, titles and the theme are kept for this run only (said once)."""
        self.notify(f"not remembered after this run: {problem}", severity="warning", timeout=8)

    def watch_theme(self, theme: str) -> None:
        if not getattr(self, "_loading_theme", True):
            self.remembered.set_theme(theme)

    def on_resize(self, event: events.Resize) -> None:
        self.panes.resized(event.size.width)
        if self.query("#topbar"):
            self.call_after_refresh(self.readouts.refresh_topbar)     # at the new width
        if self.turns.queued.texts:
            # fitted to the width it was queued at, it was cut to 26 columns at 200 and ran past the border at 80
            self.call_after_refresh(self.turns.show_queue)

    @on(Tabs.TabActivated, "#region-tabs")
    def tab_activated(self, event: Tabs.TabActivated) -> None:
        self.panes.tab_activated(event.tab.id)

    def action_toggle_region(self, region: str) -> None:     # not `toggle`: Textual's own action
        self.panes.toggle(region)

    def action_resize_side(self) -> None:
        self.panes.resize_side()

    async def on_event(self, event: events.Event) -> None:
        # a key taken while the screen on top is still opening waits for it (its priority keys' actions ended the
        # app): tui/opening_keys.py
        if not self.opening_keys.held(event):
            await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        self.panes.stray_key(event)

    def action_cycle_mode(self) -> None:
        """shift+tab: the next permission mode (bypass only when the app was started in it); in a file edit's
        permission dialog, allow it and accept edits from now on, as Claude Code's dialog offers."""
        from contextual.tui.screens.permission import PermissionModal
        if isinstance(self.screen, PermissionModal):
            self.screen.action_decide("accept_edits")
            return
        self.engine.settings.cycle_permission_mode()
        self.readouts.refresh_topbar()

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

    # ----- what slash commands may ask of the app (tui.slash.port.AppPort)
    async def run_command(self, command: commands.Command, argument: str) -> None:
        await command.handler.run(self, argument)

    async def say(self, text: str, level: str = "info") -> None:
        await self.query_one(ChatLog).add_notice(text, level, replied=True)

    @on(ChatLog.Replied)
    def chat_replied(self) -> None:
        self.panes.show_chat()

    # ----- keys that open what a command opens
    async def action_compact(self) -> None:
        # In text being written ctrl+k kills to the line's end, as in a shell, Claude Code and Codex: a compaction
        # (its dialog over the draft) came instead, and the line stayed. An empty input's ctrl+k compacts.
        prompt = self.query_one(PromptInput)
        if self.focused is prompt and prompt.text:
            await prompt.action_delete_to_end_of_line_or_delete_line()
            return
        commands.COMPACT.start(self)

    async def action_context(self) -> None:
        await commands.CONTEXT.run(self, "")

    async def action_resume(self) -> None:
        await commands.RESUME.run(self, "")

    def action_cancel_turn(self) -> None:
        self.interrupt_keys.escape()

    def action_interrupt_or_quit(self) -> None:
        self.interrupt_keys.ctrl_c()

    # ----- input
    @on(PromptInput.Submitted)
    async def submitted(self, event: PromptInput.Submitted) -> None:
        text = secrets.redact(event.text)       # a key typed or pasted is neither kept in the input history nor sent
        # A path @ completed from a name that is not UTF-8 holds a lone surrogate: every command, `# note` and the
        # input history get the text as the engine sends it (`caf\xe9.py`), which a file can hold.
        text = valid_unicode(text)
        self.remembered.add_input(text)
        parsed = self.command_table.parse(text)
        unknown = None if parsed is not None else self.command_table.unknown(text)
        message = parsed is None and unknown is None and not text.startswith("!") and not is_memory(text)
        if not (message and self.turns.running):     # a message queued leaves the chat where it is being read
            self.query_one(ChatLog).follow_end()
        if parsed is not None:
            await self.run_command(*parsed)
        elif unknown is not None:
            await self.say(unknown, "error")
        elif text.startswith("!"):
            run_shell(self, text[1:].strip())
        elif is_memory(text):
            ask_and_remember(self, text)
        elif self.turns.running:
            self.turns.queue(text)
        elif self.config.missing_model_message():     # shown, kept, and back in the input once /model chose one
            self.unsent = text
            await self.say(f"not sent yet: {text}", "warning")
            await self.say(how_to_configure(self.config), "error")
        else:
            self.turns.start(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "tokenizer" and event.state == WorkerState.ERROR:
            self.startup.counted_or_not()
            self.notify(f"the tokenizer did not load, so nothing can be counted: {event.worker.error}",
                        title="token counts", severity="error", timeout=10)
        if event.worker.group == TURN:
            self.turns.changed(event.worker, event.state)

    # ----- History rows
    def action_open_stored_full(self) -> None:
        history = self.query_one(HistoryView)
        open_tool_result(self, history.messages, history.message_index(history.highlighted))

    @on(HistoryView.PinMessage)
    def pin_message(self, event: HistoryView.PinMessage) -> None:
        toggle_pin(self, event.message, event.of)

    @on(CompactionModal.StopTurn)
    def stop_turn_behind_card(self) -> None:
        self.interrupt_keys.stop_turn()

    @on(CompactionModal.TypedAhead)
    def typed_ahead(self, event: CompactionModal.TypedAhead) -> None:
        prompt = self.query_one(PromptInput)
        if event.pasted:
            prompt.paste(event.text)
        else:
            prompt.insert(event.text)
        if event.send:
            prompt.submit()

    @on(HistoryView.OpenMessage)
    def open_message(self, event: HistoryView.OpenMessage) -> None:
        open_message(self, event.message)

    async def action_quit(self) -> None:
        await self.closing.close_all()
        self.exit(0)

    def panic(self, *renderables: Any) -> None:
        """Textual's input thread died (or an error that renders itself): closed as a quit, then status 1."""
        panicked(self, renderables, super().panic)
