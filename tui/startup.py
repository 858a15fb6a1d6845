"""What a launch does around the app's first frame (issue 29): the frame itself is drawn before the engine exists
(a new session's welcome, or the end of a resumed session's record); then, in order, the engine, the counts of
earlier runs, the tokenizer, the server. Owned by the app (``ContextualApp.startup``), one per launch."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from contextual.core import tokens
from contextual.tui import commands
from contextual.tui.greeting import greet
from contextual.tui.readouts import Readouts
from contextual.tui.shown_engine import ShownEngine
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.chat_log import FIRST_TURNS, ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.workers import worker_running

if TYPE_CHECKING:
    from pathlib import Path

    from contextual.core.config import Config
    from contextual.core.trust import Item
    from contextual.tui.host import Host


class LaunchedApp(TextualApp, Protocol):
    """What the launch may ask of the app (the app knows Startup; Startup knows only this and the parts it is
    handed)."""

    host: Host

    @property
    def config(self) -> Config: ...
    @property
    def command_table(self) -> commands.CommandTable: ...
    async def mcp_changed(self) -> None: ...


class Startup:
    def __init__(self, app: LaunchedApp, shown: ShownEngine, readouts: Readouts, first_message: str = "") -> None:
        self.app = app
        self.shown = shown
        self.readouts = readouts
        self.first_message = first_message                 # `contextual "PROMPT"`: sent once the launch allows
        self.trust_settled = False                         # the project's trust question is answered, or was none
        self.error: str | None = None                      # the session to resume could not be opened
        self.connected = asyncio.Event()                   # set once the host found the window and the provider
        self.stopped = False                               # the app is quitting: nothing more of the launch starts

    @property
    def chat(self) -> ChatLog:
        return self.app.query_one(ChatLog)

    @property
    def resume(self) -> Path | None:
        """The session file a resumed launch opens."""
        return self.shown.resume

    # ----- the first frame
    async def first_frame(self) -> None:
        if self.resume is not None:
            await self.show_preview(self.resume)
        else:
            await self.show_new_session()

    async def show_new_session(self) -> None:
        """A new session's first frame, drawn before its engine exists: nothing on it needs one (an empty chat and
        History, the meter's placeholder, the top bar's "session new")."""
        await greet(self.chat, self.app.config, True, [])
        self.app.query_one(HistoryView).show([], None)
        self.readouts.refresh_topbar()

    async def show_preview(self, path: Path) -> None:
        """A resumed session's first frame, drawn from the end of its record before the whole of it is read: its
        last turns, its id and compactions (show_engine then adds the rest, keeping these turns)."""
        tail = self.app.host.preview(path, FIRST_TURNS)
        self.readouts.preview = (path.name.removesuffix(".jsonl"), tail.compactions)
        await self.chat.show_transcript(tail.messages, tail.records, permissions=tail.permissions,
                                        ends=tail.turn_ends, fittings=tail.fittings)
        self.app.query_one(HistoryView).show([], None)
        self.readouts.refresh_topbar()

    # ----- the project's trust, then its MCP servers
    def ask_trust(self, inert_commands: list[Item]) -> None:
        host = self.app.host
        pending = [*(host.pending_trust() if hasattr(host, "pending_trust") else []), *inert_commands]
        if pending:     # the project's own config asks to run or allow something: once, before any of it starts
            from contextual.tui.screens.trust import TrustModal
            self.app.push_screen(TrustModal(pending, self.app.config.project_root),
                                 lambda yes: self.trust_answered(pending, bool(yes)))
        else:
            self.start_mcp()

    def start_mcp(self) -> None:
        self.trust_settled = True
        if hasattr(self.app.host, "start_mcp"):       # servers come up in the background (core/mcp)
            self.app.host.start_mcp(lambda: self.app.call_later(self.app.mcp_changed))
        self.send_first_message()

    def send_first_message(self) -> None:
        """`contextual "PROMPT"`: sent as if typed, once the session is shown (a resumed chat is rebuilt when its
        engine is) and the project's trust question is answered (sent before, its turn ran without the servers
        the answer starts)."""
        if self.stopped or not (self.first_message and self.trust_settled and self.shown.engine_shown):
            return
        text, self.first_message = self.first_message, ""
        prompt = self.app.query_one(PromptInput)
        prompt.put(text)
        prompt.submit()

    async def trust_answered(self, items: list[Item], yes: bool) -> None:
        from contextual.tui.screens.trust import answered
        for text, level in answered(self.app.host, self.shown.engine, items, yes):
            await self.chat.add_notice(text, level)
        if yes:
            self.app.command_table.approve_custom(items, self.app.config.project_root)
        self.start_mcp()
        await self.app.mcp_changed()

    # ----- after the first frame
    def ready(self) -> None:
        """Textual's Ready, posted once the first frame is written: then comes what it did not wait for. A resumed
        session's frame is still mounting its answers' Markdown at Ready: that work waits until the screen has
        settled (measured in tmux: the frame showed only after the whole record was read); a new session's runs
        next in the queue (waiting for the screen to settle cost its counts ~40 ms)."""
        if self.resume is not None:
            self.app.call_after_refresh(self.after_first_frame)
        else:
            self.app.call_later(self.after_first_frame)

    async def after_first_frame(self) -> None:
        """In the order it comes: the engine (a resumed session's whole record read), the counts of earlier runs
        (tokens.remember_counts), the tokenizer (a thread), the counts it gives, then the server's window and the
        provider (httpx; a turn waits for them). The tokenizer's load holds the GIL in long stretches (one C call
        parses its ranks): it starts once counts of earlier runs are painted, at once when there are none."""
        app, shown = self.app, self.shown
        if self.stopped:
            return
        if not shown.engine_shown:     # opened after the first frame (or by a key pressed before it)
            try:
                opened = shown.opened or shown.open_deferred()
            except Exception as exc:      # the session to resume cannot be read: said once the app has left
                self.error = str(exc)
                app.exit(return_code=1)
                return
            if self.resume is not None:
                await shown.show(opened, keep_recent=True)     # the preview's turns stay; earlier ones join
            else:
                shown.adopt(opened)
                shown.engine_shown = True
                self.readouts.show_prompt()
                shown.refresh_undoable()
        self.send_first_message()
        if tokens.ready():
            self.connect()
        elif self.readouts.shown is not None:
            app.call_after_refresh(self.load_tokenizer)
        else:
            self.load_tokenizer()

    def counted_or_not(self) -> None:
        """The tokenizer loaded or failed: the server is asked now (asked earlier, its imports would hold the GIL
        the counts need)."""
        if not worker_running(self.app, "connect") and not self.connected.is_set():
            self.connect()

    def load_tokenizer(self) -> None:
        if self.stopped:
            return
        self.app.run_worker(self._load_tokenizer, thread=True, exclusive=True, group="tokenizer",
                            exit_on_error=False)

    def _load_tokenizer(self) -> None:
        tokens.encoding()
        if not self.stopped:        # a quit cancelled this worker, but a thread runs to its end
            self.app.call_from_thread(self.counts_ready)  # Textual awaits it

    async def counts_ready(self) -> None:
        await self.app.mcp_changed()              # the meter and History show the counts
        tokens.save_counts()                      # now, not only at exit: a killed terminal keeps them too
        self.counted_or_not()
        await self.chat.mount_earlier()       # then the older restored turns

    def connect(self) -> None:
        if self.stopped:
            return
        self.app.run_worker(self._connect, exclusive=True, group="connect", exit_on_error=False)

    async def _connect(self) -> None:
        app = self.app
        try:
            if hasattr(app.host, "connect"):
                await app.host.connect()
        except Exception as exc:          # a provider that cannot be built: said once, the app stays open
            await self.chat.add_notice(f"cannot reach the model: {exc}", "error")
        finally:
            self.connected.set()
        config = self.shown.engine.config
        if config.server_unreached:     # a guessed window, said, not a silent 200k
            from contextual.core.model_facts import unreached_note
            await self.chat.add_notice(unreached_note(config), "warning")
        if config.window_note:          # a window kept from an earlier error, Ollama's default num_ctx
            await self.chat.add_notice(config.window_note, "warning")
        if config.reserve_notice:       # the server's window leaves the user's reserve no prompt
            await self.chat.add_notice(config.reserve_notice, "warning")
        # said before anything is sent (a turn refuses to start), when the tokenizer could count L1
        too_small = self.shown.engine.window_problem() if tokens.ready() else None
        if too_small is not None:
            await self.chat.add_notice(too_small, "error")
        await app.mcp_changed()          # the window the server states: the meter shows it

    def stop(self) -> None:
        """A quit (or a closed terminal, a kill): what the launch has still to do is dropped, not waited for. The
        quit waited for the tokenizer, the counts it gives and the server's answer, none of which it keeps: closed
        at its first frame, a launch lived on ~0.3 s at full CPU (~1 s on a 2,000-entry session), and
        bench_launch.py's next launch ran beside it."""
        self.stopped = True
        for worker in self.app.workers:          # the app's own: no other node runs these groups
            if worker.group in ("tokenizer", "connect"):
                worker.cancel()

    async def started(self) -> None:
        """Wait (off this thread) until the tokenizer is loaded and the server asked; at once when they are."""
        if not tokens.ready():
            await asyncio.to_thread(tokens.encoding)
        await self.connected.wait()
