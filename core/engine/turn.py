"""One ReAct turn (seed 002 A2, D3, E1) as an async stream of typed events.

Each step builds the prompt, streams the model's reply, parses `Thought/Action`, writes the assistant text to
history at once, runs the tool, and writes its *stored* result to history at once, so a crash mid-turn loses
nothing. The model reasons over the scratchpad (this turn's steps) under the configured policy; history keeps
the compressed record.

The loop is this module's; its parts are their own: the input up to its recording (``turn_input.TurnInput``), one
model call (``model_call.ModelCall``), a reply acted on (``tool_step.ToolStep``), a turn without an answer recorded
(``turn_ends.TurnEnds``), the prompt's fitting summed up (``fitted.Fitted``), replies without an Action in a row
(``no_action.NoActionStreak``), the user's own words or rules cut, said once a turn (``cut_notices.CutNotices``),
the prompt against the window (``over_window.OverWindow``), what the loop carries from step to step
(``turn_run.TurnRun``).
"""

from __future__ import annotations

from contextlib import aclosing
from typing import AsyncGenerator

from contextual.core import secrets
from contextual.core.context import continuation
from contextual.core.context.compaction_review import Event
from contextual.core.context.scratchpad import step_of
from contextual.core.engine.compactor import Compactor
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.fitted import Fitted
from contextual.core.engine.hook_runner import HookRunner
from contextual.core.engine.model_call import ModelCall, Reply
from contextual.core.engine.no_action import NoActionStreak
from contextual.core.engine.over_window import OverWindow
from contextual.core.engine.permission_gate import PermissionGate
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.engine.tool_step import ToolStep
from contextual.core.engine.toolbox import Toolbox
from contextual.core.engine.turn_ends import Said, TurnEnds
from contextual.core.engine.turn_input import Opening, TurnInput
from contextual.core.engine.turn_run import TurnRun
from contextual.core.events import (EngineEvent, ErrorEvent, FormatErrorEvent, MessageRecorded, Notice,
                                    PromptChanged, StopHookContinued, TurnFinished)
from contextual.core.providers.base import ContextLengthExceeded, ProviderError
from contextual.core.textsafe import valid_unicode


class TurnLoop:
    def __init__(self, settings: Settings, prompt: PromptState, recorder: Recorder, toolbox: Toolbox,
                 gate: PermissionGate, controls: ContextControls, compactor: Compactor) -> None:
        self._settings = settings
        self._prompt = prompt
        self._recorder = recorder
        self._toolbox = toolbox
        self._gate = gate
        self._controls = controls
        self._compactor = compactor
        self._hooks = HookRunner(settings, recorder)
        self._fitted = Fitted(lambda: self._settings.config.context_window, recorder.fitted)
        self._ends = TurnEnds(prompt, recorder, controls)
        self._input = TurnInput(settings, prompt, recorder, controls, compactor, self._hooks, self._ends)
        self._model_call = ModelCall(settings, prompt, recorder, controls, self._fitted)
        self._tool_step = ToolStep(prompt, recorder, toolbox, gate, self._hooks, self._fitted)
        self._window = OverWindow(settings, prompt, compactor)
        self.running = False
        self._turn_id: str | None = None     # the running turn's; None once its end is recorded
        self._turn_model = ""       # a custom command's `model:` for its one turn; "" is the session's model
        self._streaming: Said | None = None     # the reply streaming now: kept in history if the turn stops

    def sync_tools(self) -> list[EngineEvent]:
        return self._toolbox.sync(self._prompt, announce=self._controls.sent.count > 0)

    def changes(self, force: bool = False) -> list[EngineEvent]:
        """MessageRecorded for what was recorded since last time, then one PromptChanged when the next prompt is
        settled: after the user's message and after each step's result (not after the step's own action, whose
        result is still to come), and at the turn's end (``force``) — so at most one view per step."""
        recorded = self._recorder.take_recorded()
        out: list[EngineEvent] = [MessageRecorded(m) for m in recorded]
        if force or any(m.role in ("user", "tool") for m in recorded):
            out.append(PromptChanged(self._prompt.next_prompt))
        return out

    # ---- one turn --------------------------------------------------------------------------------
    async def run(self, text: str, grants: tuple[str, ...] = (), model: str = "", as_typed: str = ""
                  ) -> AsyncGenerator[Event, None]:
        """One turn; `grants`: permission rules that hold without asking for this turn only (a custom command's
        allowed-tools); `model`: the model this turn's calls name (a custom command's `model:`), the session's
        model back afterwards; `as_typed`: what the user typed when `text` was made from it (`/init`, `/review a.py`):
        recorded as the message's `raw`, what a resumed chat shows and /rewind gives back."""
        ev: Event
        if self._settings.provider is None:
            yield ErrorEvent(self._settings.config.missing_model_message() or "no model configured", "config")
            return
        for ev in self.sync_tools():
            yield ev
        too_small = self._prompt.window_problem(text)      # L1 with the tools in force; nothing sent nor recorded
        if too_small is not None:
            yield ErrorEvent(too_small, "config")
            return
        self._compactor.new_turn()
        opening = self._input.open(text, as_typed)
        async with aclosing(self._input.admit(opening)) as events:
            async for ev in events:
                yield ev
        if not opening.kept:
            return
        self._start(opening, grants, model)
        for change in self.changes():
            yield change
        terminal: TurnFinished | ErrorEvent | None = None
        crashed: Exception | None = None
        try:
            async with aclosing(self._loop(opening.turn_id)) as events:
                async for ev in events:
                    if isinstance(ev, (TurnFinished, ErrorEvent)):
                        terminal = ev
                        continue
                    yield ev
                    for change in self.changes():
                        yield change
        except Exception as exc:        # a bug of ours, not the user's Esc: the record says which
            crashed = exc
            raise
        finally:
            # summed up and recorded however the turn ended: a stopped one's too (-p says it from the record)
            summary = self._fitted.summary()
            unwritten = await self._close(opening.turn_id, terminal, crashed)
        if unwritten is not None:
            yield Notice(f"{unwritten}; this turn's lines are kept and written once the disk takes them",
                         "warning")
        if summary is not None:
            yield summary
        for change in self.changes(force=True):       # the turn is closed: the view is the next turn's prompt
            yield change
        yield terminal or ErrorEvent("the turn ended without an answer", "interrupted")

    def _start(self, opening: Opening, grants: tuple[str, ...], model: str) -> None:
        """The message recorded and the turn open: its scratchpad, its grants and model, its snapshots."""
        self._fitted.clear()
        message = self._input.record(opening)
        self._prompt.start_turn(message.content)
        self.running = True
        self._turn_id = opening.turn_id
        self._gate.grant_for_turn(grants)
        self._turn_model = model
        recorder = self._recorder
        if recorder.snapshots is not None:
            self._toolbox.guard_changes(recorder.snapshots.before_change_hook(opening.turn_id, recorder.entry,
                                                                             on_warning=recorder.warn_after_call))

    async def _close(self, turn_id: str, terminal: TurnFinished | ErrorEvent | None,
                     crashed: Exception | None) -> str | None:
        """The turn closed however it ended (``terminal`` None: stopped, or ``crashed``); what the disk refused."""
        abandoned, self._turn_id = self._turn_id is None, None
        if abandoned:
            pass                                    # abandon() recorded its end
        elif terminal is None:
            self._ends.interrupted(turn_id, crashed, self._streaming)
        elif isinstance(terminal, ErrorEvent):      # a resumed chat and the export say why, as the live chat did
            self._ends.failed(turn_id, terminal.kind, terminal.message)
        self.running, self._streaming = False, None
        self._gate.grant_for_turn(())
        self._turn_model = ""
        self._prompt.end_turn()
        self._toolbox.guard_changes(None)
        await self._recorder.finish_snapshot(turn_id)
        return await self._recorder.flush_or_say()

    def abandon(self, snapshot_within: float) -> None:
        """The process ends before this turn's close can run (its loop is stuck): its end recorded now, as a stop,
        and the snapshot of its changes closed as the close would have (`snapshot_within` seconds at most)."""
        turn_id, self._turn_id = self._turn_id, None
        if self.running and turn_id is not None:
            self._ends.interrupted(turn_id, said=self._streaming)
            self._recorder.finish_snapshot_now(turn_id, snapshot_within)

    async def _loop(self, turn_id: str) -> AsyncGenerator[Event, None]:
        """The turn's steps, each one model call and what its reply does, until one ends the turn or the step
        limit does."""
        max_steps = self._settings.config.max_steps
        run = TurnRun(NoActionStreak(self._settings.config.provider))
        while run.step < max_steps:
            async with aclosing(self._step(run, turn_id)) as events:
                async for ev in events:
                    yield ev
            if run.ended:
                return
        yield ErrorEvent(f"step limit reached: {max_steps} model calls in one turn without Finish "
                         "(raise it with --max-steps)", "step_limit")

    async def _step(self, run: TurnRun, turn_id: str) -> AsyncGenerator[Event, None]:
        """One model call: the prompt made sendable, streamed, and the reply acted on. A refusal as over the
        server's window leaves `run.step` as it was, so the loop tries the call again (once a turn)."""
        ev: Event
        async with aclosing(self._before_call(run.step)) as events:
            async for ev in events:
                yield ev
        async with aclosing(self._window.sendable(run)) as events:
            async for ev in events:
                yield ev
        if run.ended or run.built is None:
            return
        built = run.built
        for note in self._prompt.builder.rules_notices():      # a rules file refused or cut: the user hears it too
            yield Notice(note, "warning")
        for notice in run.cuts.of(built, self._settings.config.context_window):
            yield notice
        # Shown on the messages they touched (the view of this same prompt went out with the step before),
        # summed up once at turn end: no chat line per step.
        self._fitted.add(built.adjustments)
        reply = Reply()
        self._streaming = Said(reply, run.step + 1)
        try:
            async with aclosing(self._model_call.stream(built, run.step + 1, reply, self._turn_model)) as events:
                async for ev in events:
                    yield ev
        except ContextLengthExceeded as exc:
            self._streaming = None
            async with aclosing(self._window.refused(run, exc, built)) as events:
                async for ev in events:
                    yield ev
            return
        except ProviderError as exc:
            run.ended = True
            yield ErrorEvent(str(exc), "provider")
            return
        self._streaming = None          # streamed whole: acted on below
        said = await self._settings.recheck_window()     # a server down at launch states its window now
        if said is not None:
            yield Notice(said, "warning")
        run.step += 1
        async with aclosing(self._act(run, reply, turn_id)) as events:
            async for ev in events:
                yield ev

    async def _act(self, run: TurnRun, reply: Reply, turn_id: str) -> AsyncGenerator[Event, None]:
        """The whole reply acted on (step `run.step`): its tool run, or its answer put to the Stop hooks; the turn
        ends (`run.ended`) on a hook's stop, on too many replies without an Action, or on an answer that stands."""
        ev: Event
        answered: TurnFinished | None = None
        format_error = False
        cut_at = self._settings.config.reply_max_tokens if reply.cut else None
        async with aclosing(self._tool_step.act(secrets.redact(valid_unicode("".join(reply.text))),
                                                secrets.redact(valid_unicode("".join(reply.thinking))), run.step,
                                                turn_id, cut_at)) as events:
            async for ev in events:
                if isinstance(ev, TurnFinished):       # an answer: the Stop hooks say whether the turn ends
                    answered = ev
                    continue
                format_error = format_error or isinstance(ev, FormatErrorEvent)
                yield ev
                if isinstance(ev, ErrorEvent):          # a hook ended the turn
                    run.ended = True
                    return
        no_action = run.streak.see(reply, format_error, cut_at)
        if no_action is not None:
            run.ended = True
            yield ErrorEvent(secrets.redact(no_action), "no_action")
            return
        if answered is not None:
            async with aclosing(self._stop_hooks(answered, run.step, run.continued, turn_id)) as events:
                async for ev in events:
                    yield ev
                    if isinstance(ev, TurnFinished):    # the answer stands: the turn is over
                        run.ended = True
                        return
            run.continued += 1

    async def _before_call(self, step: int) -> AsyncGenerator[Event, None]:
        """The tools in force before each call (an MCP server may have come or gone); a turn that outgrew the trigger
        archives closed rounds now rather than cut them (issue 24)."""
        for ev in self.sync_tools():
            yield ev
        prompt = self._prompt
        if step and self._settings.config.auto_compact and not self._compactor.declined \
                and prompt.compaction_due().due and prompt.archive_plan() is not None:
            async with aclosing(self._compactor.run("auto", None)) as events:
                async for event in events:
                    yield event

    async def _stop_hooks(self, answer: TurnFinished, step: int, continued: int, turn_id: str
                          ) -> AsyncGenerator[Event, None]:
        """Claude Code's Stop hooks at an answer: a block makes the turn go on with the hook's reason as the model's
        next message (core/context/continuation.py) and ends with StopHookContinued, at most MAX_CONTINUATIONS times
        a turn and within its step limit; else the turn ends with the answer (TurnFinished). `continue: false` ends
        it whatever a hook said."""
        max_steps = self._settings.config.max_steps
        said = await self._hooks.stop(answer.answer, active=continued > 0)
        for note in said.notes:
            yield Notice(note, "warning")
        if said.stop is not None:
            yield Notice(f"a Stop hook ended the turn: {said.stop}", "info")
        elif said.blocked and continued >= continuation.MAX_CONTINUATIONS:
            yield Notice(continuation.cap_line(said.reason), "warning")
        elif said.blocked and step >= max_steps:
            yield Notice(f"a Stop hook asked the turn to go on ({said.reason}), but its {max_steps} model calls "
                         "are spent (--max-steps): it ends with this answer", "warning")
        elif said.blocked:
            history = self._prompt.history.messages
            answered = next(m for m in reversed(history) if m.role == "assistant")     # recorded by ToolStep._answer
            went_on = self._recorder.append(continuation.message(said.reason, turn_id, step))
            self._prompt.add_step(step_of(answered, went_on))
            yield StopHookContinued(said.reason, step, continued + 1)
            return
        yield answer
