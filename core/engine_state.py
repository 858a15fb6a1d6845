"""What the engine holds and shows: its state, the recording of messages, and the next prompt (PromptView).

`Engine` (core/agent.py) runs turns and compactions on top of this; the state has one owner, the Engine
object, and the code that changes it is in these two files only.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from contextual.core.clock import now_iso
from contextual.core.config import Config
from contextual.core.context.builder import Built, ContextBuilder
from contextual.core.context.controls import ContextControls
from contextual.core.context.history import HistoryManager
from contextual.core.context.pairing import normalize
from contextual.core.context.preprocess import preprocess
from contextual.core.context.rules import SHARE as RULES_SHARE
from contextual.core.context.scratchpad import ScratchStep
from contextual.core.context.trigger import compaction_due
from contextual.core.events import (EngineEvent, MessageRecorded, Notice, PromptChanged, ToolsChanged, TurnAdjustments,
                         UsageEvent)
from contextual.core.messages import Message
from contextual.core.model_facts import cost
from contextual.core.ports import SessionSink, SnapshotHook
from contextual.core.prompt import PromptView, Trigger, UsageFigures
from contextual.core.providers.base import Provider, UsageChunk
from contextual.core.tokens import calibration_for
from contextual.core.tools.base import ToolContext

def _todo_recap(todos: list[dict]) -> str:
    if not todos:
        return ""
    from contextual.core.tools.todowrite import todo_recap
    return todo_recap(todos)


def path_of(args: Any) -> str:
    """The file or folder a tool call names (PromptView sources)."""
    path = (args.get("file_path") or args.get("path")) if isinstance(args, dict) else None
    return path if isinstance(path, str) else ""


class EngineState(ContextControls):
    def __init__(self, config: Config, provider: Provider | None, tools: dict | None = None,
                 session: SessionSink | None = None, policy: str = "ours", system_prompt: str | None = None,
                 interactive: bool = True, summary_provider: Provider | None = None,
                 snapshots: SnapshotHook | None = None, warnings: list[str] | None = None) -> None:
        if tools is None:
            from contextual.core.tools.registry import default_tools
            tools = default_tools()
        if system_prompt is None:
            from contextual.core.l1 import system_prompt as build_system_prompt
            system_prompt = build_system_prompt(tools)     # L1 describes the tools this engine has
        self.config = config
        self.base_system_prompt = system_prompt      # L1 without MCP tools
        self.mcp: Any = None                         # core.mcp.manager.MCPManager when servers are configured
        self._mcp_version = 0
        self._prompt_sent = False                    # after the first model call a tool change is an event
        self.provider = provider
        self.summary_provider = summary_provider or provider
        self.tools = tools
        self.base_tools = dict(tools)                # the built-in tools; MCP tools join at run time
        self.session = session
        self.snapshots = snapshots
        self.interactive = interactive
        self.history = HistoryManager()
        # Our cl100k count is not the server's: prompts are fitted through the learned ratio (issue 18.1).
        self.calibration = calibration_for(config.home)
        self._limit_scale = 1.0                     # 0.8 for the rest of a turn the server rejected for size
        self.builder = ContextBuilder(system_prompt, config.project_root, config.prompt_limit, policy,
                                      rules_share=int(RULES_SHARE * config.context_window))
        # A Read deny rule covers every tool that shows file contents or names (the config in force now).
        self.ctx = ToolContext(root=config.project_root, withheld=lambda rel: self.config.permissions.withholds(
            rel, str(self.config.project_root)))
        self.last_usage: int | None = None
        self.last_call: UsageFigures | None = None
        self.session_usage = UsageFigures()
        self.compactions: list[dict] = []
        self.allowed_for_session: set[str] = set()
        self.steps: list[ScratchStep] = []          # the current (or last finished) turn's scratchpad
        self.question: str | None = None            # the current turn's preprocessed input
        self.turn_start: int | None = None          # index in history of the current turn's user message
        self.running = False
        self.warnings: list[str] = list(warnings or ())   # e.g. corrupt session lines skipped on resume
        self._pending: list[str] = []              # warnings raised inside a tool call (slow snapshot), shown after it
        self._recorded: list[Message] = []         # recorded since the last MessageRecorded events went out
        self._turn_adjustments: list = []          # the builder's adjustments during this turn, summed up at its end
        self._summary_task: asyncio.Task | None = None
        self._compaction_cancelled = False
        self._init_controls()                       # issue 19: pins, reminders, the calls sent, the live policy
        self.builder.pins = self.pins

    # ---- state -----------------------------------------------------------------------------------
    def set_model(self, model: str) -> None:
        """Switch the model for the next calls (`/model NAME`); summaries follow unless set apart."""
        self.config = replace(self.config, model=model)

    def connect(self, config: Config, provider: Provider | None) -> None:
        """The app opens its engine before asking the server anything (its first frame waits for nothing): the
        window found at startup and the provider arrive here, between turns."""
        self.config = config
        self.builder.limit = config.prompt_limit
        self.builder.rules_share = int(RULES_SHARE * config.context_window)
        self.provider = self.summary_provider = provider

    def attach_mcp(self, manager: Any) -> None:
        self.mcp = manager
        self.warnings += [ev.message for ev in self.sync_tools() if isinstance(ev, Notice)]

    def sync_tools(self) -> list[EngineEvent]:
        """Take in MCP servers that came up or went away: the tool set and L1 change together (and only
        then), announced once the session has sent a prompt; their one-line problems become notices."""
        if self.mcp is None:
            return []
        out: list[EngineEvent] = [Notice(line, "warning") for line in self.mcp.drain_reports()]
        if self.mcp.version != self._mcp_version:
            self._mcp_version = self.mcp.version
            before = set(self.tools)
            self.tools = {**self.base_tools, **self.mcp.tools()}
            self.builder.system_prompt = self.base_system_prompt + self.mcp.l1_section()
            if self._prompt_sent:
                out.append(ToolsChanged(tuple(sorted(set(self.tools) - before)), tuple(sorted(before - set(self.tools))),
                                        self.builder.cache.message(self.builder.system_prompt)))
            out.append(PromptChanged(self.next_prompt()))      # the meter and /context read L1 anew
        return out

    @property
    def session_id(self) -> str | None:
        return getattr(self.session, "session_id", None)

    def restore(self, history: list[Message], last_usage: int | None, todos: list[dict],
                compactions: list[dict], warnings: list[str] = ()) -> None:
        """Resume: history-as-stored, the last usage (so the trigger is right at once), todos, compaction log,
        and what the loader warned about (skipped lines)."""
        self.history.messages = normalize(list(history))
        self.last_usage = last_usage
        self.ctx.todos[:] = todos
        self.compactions = list(compactions)
        self.warnings += list(warnings)

    def attach_session(self, session: SessionSink | None, snapshots: SnapshotHook | None) -> None:
        """The app opens its session at the first input (an idle launch leaves no file): between turns only."""
        if self.running:
            raise RuntimeError("a session cannot be attached while a turn runs")
        self.session, self.snapshots = session, snapshots

    def warn(self, message: str, first: bool = False) -> None:
        """A warning for the front end to show before the next turn (e.g. the session will not be saved)."""
        self.warnings.insert(0, message) if first else self.warnings.append(message)

    def add_message(self, message: Message) -> None:
        """Take in a message made outside a turn and already written to the session by its maker (undo's note
        telling the model its changes are gone); it reaches the next prompt and the next MessageRecorded."""
        if self.running:
            raise RuntimeError("a message cannot be added while a turn runs")
        self.history.append(message)
        self._recorded.append(message)

    def _l3(self) -> list[Message]:
        end = self.turn_start if self.turn_start is not None else len(self.history.messages)
        return self.history.messages[:end]

    def _fit_limit(self) -> int:
        """The prompt limit in our tokens: the window less the reserve, through the calibration (and lower for
        the rest of a turn the server rejected for size)."""
        return self.calibration.fit(int(self.config.prompt_limit * self._limit_scale), self.config.model)

    def build(self, next_input: str | None = None) -> Built:
        limit = self._fit_limit()
        if self.turn_start is not None:
            return self.builder.build(self._l3(), self.steps, self.question, _todo_recap(self.ctx.todos), limit)
        question = self.with_reminders(preprocess(next_input, self.config.project_root)) if next_input else None
        return self.builder.build(self.history.messages, [], question, _todo_recap(self.ctx.todos), limit)

    # ---- the next prompt: one source of truth ------------------------------------------------------
    def next_prompt(self, input_text: str = "") -> PromptView:
        """The next call's prompt exactly as it would be sent, with every figure the screen shows about it.
        During a turn it is the turn's next step (the input is the turn's own)."""
        return self.view_of(self.build(input_text or None), input_text)

    def view_of(self, built: Built, input_text: str = "") -> PromptView:
        """A built prompt with the figures around it (the turn's own build, not a second one)."""
        without_input = built.total - built.tokens.get("input", 0)
        trigger = self._trigger(input_text, without_input)
        return PromptView(tuple(built.messages), tuple(built.dropped), dict(built.tokens), built.total,
                          self.config.context_window, self._fit_limit(), trigger, tuple(built.adjustments),
                          self.last_call, self.session_usage, self.config.model or "", self.config.provider,
                          self.calibration.factor(self.config.model), self.last_usage)

    def compaction_due(self, input_text: str = "") -> Trigger:
        """A6: would this input compact first? (estimate, threshold, due)."""
        return self._trigger(input_text, None)

    def _trigger(self, input_text: str, counted: int | None) -> Trigger:
        archivable = self.history.plan(self.config.keep_rounds) is not None
        if counted is None and (self.last_usage is None or not archivable):
            counted = self.build(None).total
        return compaction_due(last_usage=self.last_usage, counted=counted or 0, input_text=input_text,
                              archivable=archivable, messages=len(self.history.messages),
                              threshold=self.config.threshold,
                              warn_at=int(self.config.warn_ratio * self.config.context_window))

    # ---- recording -----------------------------------------------------------------------------
    def _append(self, message: Message) -> None:
        message.meta.setdefault("timestamp", now_iso())     # the summary's archived span comes from these
        self.history.append(message)
        self._recorded.append(message)
        if self.session is not None:
            self.session.append_message(message)

    def rewind_to(self, message_id: str) -> Message:
        """Rewind (the TUI's /rewind): history goes back to just before the user message ``message_id``; the
        session records it so a resume agrees. Returns that message (its text goes back into the input)."""
        if self.running:
            raise RuntimeError("cannot rewind while a turn runs")
        index = next(i for i, m in enumerate(self.history.messages) if m.id == message_id and m.role == "user")
        message = self.history.messages[index]
        self.history.messages = self.history.messages[:index]
        self.last_usage = None          # the last call's usage described a longer history
        if self.session is not None:
            self.session.append_entry({"type": "system", "subtype": "rewind", "toUuid": message_id})
        return message

    def _changes(self, force: bool = False) -> list[EngineEvent]:
        """MessageRecorded for what was recorded since last time, then one PromptChanged."""
        if not self._recorded and not force:
            return []
        out: list[EngineEvent] = [MessageRecorded(m) for m in self._recorded]
        self._recorded = []
        return out + [PromptChanged(self.next_prompt())]

    def _adjustments_summary(self) -> TurnAdjustments:
        """Once per turn: at its answer, or at its end when it ends otherwise."""
        adjustments = tuple(self._turn_adjustments)
        self._turn_adjustments = []
        counts: dict[str, int] = {}
        for a in adjustments:
            counts[a.action] = counts.get(a.action, 0) + 1
        steps = ", ".join(f"{action} ×{n}" for action, n in counts.items())
        first, last = adjustments[0], adjustments[-1]
        return TurnAdjustments(adjustments, f"the prompt was fitted to the window at {len(adjustments)} point(s) "
                                            f"this turn ({steps}); last {last.tokens_before:,} → "
                                            f"{last.tokens_after:,} tokens (first {first.tokens_before:,})")

    def _record_entry(self, entry: dict) -> None:
        if self.session is not None:
            self.session.append_entry(entry)

    async def _finish_snapshot(self, turn_id: str) -> None:
        try:
            entry = await self.snapshots.finish_turn(turn_id)
        except Exception:   # a snapshot problem must never lose the turn
            return
        if entry:
            self._record_entry(entry)

    def _usage(self, chunk: UsageChunk) -> UsageEvent:
        self.last_usage = chunk.input_tokens + chunk.output_tokens
        self.last_call = UsageFigures(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens,
                                      chunk.cache_creation_tokens, cost(chunk, self.config.model, self.config.models))
        self.session_usage = self.session_usage.plus(self.last_call)
        usage = UsageEvent(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens, chunk.cache_creation_tokens)
        if self.session is not None:
            self.session.append_usage(usage)
        return usage

    async def _flush(self, fsync: bool) -> None:
        if self.session is not None:
            await self.session.flush(fsync=fsync)
