"""The engine: a thin façade over the parts in `core/engine/`, each owning its own fields (see its __init__).

Front ends (the app, `-p`, `contextual context`, the replays) talk to this class only; it wires the parts
together and passes calls through.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import Any, AsyncGenerator, Collection, Mapping, Sequence, TYPE_CHECKING

from contextual.core.config import Config
from contextual.core.context.builder import Built, ContextBuilder
from contextual.core.context.history import HistoryManager
from contextual.core.context.pins import Pins
from contextual.core.context.sent_log import SentLog
from contextual.core.engine.compactor import Compactor, truncation_note
from contextual.core.engine.controls import ContextControls
from contextual.core.permissions import mode_reminder
from contextual.core.engine.permission_gate import PermissionGate
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.engine.toolbox import Toolbox
from contextual.core.engine.turn import TurnLoop
from contextual.core.engine.turn_ends import INTERRUPTED_NOTE, failed_note
from contextual.core.context.compaction_review import Event
from contextual.core.events import EngineEvent, ErrorEvent, Notice, UsageEvent
from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.core.ports import SessionSink, SnapshotHook
from contextual.core.prompt import PromptView, Trigger, UsageFigures
from contextual.core.providers.base import Provider
from contextual.core.session.schema import (CompactionRecord, FittedRecord, PermissionRecord, Truncation, TurnEnd,
                                           rewind_body)
from contextual.core.tools.base import Todo, Tool, ToolContext
from contextual.core.tools.bash import kill_running
from contextual.core.tokens import count

if TYPE_CHECKING:       # the MCP layer is imported only when a server is configured
    from contextual.core.mcp.manager import Listing, MCPManager
    from contextual.core.custom_commands import CustomCommand

__all__ = ["Engine", "Event", "FORMAT_ERROR_TOOL"]

ABANDONED_SNAPSHOT_S = 5.0      # an abandoned turn's after-snapshot (git reads the tree) before the process ends


class Engine:
    """One ReAct turn at a time (`run_turn`), compaction (`compact`), the next prompt (`next_prompt`)."""

    def __init__(self, config: Config, provider: Provider | None, tools: dict[str, Tool] | None = None,
                 session: SessionSink | None = None, policy: str = "ours", system_prompt: str | None = None,
                 interactive: bool = True, summary_provider: Provider | None = None,
                 snapshots: SnapshotHook | None = None, warnings: list[str] | None = None,
                 settings: Settings | None = None) -> None:
        """``settings``: shared with other engines (the app's host owns one for all its sessions); when given,
        ``config`` and ``provider`` must be its own."""
        if tools is None:
            from contextual.core.tools.registry import default_tools
            tools = default_tools()
        if system_prompt is None:
            from contextual.core.l1 import system_prompt as build_system_prompt
            system_prompt = build_system_prompt(tools)     # L1 describes the tools this engine has
        self.settings = settings if settings is not None else Settings(config, provider, summary_provider)
        assert self.settings.config is config, "config must be the shared settings' own"
        self.controls = ContextControls(lambda: mode_reminder(self.settings.config.permission_mode))
        self.toolbox = Toolbox(self.settings, tools, system_prompt)
        self.prompt = PromptState(self.settings, system_prompt, policy, self.controls.pins,
                                  lambda: self.toolbox.ctx.todos, self.controls.with_reminders)
        # Headless runs say what the project's unapproved config lost; the app asks instead (tui/screens/trust.py).
        unapproved = () if interactive else self.settings.config.trust_notices
        # where the window came from, when that needs words, and a reserve it leaves no room: the app says both
        # once it has asked the server (tui/startup.py: _connect)
        reserve = [] if interactive else [n for n in (config.window_note, config.reserve_notice) if n]
        hooks = () if interactive else config.hooks.notes     # Claude Code hooks not run here; the app: greet
        self.recorder = Recorder(self.prompt.history, session, snapshots,
                                 [*unapproved, *reserve, *hooks, *(warnings or [])])
        self.gate = PermissionGate(self.settings, self.recorder, interactive)
        self.compactor = Compactor(self.settings, self.prompt, self.recorder, self.controls.pins, interactive,
                                   remind=self.controls.remind, withdraw=self.controls.withdraw,
                                   restarted=self.controls.session_started)
        self.turn = TurnLoop(self.settings, self.prompt, self.recorder, self.toolbox, self.gate, self.controls,
                             self.compactor)

    # ---- read-only views of the parts' state -------------------------------------------------------
    @property
    def config(self) -> Config:
        return self.settings.config

    @property
    def provider(self) -> Provider | None:
        return self.settings.provider

    @property
    def history(self) -> HistoryManager:
        return self.prompt.history

    @property
    def builder(self) -> ContextBuilder:
        return self.prompt.builder

    @property
    def last_usage(self) -> int | None:
        return self.prompt.usage.last

    @property
    def session_usage(self) -> UsageFigures:
        """Every call of the session so far (summaries included, resumed ones at their models' prices): /cost, the
        meter and `-p`'s result read these figures, never a sum of their own."""
        return self.prompt.usage.session

    @property
    def compactions(self) -> list[CompactionRecord]:
        return self.compactor.log

    @property
    def permissions(self) -> list[PermissionRecord]:
        """The user's answers to the permission dialog in this session, each after the call it answered."""
        return self.gate.decided

    @property
    def turn_ends(self) -> dict[str, TurnEnd]:
        """Why this session's turns that ended without an answer did, by turn id (the chat says it where they end)."""
        return self.recorder.turn_ends

    @property
    def fittings(self) -> list[FittedRecord]:
        """Each turn's fitting to the window summed up, after the message it followed (the chat's "context
        adjusted" rows); a stopped turn's is recorded at its close, after its events stopped."""
        return self.recorder.fittings

    @property
    def session(self) -> SessionSink | None:
        return self.recorder.session

    @property
    def session_id(self) -> str | None:
        return self.recorder.session_id

    @property
    def warnings(self) -> list[str]:
        return self.recorder.warnings

    @property
    def tools(self) -> dict[str, Tool]:
        return self.toolbox.tools

    @property
    def ctx(self) -> ToolContext:
        return self.toolbox.ctx

    @property
    def mcp(self) -> MCPManager | None:
        return self.toolbox.mcp

    @property
    def running(self) -> bool:
        return self.turn.running

    @property
    def pins(self) -> Pins:
        return self.controls.pins

    @property
    def reminders(self) -> list[str]:
        return self.controls.reminders

    @property
    def pending_shell(self) -> list[tuple[str, str, str]]:
        """The user's `!command` results waiting for the next message: (as sent, whole, the command)."""
        return list(self.controls.shell)

    @property
    def sent(self) -> SentLog:
        return self.controls.sent

    @property
    def allowed_for_session(self) -> set[str]:
        return self.gate.allowed_for_session

    @property
    def policy(self) -> str:
        return self.prompt.builder.policy

    # ---- turns and compaction ------------------------------------------------------------------------
    def run_turn(self, text: str, typed: str = "") -> AsyncGenerator[Event, None]:
        """One ReAct turn; ends with `TurnFinished` or `ErrorEvent`. `typed`: what the user typed, when `text` was
        made from it (`/init`)."""
        return self.turn.run(text, as_typed=typed)

    async def run_command(self, command: CustomCommand, arguments: str) -> AsyncGenerator[Event, None]:
        """A custom command's turn (issue 30.3): its prompt with the arguments put in and its shell lines' output
        in their place, its allowed-tools granted and its `model:` used for this turn only. An inert command runs
        nothing."""
        if command.inert:
            yield ErrorEvent(f"{command.name} does nothing: {command.inert}", "config")
            return
        from contextual.core.custom_commands import held_model_line
        held = held_model_line(command, self.config.project_root)
        if held is not None and not self.gate.interactive:     # the app said it when its trust question was answered
            yield Notice(held, "warning")       # its turn runs on the session's model: said, never silently
        text = command.expand(arguments)
        if command.shell_lines:
            from contextual.core.command_shell import inline_shell
            # the lines are judged like the model's Bash calls: the rules, this session's allowances, its grants
            granted = (*command.allowed_tools, *sorted(self.gate.allowed_for_session))
            text, ran = await inline_shell(text, self.config, granted)
            for one in ran:
                yield Notice(one.note, "info" if one.note.startswith("ran ") else "warning")
        async with aclosing(self.turn.run(text, grants=command.allowed_tools, model=command.turn_model,
                                          as_typed=command.as_typed(arguments))) as events:
            async for ev in events:
                yield ev

    def compact(self, instructions: str | None = None, keep_rounds: int | None = None,
                preview: bool = False) -> AsyncGenerator[Event, None]:
        """Manual `/compact [instructions]`; ``keep_rounds`` overrides the configured number for this once;
        ``preview``: the summary waits for the user's review (CompactionReview) before anything changes."""
        return self.compactor.run("manual", instructions, keep_rounds, preview)

    def cancel_compaction(self) -> None:
        self.compactor.cancel()

    # ---- the next prompt: one source of truth ---------------------------------------------------------
    def next_prompt(self, input_text: str = "") -> PromptView:
        return self.prompt.next_prompt(input_text)

    def compaction_due(self, input_text: str = "") -> Trigger:
        return self.prompt.compaction_due(input_text)

    def build(self, next_input: str | None = None) -> Built:
        return self.prompt.build(next_input)

    # ---- between turns ----------------------------------------------------------------------------------
    def _between_turns(self, what: str) -> None:
        if self.turn.running:
            raise RuntimeError(f"{what} while a turn runs")

    async def set_model(self, model: str) -> None:
        """Switch the model for the next calls (`/model NAME`), with its window (`Settings.set_model`)."""
        self._between_turns("cannot switch the model")
        await self.settings.set_model(model)

    @property
    def mcp_listing(self) -> Listing | None:
        """What L1 says of the MCP tools now: all of them, or (past the budget) the servers and ToolSearch."""
        return self.toolbox.listing

    def attach_mcp(self, manager: MCPManager) -> None:
        """The servers' tools taken in; what the manager has to say is printed by -p at start (warnings). The app
        never showed warnings of a new session: its lines (a malformed or FIFO `.mcp.json`) wait in the manager for
        the app's next sync, which puts them in the chat; those of servers it asks about are its own (tui trust)."""
        self.toolbox.attach(manager)
        asked = {item.skipped(self.settings.config.project_root) for item in manager.unapproved}
        for ev in self.sync_tools():
            if isinstance(ev, Notice):
                if self.gate.interactive and ev.message not in asked:
                    manager.report(ev.message)
                else:
                    self.recorder.warn(ev.message)

    def sync_tools(self) -> list[EngineEvent]:
        """Take in MCP servers that came up or went away (`Toolbox.sync`)."""
        return self.turn.sync_tools()

    def restore(self, history: list[Message], last_usage: int | None, todos: list[Todo],
                compactions: list[CompactionRecord], warnings: Sequence[str] = (),
                calls: Sequence[UsageEvent] = (), stopped: bool = False, failed: str | None = None,
                cut: Truncation | None = None,
                permissions: Sequence[PermissionRecord] = (), turn_ends: Mapping[str, TurnEnd] | None = None,
                notes: Sequence[str] = (), fittings: Sequence[FittedRecord] = (),
                shell: Sequence[tuple[str, str, str]] = ()) -> None:
        """Resume: history-as-stored, the last usage (so the trigger is right at once), todos, compaction log,
        what the loader warned about (skipped lines), every call's usage (the session's cost) and the permission
        answers (the chat shows them where they were given), why turns ended without an answer and how they were
        fitted to the window (``fittings``). The notes the session owed the model go with the next input, as they
        would have in it: `stopped`, the user stopped its
        last turn; `failed`, the kind of failure that ended it; `cut`, the rounds its last compaction removed
        without a summary; `notes`, what rode on a message the user rewound to before; `shell`, the user's `!command`
        results no message took yet (as sent, whole, the command)."""
        self.prompt.restore(history, last_usage)
        self.controls.session_started("resume", instead=True)      # its SessionStart hooks hear "resume"
        self.prompt.usage.restore(calls, self.settings.config)
        self.toolbox.restore_todos(todos)
        self.compactor.restore(compactions)
        self.gate.restore(list(permissions))
        self.recorder.restore(dict(turn_ends or {}), list(warnings), list(fittings))
        if stopped:
            self.controls.remind(INTERRUPTED_NOTE)
        if failed is not None:
            self.controls.remind(failed_note(failed))
        if cut is not None:
            self.controls.remind(truncation_note(cut))
        for note in notes:
            self.controls.remind(note)
        self.controls.take_shell(shell)

    def starts_as(self, source: str) -> None:
        """How this session began, for its SessionStart hooks (core/hooks.py): `clear` for the app's /clear; a new
        engine is `startup`, a restored one `resume`. They run before the session's next input is sent."""
        self.controls.session_started(source, instead=True)

    def restore_pins(self, ids: list[str]) -> None:
        self.controls.restore_pins(self.prompt.history.messages, ids)

    def attach_session(self, session: SessionSink | None, snapshots: SnapshotHook | None) -> None:
        """The app opens its session at the first input (an idle launch leaves no file): between turns only."""
        self._between_turns("a session cannot be attached")
        self.recorder.attach(session, snapshots)

    def abandon(self) -> None:
        """The process ends now without its event loop (the app's close stuck past its deadline, tui/hangup.py):
        the running commands killed and the turn recorded as stopped with its snapshot's after-state, as the turn's
        own close would have, and the session written and closed. From any thread, the loop being stuck; nothing
        of the loop's is awaited."""
        kill_running()
        self.turn.abandon(ABANDONED_SNAPSHOT_S)
        session = self.session
        if session is not None:
            self.recorder.attach(None, None)        # a late close of the turn (the loop let go) records nothing more
            session.close_sync()

    def warn(self, message: str, first: bool = False) -> None:
        """A warning for the front end to show before the next turn (e.g. the session will not be saved)."""
        self.recorder.warn(message, first)

    def drop_warnings(self, said: Collection[str]) -> None:
        """Warnings the front end has said in its own way, no longer to be shown."""
        self.recorder.drop_warnings(said)

    async def run_user_shell(self, command: str) -> dict[str, Any]:
        """The user's `!command`: run by the Bash tool (its time and output bounds, its process group, keys kept
        out); the result joins the user's next message, stored as a Bash result (core/context/user_shell.py).
        Returns the C1 result for the screen."""
        self._between_turns("a command cannot run")
        from contextual.core.context.user_shell import shell_block
        from contextual.core.session.schema import shell_body
        result = await self.toolbox.run("Bash", {"command": command})
        sent, whole = shell_block(command, result)
        self.controls.add_shell(command, sent, whole)
        self.recorder.entry(shell_body(command, sent, whole))     # a quit, then `-c`, still sends it
        return result

    def add_message(self, message: Message) -> None:
        """Take in a message made outside a turn and already written to the session by its maker (undo's note
        telling the model its changes are gone); it reaches the next prompt and the next MessageRecorded."""
        self._between_turns("a message cannot be added")
        self.recorder.take_in(message)

    def rewind_to(self, message_id: str) -> Message:
        """Rewind (the TUI's /rewind): history goes back to just before the user message ``message_id``; the
        session records it so a resume agrees. Returns that message (its text goes back into the input). What rode
        on it (a note of rounds cut without a summary, of a stopped turn) rides on the next input: the model had
        been told only in the message taken back."""
        self._between_turns("cannot rewind")
        message = self.prompt.rewind_to(message_id)
        self.recorder.entry(rewind_body(message_id))
        for note in message.notes:
            self.controls.remind(note)
        return message

    def record_rewind(self, message_id: str) -> None:
        """Rewind to a message a compaction summarised (so not in the history): only recorded here; the session
        read again (core/session/loader.py) has the history from before it, without the later compactions."""
        self._between_turns("cannot rewind")
        self.recorder.entry(rewind_body(message_id))

    # ---- the user's hands on the context (issue 19) -------------------------------------------------
    def remind(self, text: str) -> None:
        self.controls.remind(text)

    def window_problem(self, text: str = "") -> str | None:
        """One line when the window cannot hold L1 and ``text`` with the answer's room (PromptState.window_problem):
        a turn refuses to start then, and the app says it once the window is known."""
        return self.prompt.window_problem(text)

    def carry_pending(self, other: Engine) -> list[tuple[str, str, str]]:
        """What was to ride on ``other``'s next input (re-injected ledger facts, `!command` results) rides on this
        one's: a /fork opened a new engine and they were silently dropped. Returns the `!command` results this one
        did not hold yet (a fork before an earlier message copies none of them), recorded in its session."""
        for text in other.reminders:
            self.controls.remind(text)
        from contextual.core.session.schema import shell_body
        taken = self.controls.take_shell(other.controls.shell)
        for sent, whole, command in taken:
            self.recorder.entry(shell_body(command, sent, whole))
        return taken

    def toggle_pin(self, message_id: str) -> bool:
        return self.controls.toggle_pin(self.prompt.history.messages, message_id, self.recorder.session, count,
                                        self.settings.config.context_window)

    def set_policy(self, name: str) -> None:
        self.prompt.set_policy(name)
