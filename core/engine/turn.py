"""One ReAct turn (seed 002 A2, D3, E1) as an async stream of typed events.

Each step builds the prompt, streams the model's reply, parses `Thought/Action`, writes the assistant text to
history at once, runs the tool, and writes its *stored* result to history at once, so a crash mid-turn loses
nothing. The model reasons over the scratchpad (this turn's steps) under the configured policy; history keeps
the compressed record.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from contextlib import aclosing
from typing import Any, AsyncGenerator

from contextual.core import secrets
from contextual.core.clock import now_iso
from contextual.core.context import compressor, continuation
from contextual.core.context.names import code_names
from contextual.core.context.nested_rules import with_instructions
from contextual.core.context.builder import Built
from contextual.core.context.pairing import aborted_result, unanswered
from contextual.core.context.preprocess import preprocess
from contextual.core.context.scratchpad import shorten_action, step_of
from contextual.core.context.turn_forms import plan_text
from contextual.core.engine.compactor import Compactor
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.hook_runner import HookRunner
from contextual.core.engine.permission_gate import PermissionGate
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.engine.toolbox import Toolbox
from contextual.core.events import (ActionEvent, AnswerDelta, BudgetWarning, EngineEvent, ErrorEvent, FinalAnswer,
                                    FormatErrorEvent, MessageRecorded, Notice, PromptChanged, ReasoningDelta,
                                    StopHookContinued, StreamRestarted, TextDelta, ThoughtEvent, ToolFinished,
                                    ToolOutput, ToolStarted, TurnAdjustments, TurnFinished)
from contextual.core.live_tool import run_live
from contextual.core.messages import FORMAT_ERROR_TOOL, Message, MessageMeta
from contextual.core.prompt import Adjustment
from contextual.core.providers.base import (CUT_AT_LIMIT, ChatRequest, ContextLengthExceeded, ProviderError,
                                            ReasoningChunk, StreamDone, TextChunk, ToolCallChunk, UsageChunk)
from contextual.core.react import FINISH, AnswerStream, ReactFormatError, native_action, parse_reply, strip_thinking
from contextual.core.session.schema import INTERRUPTED, STOPPED_BY_USER, TurnEnd
from contextual.core.textsafe import one_line, valid_unicode
from contextual.core.tools.base import fail, path_of
from contextual.core.context.compaction_review import Event
from contextual.core.plural import plural
from contextual.core.reminder import system_reminder


INTERRUPTED_NOTE = system_reminder("The user stopped your previous turn before it finished; what it did is above. "
                                   "Go on with it only if this message asks you to.")

def failed_note(kind: str) -> str:
    """What the model hears with the next input after a turn that failed: as after one the user stopped, two
    questions in a row would otherwise read as unfinished business (the reason itself is for the person)."""
    why = {"provider": "the model server failed", "step_limit": "it reached the step limit",
           "context_length": "its prompt did not fit the model's window", "hook": "a hook stopped it",
           "internal": "an internal error of the agent stopped it"}
    return system_reminder(f"Your previous turn ended without an answer ({why.get(kind, 'it failed')}); what it "
                           "did is above. Go on with it only if this message asks you to.")


# A failed turn's reason as recorded: the error's one line (a hook's stop reason is the hook's own text)
MAX_REASON_CHARS = 1000

# A window a server states in its rejection is taken from this size up (llama.cpp's -c 4096, Ollama's 2048): a
# smaller figure cannot hold the system prompt and a step, so it is more likely the prompt's own size misread.
MIN_TAKEN_WINDOW = 2048


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
        self.running = False
        self._turn_model = ""       # a custom command's `model:` for its one turn; "" is the session's model
        self._adjustments: list[Adjustment] = []    # the builder's adjustments during this turn, summed up at its end

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
        config, prompt, recorder = self._settings.config, self._prompt, self._recorder
        ev: Event
        if self._settings.provider is None:
            yield ErrorEvent(config.missing_model_message() or "no model configured", "config")
            return
        for ev in self.sync_tools():
            yield ev
        text = secrets.redact(valid_unicode(text))      # a key in the message is never sent (nor recorded)
        typed = preprocess(text, config.project_root)
        turn_id = uuid.uuid4().hex[:12]
        sent = now_iso()
        compacted_first = False

        def user() -> Message:
            # Made when recorded, after the compaction before the turn: its time and id come after the compaction's,
            # and a note that compaction left (rounds cut without a summary) goes with this input, not the next.
            # `sent` (when it was sent, before that compaction) says the compaction came with this input: a resumed
            # chat shows it under this message, as the live chat did, not after the turn before.
            whole = self._controls.whole_input(typed)        # the user's `!command` results whole, when any
            return Message("user", self._controls.with_reminders(typed, consume=True), full=whole,
                           meta={"turn": turn_id, "raw": secrets.redact(as_typed) or text, "timestamp": now_iso(),
                                 **({"sent": sent} if compacted_first else {})})
        kept = True         # False once a UserPromptSubmit hook refused the message
        try:
            async with aclosing(self._session_starts()) as events:     # new, resumed or cleared: before the trigger
                async for ev in events:
                    yield ev
            submitted = await self._hooks.user_prompt(secrets.redact(as_typed) or text)
            for note in submitted.notes:
                yield Notice(note, "warning")
            if submitted.blocked or submitted.stop is not None:   # Claude Code: the prompt is not sent, nor kept
                kept = False
                yield ErrorEvent(f"a UserPromptSubmit hook blocked this message: "
                                 f"{submitted.reason or submitted.stop}; it was not sent", "hook")
                return
            for added in submitted.context:     # rides inside this message, as the other reminders do
                self._controls.remind(system_reminder(f"UserPromptSubmit hook additional context: {added}"))
            trigger = prompt.compaction_due(text)
            if trigger.due:
                compacted_first = True
                async with aclosing(self._compactor.run("auto", None)) as events:
                    async for ev in events:
                        yield ev
                # the compaction owes SessionStart ("compact"): run now, so what it adds rides on this input too
                async with aclosing(self._session_starts()) as events:
                    async for ev in events:
                        yield ev
            elif trigger.estimate >= trigger.threshold and not config.auto_compact:
                # the trigger's own line: at a small window the output reserve puts it below trigger_ratio (73 % at 4k)
                yield BudgetWarning(f"context at {trigger.estimate:,} of {config.context_window:,} tokens, past "
                                    f"the trigger at {trigger.threshold:,}; auto-compaction is off — run "
                                    "/compact", trigger.estimate, config.context_window)
            elif trigger.warn:
                share = trigger.estimate / max(1, config.context_window)
                yield BudgetWarning(f"context at {trigger.estimate:,} of {config.context_window:,} tokens "
                                    f"({share:.0%}, past the {config.warn_ratio:.0%} warning line)", trigger.estimate,
                                    config.context_window)
        except BaseException:
            # Stopped (or the app quit) before the message was recorded — during a SessionStart or UserPromptSubmit
            # hook, or the compaction before the turn: it was sent, so the session keeps it, as a turn stopped before
            # its first call, and nothing typed is lost.
            if kept:
                recorder.append(user())
                self._mark_stopped(turn_id)
                await recorder.flush(fsync=True)
            raise
        self._adjustments = []
        message = user()
        recorder.append(message)
        prompt.start_turn(message.content)
        self.running = True
        self._gate.grant_for_turn(grants)
        self._turn_model = model
        ctx = self._toolbox.ctx
        if recorder.snapshots is not None:
            ctx.before_change = recorder.snapshots.before_change_hook(turn_id, recorder.entry,
                                                                      on_warning=recorder.pending.append)
        for change in self.changes():
            yield change
        terminal: TurnFinished | ErrorEvent = ErrorEvent("the turn ended without an answer", "interrupted")
        finished = False
        crashed: Exception | None = None
        try:
            async with aclosing(self._loop(turn_id)) as events:
                async for ev in events:
                    if isinstance(ev, (TurnFinished, ErrorEvent)):
                        terminal, finished = ev, True
                        continue
                    yield ev
                    for change in self.changes():
                        yield change
        except Exception as exc:        # a bug of ours, not the user's Esc: the record says which
            crashed = exc
            raise
        finally:
            if not finished:
                self._interrupt(turn_id, crashed)
            elif isinstance(terminal, ErrorEvent):      # a resumed chat and the export say why, as the live chat did
                self._mark_failed(turn_id, terminal.kind, terminal.message)
            self.running = False
            self._gate.grant_for_turn(())
            self._turn_model = ""
            prompt.end_turn()
            ctx.before_change = None
            await recorder.finish_snapshot(turn_id)
            unwritten = await recorder.flush_or_say()
        if unwritten is not None:
            yield Notice(f"{unwritten}; this turn's lines are kept and written once the disk takes them",
                         "warning")
        if self._adjustments:
            yield self._adjustments_summary()
        for change in self.changes(force=True):       # the turn is closed: the view is the next turn's prompt
            yield change
        yield terminal

    async def _session_starts(self) -> AsyncGenerator[Event, None]:
        """The SessionStart hooks the session owes (new, resumed, cleared, or just compacted: ContextControls), run
        before its next input is sent; what they add rides on that input as a reminder, once. One left pending
        when the turn is stopped during it runs before the next input."""
        controls = self._controls
        while controls.session_starts:
            source = controls.session_starts[0]
            said = await self._hooks.session_start(source)
            controls.session_starts.remove(source)
            for note in said.notes:
                yield Notice(note, "warning")
            if said.blocked or said.stop is not None:     # as in Claude Code: it cannot stop a session; the user reads it
                yield Notice(f"a SessionStart hook ({source}) said: {said.reason or said.stop}", "warning")
            for added in said.context:
                controls.remind(system_reminder(f"SessionStart hook additional context: {added}"))

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
            answered = next(m for m in reversed(history) if m.role == "assistant")     # recorded by _act
            went_on = self._recorder.append(continuation.message(said.reason, turn_id, step))
            self._prompt.add_step(step_of(answered, went_on))
            yield StopHookContinued(said.reason, step, continued + 1)
            return
        yield answer

    def _interrupt(self, turn_id: str, crashed: Exception | None = None) -> None:
        """Esc/Ctrl-C or a crash mid-turn: give a dangling call its 'aborted' result and mark the round, as stopped
        by the user or as failed on an internal error (it was recorded as the user's stop)."""
        prompt, recorder = self._prompt, self._recorder
        for call in unanswered(prompt.history.messages[prompt.turn_start or 0:]):
            recorder.append(aborted_result(call))
        if crashed is None:
            self._mark_stopped(turn_id)
        else:
            self._mark_failed(turn_id, "internal", f"internal error: {type(crashed).__name__}: {crashed}")

    def _mark_failed(self, turn_id: str, kind: str, why: str) -> None:
        """The round is recorded as failed, with why (a resumed chat and the export say it), and the model hears
        the kind of failure with the next input (failed_note)."""
        self._recorder.turn_ended(TurnEnd(turn_id, kind, one_line(secrets.redact_shown(why), MAX_REASON_CHARS)))
        self._controls.remind(failed_note(kind))

    def _mark_stopped(self, turn_id: str) -> None:
        """The round is recorded as stopped by the user, and the model hears it with the next input: without it
        the next prompt holds two questions in a row and the model may answer the first as unfinished business
        (as Claude Code's "[Request interrupted by user]")."""
        self._recorder.turn_ended(TurnEnd(turn_id, INTERRUPTED, STOPPED_BY_USER))
        self._controls.remind(INTERRUPTED_NOTE)

    async def _loop(self, turn_id: str) -> AsyncGenerator[Event, None]:
        config, prompt = self._settings.config, self._prompt
        ev: Event
        retried_context = False
        told_cut_input = False
        step = 0
        continued = 0           # times a Stop hook made this turn go on
        while step < config.max_steps:
            for ev in self.sync_tools():
                yield ev
            if step and config.auto_compact and prompt.compaction_due().due and prompt.archive_plan() is not None:
                # Issue 24: the turn outgrew the trigger: archive closed rounds now rather than cut them.
                async with aclosing(self._compactor.run("auto", None)) as events:
                    async for ev in events:
                        yield ev
            built = prompt.build()
            for note in prompt.builder.rules_notices():      # a rules file refused or cut: the user hears it too
                yield Notice(note, "warning")
            if not told_cut_input and any(m.layer == "input" and m.form == "cut" for m in built.messages):
                told_cut_input = True     # the user's own words, not a tool's output: said plainly, once a turn
                yield Notice(f"your message is larger than this window allows ({config.context_window:,} tokens): "
                             "the model gets its head and tail, with a note of what was cut", "warning")
            if built.adjustments:
                # Shown on the messages they touched (the view of this same prompt went out with the step before),
                # summed up once at turn end: no chat line per step.
                self._adjustments.extend(built.adjustments)
            reply: list[str] = []
            thinking: list[str] = []
            stops: list[str | None] = []       # the reply's stop reason (a reply cut at max_tokens is told so)
            try:
                async with aclosing(self._stream(built, step + 1, reply, thinking, stops)) as events:
                    async for ev in events:
                        yield ev
            except ContextLengthExceeded as exc:
                if retried_context:
                    yield ErrorEvent(f"the prompt is still too long for the model after compaction: {exc}",
                                     "context_length")
                    return
                retried_context = True
                if exc.server_tokens:   # the server said how big the prompt was by its count: calibrate on it
                    prompt.calibration.observe(config.model, built.total, exc.server_tokens)
                took_window = bool(exc.server_window and MIN_TAKEN_WINDOW <= exc.server_window
                                   < config.context_window)
                if took_window:
                    yield Notice(self._smaller_window(exc.server_window or 0), "warning")
                    config = self._settings.config
                if not (took_window and exc.server_tokens):
                    prompt.aim_lower()   # unexplained by the window: our count and the server's disagree
                # A rejection the server's window explains (Anthropic refuses a prompt that fits when its max_tokens
                # does not) compacts only when that window's trigger says so: compacting regardless archived a
                # round at every turn, and aiming lower too made the builder cut below the trigger (helper-65).
                if prompt.archive_plan() is None or (took_window and not prompt.compaction_due().due):
                    # this turn alone: "nothing compacted" read as a failure (QA); or the server's window, now
                    # taken, fits it without compacting: either way the retry is this turn fitted to a lower line
                    yield Notice("the server says the prompt is over the model's window: retrying once with this "
                                 "turn fitted lower", "warning")
                    continue
                yield Notice("the server says the prompt is over the model's window: compacting and retrying once",
                             "warning")
                async with aclosing(self._compactor.run("auto", None)) as events:
                    async for ev in events:
                        yield ev
                continue
            except ProviderError as exc:
                yield ErrorEvent(str(exc), "provider")
                return
            step += 1
            answered: TurnFinished | None = None
            cut = stops[-1] in CUT_AT_LIMIT if stops else False
            async with aclosing(self._act(secrets.redact(valid_unicode("".join(reply))),
                                          secrets.redact(valid_unicode("".join(thinking))), step, turn_id,
                                          self._settings.config.reply_max_tokens if cut else None)) as events:
                async for ev in events:
                    if isinstance(ev, TurnFinished):       # an answer: the Stop hooks say whether the turn ends
                        answered = ev
                        continue
                    yield ev
                    if isinstance(ev, ErrorEvent):          # a hook ended the turn
                        return
            if answered is not None:
                async with aclosing(self._stop_hooks(answered, step, continued, turn_id)) as events:
                    async for ev in events:
                        yield ev
                        if isinstance(ev, TurnFinished):
                            return
                continued += 1
        yield ErrorEvent(f"step limit reached: {config.max_steps} model calls in one turn without Finish "
                         "(raise it with --max-steps)", "step_limit")

    def _smaller_window(self, window: int) -> str:
        """The server rejected a prompt and said its window, smaller than ours: the rest of this run uses the
        server's (Settings.take_server_window), so the turn compacts and goes on instead of failing at every call,
        and the user is told how to make it stick."""
        config = self._settings.take_server_window(window)
        return (f"the server's window is {window:,} tokens, not the {config.context_window:,} set "
                f"({config.window_source}): using {window:,} from now on (--context-window {window} or "
                f"context_window = {window} in a config makes it the setting)")

    async def _stream(self, built: Built, step: int, reply: list[str], thinking: list[str], stops: list[str | None]
                      ) -> AsyncGenerator[Event, None]:
        config, provider = self._settings.config, self._settings.provider
        assert provider is not None         # run() returned early without one
        if self._turn_model:    # the request, its calibration and its price name the turn's model; the window stays
            config = replace(config, model=self._turn_model)
        request = ChatRequest(built.messages, config.model or "", max_tokens=config.reply_max_tokens)
        answer = AnswerStream()          # the final answer's text as it streams (the parser reads Finish)
        self._controls.sent.add(built.messages, config.model or "")      # /diff compares consecutive calls
        async with aclosing(provider.stream(request)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    reply.append(chunk.text)
                    yield TextDelta(chunk.text, step)
                    delta = answer.feed(chunk.text)
                    if delta:
                        if self._adjustments:   # summed up before the answer, so the answer is the last thing read
                            yield self._adjustments_summary()
                        yield AnswerDelta(delta, step)
                elif isinstance(chunk, ReasoningChunk):
                    thinking.append(chunk.text)
                    yield ReasoningDelta(chunk.text, step)
                elif isinstance(chunk, ToolCallChunk):     # the server's own tool-call field: read as the Action
                    text = native_action(chunk.name, chunk.arguments)
                    reply.append(text)
                    yield TextDelta(text, step)
                    if chunk.others:
                        yield Notice(f"the model sent {chunk.others + 1:,} tool calls in one reply: only the first "
                                     "runs (one action a step)", "warning")
                elif isinstance(chunk, UsageChunk):
                    self._prompt.calibration.observe(config.model, built.total, chunk.input_tokens)
                    usage = self._prompt.usage.take(chunk, config, sent=built.total)
                    self._recorder.usage(usage)
                    yield usage
                elif isinstance(chunk, StreamDone) and chunk.stop_reason == "restart":
                    reply.clear()
                    thinking.clear()
                    answer.reset()
                    yield StreamRestarted(step)
                elif isinstance(chunk, StreamDone):
                    stops.append(chunk.stop_reason)

    async def _act(self, raw: str, thinking: str, step: int, turn_id: str, cut_at: int | None = None
                   ) -> AsyncGenerator[Event, None]:
        """``cut_at``: the max_tokens the reply was cut at, when the server says it stopped there."""
        visible, inline_thinking = strip_thinking(raw)
        thinking = "\n".join(t for t in (thinking, inline_thinking) if t)
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        tools = self._toolbox.tools
        try:
            parsed = parse_reply(raw, frozenset(tools))
        except ReactFormatError as exc:
            error = str(exc) if cut_at is None else (
                f"Your reply was cut off at the output limit ({cut_at:,} tokens): {exc} Keep each step shorter "
                "(less thinking; a large file in several Writes or Edits).")
            yield FormatErrorEvent(error, raw, step)
            # the reply itself is the "call"; its reasoning is sent with it, as any step's, so it is recorded too
            call = self._recorder.append(Message("assistant", visible.strip() or "(empty reply)", meta={
                "step": step, "call_id": call_id, "tool_name": FORMAT_ERROR_TOOL, "args": {}, "format_error": True,
                **({"thinking": thinking} if thinking else {})}))
            async with aclosing(self._record_step(call, FORMAT_ERROR_TOOL, {}, fail("format_error", error), step,
                                                  call_id)) as events:
                async for ev in events:
                    yield ev
            return
        if parsed.thought:
            yield ThoughtEvent(parsed.thought, step)
        yield ActionEvent(parsed.tool, parsed.args, parsed.text, step)
        if parsed.tool == FINISH:
            self._recorder.append(Message("assistant", parsed.text, meta={
                "step": step, "final": True, "turn": turn_id, "answer": parsed.args,
                **({"thinking": thinking} if thinking else {})}))
            if self._adjustments:       # an answer that streamed no text
                yield self._adjustments_summary()
            yield FinalAnswer(parsed.args, step)
            yield TurnFinished(parsed.args, step)
            return
        stored_action = shorten_action(parsed.text)
        assistant = self._recorder.append(Message(
            "assistant", stored_action, full=parsed.text if stored_action != parsed.text else None,
            meta={"step": step, "call_id": call_id, "tool_name": parsed.tool, "args": parsed.args, "turn": turn_id,
                  **({"thinking": thinking} if thinking else {})}))
        self._recorder.tool_use(call_id, parsed.tool, parsed.args, assistant)
        result: dict[str, Any] | None = None
        args = parsed.args
        before = await self._hooks.pre_tool(parsed.tool, args, call_id)
        for note in before.notes:
            yield Notice(note, "warning")
        feedback = [f"[PreToolUse hook] {added}" for added in before.context]
        note = ""
        if parsed.more_actions:     # a model that wrote several would think they all ran (local models do)
            note = (f"[note] Your reply had {plural(parsed.more_actions, 'more `Action:` line')} after "
                    "this one; only this one ran (one Action per reply). Send the next one now if it is still "
                    "needed.")
        if before.updated_input is not None and isinstance(args, dict) and not before.blocked:
            # Claude Code's updatedInput: the call is checked and run with it, and the model hears of it
            args = {**args, **before.updated_input}
            feedback.append("[PreToolUse hook] a hook changed this call's input to: "
                            + secrets.redact(shorten_action(json.dumps(args, ensure_ascii=False, default=str))))
        if before.blocked:          # the hook's reason is what the model reads, as the call's error
            result = fail("blocked_by_hook", f"a PreToolUse hook refused this call: {before.reason}")
        elif before.stop is not None:
            result = fail("blocked_by_hook", f"a PreToolUse hook stopped the turn before this call ran: {before.stop}")
        else:
            async with aclosing(self._gate.check(tools[parsed.tool], parsed.tool, args, assistant.id,
                                                 before.decision, before.decision_reason)) as answers:
                async for asked in answers:
                    if isinstance(asked, dict):
                        result = asked
                    else:
                        yield asked
        yield ToolStarted(parsed.tool, args, step, call_id)
        stop = before.stop
        if result is None:
            done: list[dict[str, Any]] = []

            def output(tail: str) -> ToolOutput:
                return ToolOutput(parsed.tool, secrets.redact(valid_unicode(tail)), step, call_id)
            running = run_live(self._toolbox.run(parsed.tool, args), self._toolbox.ctx, output, done)
            async with aclosing(running) as events:
                async for ev in events:
                    yield ev
            result = done[0]
            after = await self._hooks.post_tool(parsed.tool, args, result, call_id)
            for note in after.notes:
                yield Notice(note, "warning")
            feedback += [f"[PostToolUse hook] {said}" for said in (after.reason,) if after.blocked and said]
            feedback += [f"[PostToolUse hook] {added}" for added in after.context]
            stop = after.stop
        async with aclosing(self._record_step(assistant, parsed.tool, args, result, step, call_id,
                                              feedback="\n".join(feedback), note=note)) as events:
            async for ev in events:
                yield ev
        if stop is not None:        # Claude Code's `continue: false`: the turn ends here, and the user reads why
            yield ErrorEvent(f"a hook stopped the turn: {stop}", "hook")

    async def _record_step(self, call: Message, tool: str, args: Any, result: dict[str, Any], step: int,
                           call_id: str, feedback: str = "", note: str = "") -> AsyncGenerator[Event, None]:
        """The result of ``call`` (the recorded assistant message) recorded, and the step they make added."""
        recorder = self._recorder
        full = compressor.full_text(result)
        call_args = args if isinstance(args, dict) else {}
        # what the work is about: the code names of the turn's question and of its task list (TodoWrite)
        focus = code_names((self._prompt.question or "") + "\n" + plan_text(self._toolbox.ctx.todos))
        stored = compressor.stored_text(tool, call_args, result, focus=focus)
        # The harder form (A3's tighter limits) for when even the kept rounds do not fit: made now, from the
        # result itself, since history keeps only the stored and the full text.
        hard = compressor.stored_text(tool, call_args, result, level="hard", focus=focus)
        added: list[tuple[str, str]] = []
        nested = "" if call.meta.get("format_error") else self._prompt.nested_rules.reminder_for(path_of(args))
        if nested:           # a sub-folder's instructions, first time it is touched: with this result, in L3
            added.append(("instructions", nested))
        if note:             # the engine's own word on the reply (extra `Action:` lines that did not run)
            added.append(("note", note))
        if feedback:         # the hooks' reasons and added context: the model reads them with the result
            added.append(("hook", feedback))
        for key, text in added:
            full = f"{full}\n\n{text}"
            stored, hard = with_instructions(stored, text, key=key), with_instructions(hard, text, key=key)
        meta: MessageMeta = {"tool_name": tool, "call_id": call_id, "args": args, "step": step}
        if len(hard) < len(stored):
            meta["hard"] = hard
        message = recorder.append(Message("tool", stored, full=full, meta=meta))
        self._prompt.add_step(step_of(call, message))
        if tool == "TodoWrite" and result.get("status") == "success":
            recorder.todos(list(self._toolbox.ctx.todos))
        yield ToolFinished(tool, args, step, call_id, result, full, stored, result.get("status", "error"))
        for notice in recorder.notices():
            yield notice

    def _adjustments_summary(self) -> TurnAdjustments:
        """Once per turn: at its answer, or at its end when it ends otherwise."""
        adjustments = tuple(self._adjustments)
        self._adjustments = []
        counts: dict[str, int] = {}
        for a in adjustments:
            counts[a.action] = counts.get(a.action, 0) + 1
        steps = ", ".join(f"{action} ×{n}" for action, n in counts.items())
        first, last = adjustments[0], adjustments[-1]
        return TurnAdjustments(adjustments, f"the prompt was fitted to the window at "
                                            f"{plural(len(adjustments), 'point')} this turn ({steps}); last "
                                            f"{last.tokens_before:,} → {last.tokens_after:,} tokens (first "
                                            f"{first.tokens_before:,})")
