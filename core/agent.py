"""The engine: one ReAct turn at a time (seed 002 A2, D3, E1) as an async stream of typed events.

Each step builds the prompt (ContextBuilder), streams the model's reply, parses `Thought/Action`,
writes the assistant text to history at once, runs the tool, and writes its *stored* result to
history at once, so a crash mid-turn loses nothing. The model reasons over the scratchpad (this
turn's steps) under the configured policy; history keeps the compressed record.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, AsyncIterator

from contextual.core import permissions, secrets
from contextual.core.clock import now_iso
from contextual.core.context import compaction, compressor, review_flow
from contextual.core.context.builder import Built
from contextual.core.context.pins import protect
from contextual.core.context.pairing import aborted_result, unanswered
from contextual.core.context.preprocess import preprocess
from contextual.core.context.scratchpad import ScratchStep, shorten_action
from contextual.core.engine_state import EngineState, path_of
from contextual.core.live_tool import run_live
from contextual.core.events import (ActionEvent, AnswerDelta, BudgetWarning, CompactionFinished, CompactionProgress,
                         CompactionStarted, EngineEvent, ErrorEvent, FinalAnswer, FormatErrorEvent, Notice,
                         PermissionDecided, PermissionRequest, PromptChanged, ReasoningDelta, StreamRestarted,
                         TextDelta, ThoughtEvent, ToolFinished, ToolOutput, ToolStarted, TurnFinished)
from contextual.core.messages import Message
from contextual.core.providers.base import (ChatRequest, ContextLengthExceeded, ProviderError, ReasoningChunk, StreamDone,
                                 TextChunk, UsageChunk)
from contextual.core.react import FINISH, AnswerStream, ReactFormatError, parse_reply, strip_thinking
from contextual.core.textsafe import valid_unicode
from contextual.core.tools.base import fail
from contextual.core.tools.runner import run_tool

FORMAT_ERROR_TOOL = "FormatError"


class Engine(EngineState):
    """One ReAct turn at a time (`run_turn`), compaction (`compact`), over the state of EngineState."""

    # ---- one turn --------------------------------------------------------------------------------
    async def run_turn(self, text: str) -> AsyncIterator[EngineEvent]:
        if self.provider is None:
            yield ErrorEvent(self.config.missing_model_message() or "no model configured", "config")
            return
        for ev in self.sync_tools():
            yield ev
        text = valid_unicode(text)
        question = self.with_reminders(preprocess(text, self.config.project_root), consume=True)
        trigger = self.compaction_due(text)
        if trigger.due:
            if self.config.auto_compact:
                async for ev in self._compact("auto", None):
                    yield ev
            else:
                yield BudgetWarning(f"context at {trigger.estimate:,} of {self.config.context_window:,} tokens, past "
                                    f"the {self.config.trigger_ratio:.0%} trigger; auto-compaction is off — run "
                                    "/compact", trigger.estimate, self.config.context_window)
        elif trigger.warn:
            yield BudgetWarning(f"context at {trigger.estimate:,} of {self.config.context_window:,} tokens "
                                f"(over {self.config.warn_ratio:.0%})", trigger.estimate, self.config.context_window)

        turn_id = uuid.uuid4().hex[:12]
        self.steps = []
        self.question = question
        self._turn_adjustments = []
        self._append(Message("user", question, meta={"turn": turn_id, "raw": text, "timestamp": now_iso()}))
        self.turn_start = len(self.history.messages) - 1
        self.running = True
        if self.snapshots is not None:
            self.ctx.before_change = self.snapshots.before_change_hook(turn_id, self._record_entry,
                                                                        on_warning=self._pending.append)
        for change in self._changes():
            yield change
        terminal: TurnFinished | ErrorEvent | None = None
        try:
            async for ev in self._loop(turn_id):
                if isinstance(ev, (TurnFinished, ErrorEvent)):
                    terminal = ev
                    continue
                yield ev
                for change in self._changes():
                    yield change
        finally:
            if terminal is None:
                self._interrupt()
            self.running = False
            self.turn_start = None
            self._limit_scale = 1.0
            self.ctx.before_change = None
            if self.snapshots is not None:
                await self._finish_snapshot(turn_id)
            await self._flush(fsync=True)
        if self._turn_adjustments:
            yield self._adjustments_summary()
        for change in self._changes(force=True):       # the turn is closed: the view is the next turn's prompt
            yield change
        yield terminal

    def _interrupt(self) -> None:
        """Esc/Ctrl-C or a crash mid-turn: give a dangling call its 'aborted' result and mark the round."""
        for call in unanswered(self.history.messages[self.turn_start or 0:]):
            self._append(aborted_result(call))
        if self.session is not None:
            self.session.append_interrupted("cancelled by the user")

    async def _loop(self, turn_id: str) -> AsyncIterator[EngineEvent]:
        retried_context = False
        step = 0
        while step < self.config.max_steps:
            for ev in self.sync_tools():
                yield ev
            built = self.build()
            for note in self.builder.rules_notices():      # a rules file refused or cut: the user hears it too
                yield Notice(note, "warning")
            if built.adjustments:
                # Shown on the messages they touched (the view), summed up once at turn end: no chat line per step.
                self._turn_adjustments.extend(built.adjustments)
                yield PromptChanged(self.view_of(built))
            reply: list[str] = []
            thinking: list[str] = []
            try:
                async for ev in self._stream(built, step + 1, reply, thinking):
                    yield ev
            except ContextLengthExceeded as exc:
                if retried_context:
                    yield ErrorEvent(f"the prompt is still too long for the model after compaction: {exc}",
                                     "context_length")
                    return
                retried_context = True
                if exc.server_tokens:   # the server said how big the prompt was by its count: calibrate on it
                    self.calibration.observe(self.config.model, built.total, exc.server_tokens)
                # Our count and the server's tokenizer disagree: aim lower for the rest of this turn.
                self._limit_scale = 0.8
                yield Notice("the server says the prompt is over the model's window: compacting and retrying once",
                             "warning")
                async for ev in self._compact("auto", None):
                    yield ev
                continue
            except ProviderError as exc:
                yield ErrorEvent(str(exc), "provider")
                return
            step += 1
            async for ev in self._act(secrets.redact(valid_unicode("".join(reply))),
                                      secrets.redact(valid_unicode("".join(thinking))), step,
                                      turn_id):
                yield ev
                if isinstance(ev, TurnFinished):
                    return
        yield ErrorEvent(f"step limit reached: {self.config.max_steps} model calls in one turn without Finish "
                         "(raise it with --max-steps)", "step_limit")

    async def _stream(self, built: Built, step: int, reply: list[str], thinking: list[str]
                      ) -> AsyncIterator[EngineEvent]:
        self._prompt_sent = True
        request = ChatRequest(built.messages, self.config.model or "", max_tokens=min(self.config.output_reserve, 8192))
        answer = AnswerStream()          # the final answer's text as it streams (the parser reads Finish)
        self.sent.add(built.messages, self.config.model or "")      # /diff compares consecutive calls
        async for chunk in self.provider.stream(request):
            if isinstance(chunk, TextChunk):
                reply.append(chunk.text)
                yield TextDelta(chunk.text, step)
                delta = answer.feed(chunk.text)
                if delta:
                    if self._turn_adjustments:   # summed up before the answer, so the answer is the last thing read
                        yield self._adjustments_summary()
                    yield AnswerDelta(delta, step)
            elif isinstance(chunk, ReasoningChunk):
                thinking.append(chunk.text)
                yield ReasoningDelta(chunk.text, step)
            elif isinstance(chunk, UsageChunk):
                self.calibration.observe(self.config.model, built.total, chunk.input_tokens)
                yield self._usage(chunk)
            elif isinstance(chunk, StreamDone) and chunk.stop_reason == "restart":
                reply.clear()
                thinking.clear()
                answer.reset()
                yield StreamRestarted(step)

    async def _act(self, raw: str, thinking: str, step: int, turn_id: str) -> AsyncIterator[EngineEvent]:
        visible, inline_thinking = strip_thinking(raw)
        thinking = "\n".join(t for t in (thinking, inline_thinking) if t)
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        try:
            parsed = parse_reply(raw, frozenset(self.tools))
        except ReactFormatError as exc:
            yield FormatErrorEvent(str(exc), raw, step)
            text = visible.strip() or "(empty reply)"
            result = fail("format_error", str(exc))
            async for ev in self._record_step(text, thinking, FORMAT_ERROR_TOOL, {}, result, step, call_id):
                yield ev
            return
        if parsed.thought:
            yield ThoughtEvent(parsed.thought, step)
        yield ActionEvent(parsed.tool, parsed.args, parsed.text, step)
        if parsed.tool == FINISH:
            self._append(Message("assistant", parsed.text, meta={"step": step, "final": True, "turn": turn_id,
                                                                 "answer": parsed.args,
                                                                 **({"thinking": thinking} if thinking else {})}))
            if self._turn_adjustments:       # an answer that streamed no text
                yield self._adjustments_summary()
            yield FinalAnswer(parsed.args, step)
            yield TurnFinished(parsed.args, step)
            return
        stored_action = shorten_action(parsed.text)
        assistant = Message("assistant", stored_action, full=parsed.text if stored_action != parsed.text else None,
                            meta={"step": step, "call_id": call_id, "tool_name": parsed.tool, "args": parsed.args,
                                  "turn": turn_id, **({"thinking": thinking} if thinking else {})})
        self._append(assistant)
        if self.session is not None:
            self.session.append_tool_use(call_id, parsed.tool, parsed.args, assistant)
        result = None
        async for ev in self._permission(parsed.tool, parsed.args):
            if isinstance(ev, dict):
                result = ev
            else:
                yield ev
        yield ToolStarted(parsed.tool, parsed.args, step, call_id)
        if result is None:
            done: list[dict] = []
            def output(tail: str) -> ToolOutput:
                return ToolOutput(parsed.tool, secrets.redact(valid_unicode(tail)), step, call_id)
            async for ev in run_live(self._run_tool(parsed.tool, parsed.args), self.ctx, output, done):
                yield ev
            result = done[0]
        async for ev in self._record_step(None, thinking, parsed.tool, parsed.args, result, step, call_id,
                                          action=parsed.text, stored_action=stored_action,
                                          assistant_id=assistant.id):
            yield ev

    async def _permission(self, tool: str, args: Any) -> AsyncIterator[Any]:
        """Yields a PermissionRequest (and waits on its future) or a refusal/denial result dict."""
        mode, rules, root = self.config.permission_mode, self.config.permissions, self.config.project_root
        verdict = permissions.decide(self.tools[tool], args, mode, rules, root, self.allowed_for_session)
        if verdict == "allow":
            return
        if verdict == "deny":
            yield permissions.rule_denial(tool, args, rules, root)
            return
        if not self.interactive:
            yield permissions.refusal(tool, mode)
            return
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        proposal = permissions.always_rules(tool, args, root)
        yield PermissionRequest(tool, args, permissions.preview(tool, args, root), future, proposal)
        decision = await future
        note = ""
        if isinstance(decision, tuple):     # ("deny", what the user wants instead) from the TUI
            decision, note = decision
        always = proposal if decision == "allow_always" else None
        if always is not None and not always.rules:     # no rule would match it again: allowed once, and why
            decision = "allow_once"
            self._pending.append(f"{tool}: allowed once, not always: {always.why}")
        if self.session is not None:
            self.session.append_permission(tool, decision)
        yield PermissionDecided(tool, decision, always.rules if always is not None else ())
        if decision == "allow_always" and always is not None:   # rules in the local project file, and this session
            try:
                permissions.add_allow_rules(root, always.rules)
            except ValueError as exc:
                self._pending.append(str(exc))
            self.allowed_for_session.update(always.rules)
        elif decision == "allow_session":
            self.allowed_for_session.add(tool)
        elif decision != "allow_once":
            yield permissions.denial(tool, note)

    async def _run_tool(self, name: str, args: dict) -> dict:
        # A key a tool printed (a .env file, `env`) never reaches the model, the screen or the session.
        return secrets.redact_value(await run_tool(self.tools[name], args, self.ctx))

    async def _record_step(self, text: str | None, thinking: str, tool: str, args: Any, result: dict, step: int,
                           call_id: str, action: str | None = None, stored_action: str | None = None,
                           assistant_id: str = "") -> AsyncIterator[EngineEvent]:
        if text is not None:     # a format error: the reply itself is the "call"
            action = stored_action = text
            call = Message("assistant", text, meta={"step": step, "call_id": call_id, "tool_name": tool, "args": {},
                                                    "format_error": True})
            self._append(call)
            assistant_id = call.id
        full = compressor.full_text(result)
        stored = compressor.stored_text(tool, args if isinstance(args, dict) else {}, result)
        message = Message("tool", stored, full=full, meta={"tool_name": tool, "call_id": call_id, "args": args,
                                                           "step": step})
        self._append(message)
        self.steps.append(ScratchStep(action or "", stored_action or action or "", full, stored, thinking,
                                      assistant_id, message.id, tool, path_of(args)))
        if tool == "TodoWrite" and self.session is not None and result.get("status") == "success":
            self.session.append_todos(list(self.ctx.todos))
        yield ToolFinished(tool, args, step, call_id, result, full, stored, result.get("status", "error"))
        while self._pending:
            yield Notice(self._pending.pop(0), "warning")

    # ---- compaction ------------------------------------------------------------------------------
    async def compact(self, instructions: str | None = None, keep_rounds: int | None = None,
                      preview: bool = False) -> AsyncIterator[EngineEvent]:
        """Manual `/compact [instructions]`; ``keep_rounds`` overrides the configured number for this once;
        ``preview``: the summary waits for the user's review (CompactionReview) before anything changes."""
        async for ev in self._compact("manual", instructions, keep_rounds, preview):
            yield ev

    def cancel_compaction(self) -> None:
        """The modal's cancel key: stop the summary call and fall back to hard truncation."""
        self._compaction_cancelled = True
        if self._summary_task is not None:
            self._summary_task.cancel()

    async def _compact(self, trigger: str, instructions: str | None,
                       keep_rounds: int | None = None, preview: bool = False) -> AsyncIterator[EngineEvent]:
        """Plan → summarise (a task this engine owns, cancellable) → review (issue 19.1) → apply the outcome."""
        started = time.monotonic()
        pre = self.last_usage if self.last_usage is not None else self.build().total
        keep = self.config.keep_rounds if keep_rounds is None else keep_rounds
        plan, refused = compaction.plan(self._l3(), len(self.history.messages), keep)
        held: list[str] = []
        if plan is not None:                       # pinned messages are never archived (issue 19.3)
            held = review_flow.pinned_in_archive(plan, self.pins)
            plan = protect(plan, self.pins)
            refused = refused or "every message older than the kept rounds is pinned: nothing to summarise"
        if plan is None:
            yield CompactionFinished(trigger, pre, pre, 0, (), "", refused=refused)
            return
        yield CompactionStarted(trigger, pre, plan.rounds_archived)
        yield CompactionProgress("choosing", time.monotonic() - started, 0,
                                 f"archiving {plan.rounds_archived} round(s), keeping {plan.rounds_kept}")
        files = await asyncio.to_thread(compaction.files_for, plan, self.config.project_root)   # disk off the loop
        reviewed = self.interactive and (preview or (trigger == "auto" and self.config.compaction_preview))
        pinned = self.pins.pinned(self.history.messages)
        attempt, box = 1, []
        while True:
            async for ev in self._summarise(plan, trigger, files, review_flow.summary_instructions(
                    instructions, pinned), pre, started, box, held):
                yield ev
            outcome = box.pop()
            if not reviewed or outcome.summary is None:
                break
            review = review_flow.start_review(trigger, plan, outcome.text, attempt,
                                              [m.content for m in self.history.summaries])
            yield review.event
            decision = await review.decision()
            if decision.action == "accept":
                outcome = review_flow.with_text(outcome, decision.text)
                break
            if decision.action == "cancel":
                yield CompactionFinished(trigger, pre, pre, 0, (), "", refused="cancelled in the preview; "
                                         "history is unchanged")
                return
            attempt, instructions = attempt + 1, decision.instructions or instructions
        yield CompactionProgress("rebuilding", time.monotonic() - started, 0, "rebuilding the prompt")
        await self._flush(fsync=True)
        post = self._apply(outcome, pre, held)
        await self._flush(fsync=True)
        yield PromptChanged(self.next_prompt())
        yield CompactionFinished(trigger, pre, post, plan.rounds_archived, outcome.files_included, outcome.text,
                                 outcome.fallback)

    async def _summarise(self, plan, trigger: str, files, instructions: str | None, pre: int, started: float,
                         box: list, held: list[str]) -> AsyncIterator[EngineEvent]:
        """One summary call as a cancellable task with its progress; the outcome is left in ``box``."""
        progress: asyncio.Queue[CompactionProgress] = asyncio.Queue()
        summariser = compaction.summariser(self.summary_provider, self.config)
        self._compaction_cancelled = False
        self._summary_task = asyncio.ensure_future(compaction.summarise(
            plan, trigger, summariser, files, instructions,
            lambda tokens, detail: progress.put_nowait(
                CompactionProgress("summarising", time.monotonic() - started, tokens, detail))))
        yield CompactionProgress("summarising", time.monotonic() - started, 0, "asking the summary model")
        try:
            async for ev in compaction.pump(self._summary_task, progress):
                yield ev
            outcome = self._summary_task.result()
        except asyncio.CancelledError:
            outcome = compaction.cancelled(plan, trigger)
            if not self._compaction_cancelled:
                self._summary_task.cancel()
                # The whole turn was cancelled: still leave history consistent, then let the cancel through.
                self._apply(outcome, pre, held)
                raise
        finally:
            self._summary_task = None
        box.append(outcome)

    def _apply(self, outcome: compaction.CompactionOutcome, pre: int, held: list[str] = ()) -> int:
        """History = summaries + the new one + pinned + kept rounds (+ the round in progress); the log (with the
        loss ledger: what the archived rounds held that nothing in the prompt holds now) and the session."""
        ledger = review_flow.ledger_of(outcome.plan.archive, outcome.plan.kept, outcome.text, self.history.summaries)
        in_turn = self.turn_start is not None
        current = self.history.messages[self.turn_start:] if in_turn else []
        self.history.apply(outcome.plan, outcome.summary)
        if in_turn:
            self.turn_start = len(self.history.messages)
            self.history.messages.extend(current)
        self.last_usage = None      # stale now: the next estimate is the counted size of the next prompt
        post = self.build().total
        entry = {**compaction.log_entry(outcome, pre, post), "lossLedger": ledger.to_dict()}
        self.compactions.append(entry)
        if self.session is not None:
            self.session.append_compaction(trigger=outcome.trigger, pre_tokens=pre, post_tokens=post,
                                           files_included=list(outcome.files_included), summary=outcome.summary,
                                           kept_from_id=next((m.id for m in self.history.messages
                                                              if m.role != "summary" and m.id not in held), None),
                                           fallback=outcome.fallback, loss_ledger=entry["lossLedger"],
                                           pinned_ids=list(held))
        return post
