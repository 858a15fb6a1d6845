"""The engine the app shows, and its session: opened at launch or put off until the first frame is drawn (or until
a key asks for it), shown everywhere, its session file made at the first input, the turns /undo can take back
marked, closed at quit with the line that resumes it. Owned by the app (``ContextualApp.shown_engine``); /new,
/resume and /fork show another one here (``show``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from contextual.core import tokens
from contextual.tui.greeting import greet
from contextual.tui.host import Host, Opened, undoable_turns_of
from contextual.tui.resume_hint import resume_line
from contextual.tui.shell_output import JOINS, ran_line, shell_shown
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.scratchpad import ScratchpadView, recorded_turns

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine
    from contextual.core.config import Config
    from contextual.core.messages import Message
    from contextual.tui.router import EventRouter


class PromptReadout(Protocol):
    """tui/readouts.py: Readouts, made after this part (it reads the engine shown here)."""
    def show_prompt(self) -> None: ...


class EngineApp(TextualApp, Protocol):
    """What the shown engine asks of the app (the app knows ShownEngine; ShownEngine knows only this): the host,
    and the parts made after it or on first use, by name."""

    host: Host

    @property
    def config(self) -> Config: ...
    @property
    def router(self) -> EventRouter: ...
    @property
    def readouts(self) -> PromptReadout: ...


class ShownEngine:
    def __init__(self, app: EngineApp, resume: Path | None, opened: Opened | None) -> None:
        self.app = app
        self.resume = resume                        # the session file a resumed launch opens
        self.opened = opened
        self.engine_shown = False                   # show ran (else the first frame was a preview, or nothing yet)
        self.resume_hint: str | None = None         # set at quit: what launch prints once the terminal is back

    @property
    def engine(self) -> Engine:
        """The engine shown; asked for before the first frame opened it (a key pressed meanwhile, a test), it
        opens now."""
        if self.opened is None:
            self.adopt(self.open_deferred())
        assert self.opened is not None
        return self.opened.engine

    def open_deferred(self) -> Opened:
        resume, host = self.resume, self.app.host
        return host.resume(path=resume) if resume is not None else host.new_engine()

    def adopt(self, opened: Opened) -> None:
        self.opened = opened
        self.app.router.set_compaction_canceller(getattr(opened.engine, "cancel_compaction", None))

    async def show(self, opened: Opened, keep_recent: bool = False) -> None:
        """Show a (new or resumed) engine everywhere: the chat from the session's whole record (``keep_recent``:
        the turns the chat shows stay when they are that record's last ones)."""
        self.adopt(opened)
        self.engine_shown = True
        engine, chat = opened.engine, self.app.query_one(ChatLog)
        self.app.query_one(ScratchpadView).reset(first_turn=opened.turns_before + 1,
                                  recorded=recorded_turns(opened.transcript, engine.turn_ends))
        await chat.show_transcript(opened.transcript or list(engine.history.messages), engine.compactions,
                                   keep_recent, engine.permissions, engine.turn_ends, engine.fittings)
        await greet(chat, self.app.config, not (opened.transcript or engine.history.messages), opened.notices)
        await self.show_waiting(engine.pending_shell)
        self.app.readouts.show_prompt()
        self.refresh_undoable(opened.undoable)
        if tokens.ready():          # else once the tokenizer is loaded (Startup.counts_ready)
            await chat.mount_earlier()

    async def show_waiting(self, runs: Sequence[tuple[str, str, str]]) -> None:
        """`!command` results waiting for the next message (a resumed session's, a fork's: as sent, whole, the
        command), shown as the live chat showed them when they ran."""
        from contextual.core.context.user_shell import waiting_result
        chat = self.app.query_one(ChatLog)
        for _, whole, command in runs:
            await chat.add_notice(ran_line(command), "info")
            await chat.add_shell_output(shell_shown(command, waiting_result(command, whole)))
            await chat.add_notice(JOINS, "info")

    async def show_transcript(self, messages: list[Message]) -> None:
        """The chat rebuilt from ``messages`` of the engine shown (/undo's restored record), every turn mounted."""
        engine, chat = self.engine, self.app.query_one(ChatLog)
        await chat.show_transcript(messages, engine.compactions, permissions=engine.permissions,
                                   ends=engine.turn_ends, fittings=engine.fittings)
        await chat.mount_earlier()          # counts are ready by now: all the restored turns at once

    def ensure_session(self) -> None:
        """The session file what comes next is recorded in (made at the first input, or a fork of a session open
        elsewhere); one that cannot be written is said, and the app goes on unsaved."""
        try:
            said = self.app.host.ensure_session(self.engine)
        except Exception as exc:
            self.app.notify(f"session not saved: {exc}", severity="error", timeout=8)
        else:
            if said:
                self.app.notify(said, timeout=8)

    def refresh_undoable(self, known: set[str] | None = None) -> None:
        """Mark the turns /undo can take back: ``known`` when opening the session read them from its record (a
        long session's file is not read twice), else read from the session file off the event loop."""
        if self.engine.session is None:
            known = set()
        if known is not None:
            self.app.query_one(HistoryView).set_undoable(known)
            return
        self.app.run_worker(partial(self._load_undoable, self.engine), name="_load_undoable", group="undoable",
                            exclusive=True, exit_on_error=False)

    async def _load_undoable(self, engine: Engine) -> None:
        try:
            turns = await undoable_turns_of(engine)
        except Exception:       # a session closed meanwhile or unreadable: no marks rather than a crash
            turns = set()
        if engine is self.engine:        # the user may have switched sessions meanwhile
            self.app.query_one(HistoryView).set_undoable(turns)

    def abandon(self) -> None:
        """What close keeps, at once and without the loop (tui/hangup.py: a close stuck past its deadline)."""
        if self.opened is not None:
            self.opened.engine.abandon()

    async def close(self) -> None:
        """The engine's session closed, and the line that resumes it kept for launch to print."""
        if self.opened is None:          # quit before the engine opened: nothing to close
            return
        engine, config = self.opened.engine, self.app.config
        # Taken before the close: a closed engine no longer has its session (nor its id).
        self.resume_hint = resume_line(engine.session_id, engine.history.messages, config.home, config.project_root,
                                       waiting=len(engine.pending_shell))
        try:
            await self.app.host.close(engine)
        except Exception as exc:     # a full disk refused the last lines: said where the terminal is back
            self.resume_hint = f"{self.resume_hint or ''}\nthe session's last lines were not saved: {exc}".strip()
