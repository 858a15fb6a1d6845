"""A step's reply acted on: a format error recorded as the step's failed call, an answer (`Finish`) recorded and
ended with ``TurnFinished``, else the action's tool call — the PreToolUse hooks, the permission, the tool run live,
the PostToolUse hooks — and its result recorded in its stored form (A3/C1), with the harder form beside it (E3)."""

from __future__ import annotations

import json
import uuid
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator

from contextual.core import secrets
from contextual.core.context import compressor
from contextual.core.context.compaction_review import Event
from contextual.core.context.names import code_names
from contextual.core.context.nested_rules import with_instructions
from contextual.core.context.scratchpad import shorten_action, step_of
from contextual.core.context.turn_forms import plan_text
from contextual.core.engine.fitted import Fitted
from contextual.core.engine.hook_runner import HookRunner
from contextual.core.engine.permission_gate import PermissionGate
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.toolbox import Toolbox
from contextual.core.events import (ActionEvent, ErrorEvent, FinalAnswer, FormatErrorEvent, Notice, ThoughtEvent,
                                    ToolFinished, ToolOutput, ToolStarted, TurnFinished)
from contextual.core.hooks import HookOutcome
from contextual.core.live_tool import run_live
from contextual.core.messages import FORMAT_ERROR_TOOL, Message, MessageMeta
from contextual.core.plural import plural
from contextual.core.react import FINISH, Parsed, ReactFormatError, parse_reply, strip_thinking
from contextual.core.textsafe import valid_unicode
from contextual.core.tools.base import fail, path_of


@dataclass
class ToolCall:
    """One call as it goes: its arguments (a hook may change them), its result once there is one, what the hooks
    tell the model with it, and a hook's `continue: false`."""
    tool: str
    args: Any
    step: int
    call_id: str
    result: dict[str, Any] | None = None
    feedback: list[str] = field(default_factory=list)
    stop: str | None = None


def more_actions_note(parsed: Parsed) -> str:
    """A model that wrote several `Action:` lines would think they all ran (local models do): it is told."""
    if not parsed.more_actions:
        return ""
    return (f"[note] Your reply had {plural(parsed.more_actions, 'more `Action:` line')} after this one; only this "
            "one ran (one Action per reply). Send the next one now if it is still needed.")


class ToolStep:
    def __init__(self, prompt: PromptState, recorder: Recorder, toolbox: Toolbox, gate: PermissionGate,
                 hooks: HookRunner, fitted: Fitted) -> None:
        self._prompt = prompt
        self._recorder = recorder
        self._toolbox = toolbox
        self._gate = gate
        self._hooks = hooks
        self._fitted = fitted

    async def act(self, raw: str, thinking: str, step: int, turn_id: str, cut_at: int | None = None
                  ) -> AsyncGenerator[Event, None]:
        """``cut_at``: the max_tokens the reply was cut at, when the server says it stopped there."""
        visible, inline_thinking = strip_thinking(raw)
        thinking = "\n".join(t for t in (thinking, inline_thinking) if t)
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        try:
            parsed = parse_reply(raw, frozenset(self._toolbox.tools))
        except ReactFormatError as exc:
            error = str(exc) if cut_at is None else (
                f"Your reply was cut off at the output limit ({cut_at:,} tokens): {exc} Keep each step shorter "
                "(less thinking; a large file in several Writes or Edits).")
            yield FormatErrorEvent(error, raw, step)
            # the reply itself is the "call"; its reasoning is sent with it, as any step's, so it is recorded too
            call = self._recorder.append(Message("assistant", visible.strip() or "(empty reply)", meta={
                "step": step, "call_id": call_id, "tool_name": FORMAT_ERROR_TOOL, "args": {}, "format_error": True,
                **({"thinking": thinking} if thinking else {})}))
            async with aclosing(self.record(call, FORMAT_ERROR_TOOL, {}, fail("format_error", error), step,
                                            call_id)) as events:
                async for ev in events:
                    yield ev
            return
        if parsed.thought:
            yield ThoughtEvent(parsed.thought, step)
        yield ActionEvent(parsed.tool, parsed.args, parsed.text, step)
        if parsed.tool == FINISH:
            for ev in self._answer(parsed, thinking, step, turn_id):
                yield ev
            return
        async with aclosing(self._call(parsed, thinking, ToolCall(parsed.tool, parsed.args, step, call_id),
                                       turn_id)) as events:
            async for ev in events:
                yield ev

    def _answer(self, parsed: Parsed, thinking: str, step: int, turn_id: str) -> list[Event]:
        self._recorder.append(Message("assistant", parsed.text, meta={
            "step": step, "final": True, "turn": turn_id, "answer": parsed.args,
            **({"thinking": thinking} if thinking else {})}))
        summary = self._fitted.summary()       # an answer that streamed no text: summed up before it
        return [*([summary] if summary is not None else []), FinalAnswer(parsed.args, step),
                TurnFinished(parsed.args, step)]

    async def _call(self, parsed: Parsed, thinking: str, call: ToolCall, turn_id: str
                    ) -> AsyncGenerator[Event, None]:
        stored_action = shorten_action(parsed.text)
        assistant = self._recorder.append(Message(
            "assistant", stored_action, full=parsed.text if stored_action != parsed.text else None,
            meta={"step": call.step, "call_id": call.call_id, "tool_name": call.tool, "args": call.args,
                  "turn": turn_id, **({"thinking": thinking} if thinking else {})}))
        self._recorder.tool_use(call.call_id, call.tool, call.args, assistant)
        before = await self._hooks.pre_tool(call.tool, call.args, call.call_id)
        for note in before.notes:
            yield Notice(note, "warning")
        self._take_pre_tool(call, before)
        if call.result is None:
            async with aclosing(self._gate.check(self._toolbox.tools[call.tool], call.tool, call.args, assistant.id,
                                                 before.decision, before.decision_reason)) as answers:
                async for asked in answers:
                    if isinstance(asked, dict):
                        call.result = asked
                    else:
                        yield asked
        yield ToolStarted(call.tool, call.args, call.step, call.call_id)
        if call.result is None:
            async with aclosing(self._run(call)) as events:
                async for ev in events:
                    yield ev
        assert call.result is not None        # a hook's refusal, the permission's, or the tool's own
        async with aclosing(self.record(assistant, call.tool, call.args, call.result, call.step, call.call_id,
                                        feedback="\n".join(call.feedback), note=more_actions_note(parsed))) as events:
            async for ev in events:
                yield ev
        if call.stop is not None:        # Claude Code's `continue: false`: the turn ends here, and the user reads why
            yield ErrorEvent(f"a hook stopped the turn: {call.stop}", "hook")

    @staticmethod
    def _take_pre_tool(call: ToolCall, before: HookOutcome) -> None:
        """What the PreToolUse hooks said, taken into the call: their context for the model, a changed input, a
        refusal or a stop as the call's result."""
        call.feedback += [f"[PreToolUse hook] {added}" for added in before.context]
        if before.updated_input is not None and isinstance(call.args, dict) and not before.blocked:
            # Claude Code's updatedInput: the call is checked and run with it, and the model hears of it
            call.args = {**call.args, **before.updated_input}
            call.feedback.append("[PreToolUse hook] a hook changed this call's input to: "
                                 + secrets.redact(shorten_action(json.dumps(call.args, ensure_ascii=False,
                                                                            default=str))))
        if before.blocked:          # the hook's reason is what the model reads, as the call's error
            call.result = fail("blocked_by_hook", f"a PreToolUse hook refused this call: {before.reason}")
        elif before.stop is not None:
            call.result = fail("blocked_by_hook", f"a PreToolUse hook stopped the turn before this call ran: "
                                                  f"{before.stop}")
        call.stop = before.stop

    async def _run(self, call: ToolCall) -> AsyncGenerator[Event, None]:
        """The tool run, the tail of its output yielded while it runs, then the PostToolUse hooks."""
        done: list[dict[str, Any]] = []

        def output(tail: str) -> ToolOutput:
            return ToolOutput(call.tool, secrets.redact(valid_unicode(tail)), call.step, call.call_id)
        running = run_live(self._toolbox.run(call.tool, call.args), self._toolbox.ctx, output, done)
        async with aclosing(running) as events:
            async for ev in events:
                yield ev
        call.result = done[0]
        after = await self._hooks.post_tool(call.tool, call.args, call.result, call.call_id)
        for note in after.notes:
            yield Notice(note, "warning")
        call.feedback += [f"[PostToolUse hook] {said}" for said in (after.reason,) if after.blocked and said]
        call.feedback += [f"[PostToolUse hook] {added}" for added in after.context]
        call.stop = after.stop

    async def record(self, call: Message, tool: str, args: Any, result: dict[str, Any], step: int,
                     call_id: str, feedback: str = "", note: str = "") -> AsyncGenerator[Event, None]:
        """The result of ``call`` (the recorded assistant message) recorded, and the step they make added."""
        recorder = self._recorder
        full = compressor.full_text(result)
        call_args = args if isinstance(args, dict) else {}
        # what the work is about: the code names of the turn's question and of its task list (TodoWrite)
        focus = code_names((self._prompt.question or "") + "\n" + plan_text(self._toolbox.ctx.todos))
        window = self._prompt.config.context_window       # bounds a form's characters when small
        stored = compressor.stored_text(tool, call_args, result, focus=focus, window=window)
        # The harder form (A3's tighter limits) for when even the kept rounds do not fit: made now, from the
        # result itself, since history keeps only the stored and the full text.
        hard = compressor.stored_text(tool, call_args, result, level="hard", focus=focus, window=window)
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
