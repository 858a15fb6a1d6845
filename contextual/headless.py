"""`contextual -p`: one turn; the answer (or the JSON forms) on stdout, progress and warnings on stderr.

A session that cannot be written (read-only home, full disk) never costs the answer: the answer is printed and
one line says the session was not saved.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, assert_never

from contextual.output import COMPACTION_INTERRUPTED, INTERRUPTED, Outcome, Printer
from contextual.core.context.compaction_review import CompactionReview, Event
from contextual.core.events import (ActionEvent, AnswerDelta, BudgetWarning, CompactionFinished, CompactionProgress,
                                    CompactionStarted, ErrorEvent, FinalAnswer, FormatErrorEvent, MessageRecorded,
                                    Notice, PermissionAnswer, PermissionDecided, PermissionRequest, PromptChanged,
                                    ReasoningDelta, Retrying, StopHookContinued, StreamRestarted, TextDelta,
                                    ThoughtEvent, ToolFinished, ToolOutput, ToolStarted, ToolsChanged, TurnAdjustments,
                                    TurnFinished, UsageEvent)
from contextual.core.prompt import UsageFigures
from contextual.core.context import compaction_words
from contextual.core.model_facts import cost, unreached_note
from contextual.core.permissions import DENIED_CODES, refused_by_mode
from contextual.core.session import SessionError
from contextual.core.plural import plural
from contextual.core.textsafe import one_line

if TYPE_CHECKING:
    from contextual.core.agent import Engine


def _short(value: object, limit: int = 160) -> str:
    return one_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str), limit)


def progress_line(ev: Event) -> str | None:
    """The stderr line for an event, or None when it has none (the answer and an error are run_headless's)."""
    match ev:
        case ThoughtEvent():
            return f"· {_short(ev.text)}"
        case ActionEvent():
            return None if ev.tool == "Finish" else f"→ {ev.tool} {_short(ev.args)}"
        case ToolFinished():
            return _finished_line(ev)
        case Retrying():        # one line per retry: a failing server is not a silent wait
            return ev.words()
        case FormatErrorEvent():
            return f"! format error returned to the model: {_short(ev.message)}"
        case BudgetWarning() | Notice():
            return f"warning: {ev.message}"
        case StopHookContinued():
            from contextual.core.context.continuation import notice_line
            return notice_line(ev.reason)
        case ToolsChanged():
            change = " ".join([f"+{t}" for t in ev.added] + [f"-{t}" for t in ev.removed])
            return f"tools changed: {_short(change)}; L1 is now {ev.l1_tokens:,} tokens"
        case TurnAdjustments():           # once per turn, at its end
            return f"context: {ev.summary}"
        case CompactionStarted():
            return (f"compacting ({ev.trigger}): {compaction_words.ESTIMATE} {ev.pre_tokens:,} tokens, "
                    f"archiving {plural(ev.rounds_to_archive, 'round')}…")
        case CompactionFinished():
            return _compacted_line(ev)
        case (TextDelta() | ReasoningDelta() | StreamRestarted() | ToolStarted() | ToolOutput() | UsageEvent()
              | PermissionRequest() | PermissionDecided() | PromptChanged() | MessageRecorded() | AnswerDelta()
              | FinalAnswer() | CompactionProgress() | TurnFinished() | ErrorEvent() | CompactionReview()):
            return None
        case _:
            assert_never(ev)


def _finished_line(ev: ToolFinished) -> str:
    result = ev.result if isinstance(ev.result, dict) else {}
    error, data = result.get("error"), result.get("data")
    code = data.get("exit_code") if isinstance(data, dict) else None
    if ev.status == "success" and isinstance(code, int) and code != 0:
        # a command that failed: "Bash success" hid a failing test run the app's trail marks ✗ "exit 1"
        return f"  {ev.tool} exit {code}"
    detail = "" if ev.status == "success" else f": {_short((error or {}).get('message', ''))}"
    # a call that was not allowed to run did not fail (the app's trail says "denied" too)
    said = "denied" if isinstance(error, dict) and error.get("code") in DENIED_CODES else ev.status
    return f"  {ev.tool} {said}{detail}"


def _compacted_line(ev: CompactionFinished) -> str:
    if ev.refused:
        return f"compaction: {ev.refused}"
    note = f" — {ev.fallback}" if ev.fallback else ""
    if ev.parts is not None:        # a summary made in parts that ended early (a timeout): what it kept
        note = " — " + compaction_words.outcome(ev.rounds_archived, ev.parts, ev.rounds_truncated, ev.ended)
    return f"compacted: {compaction_words.before_after(ev.pre_tokens, ev.post_tokens, lambda n: f'{n:,}')}{note}"


def refused_line(refused: list[str], mode: str) -> str:
    """The last stderr line of a run whose mode held calls back: exit 0 (the turn ended) and an answer that may
    claim the work done read as success."""
    from collections import Counter

    from contextual.core.tools.base import EDITING_TOOLS
    counts = ", ".join(f"{tool} ×{n}" if n > 1 else tool for tool, n in Counter(refused).items())
    wider = ("--permission-mode accept-edits (file edits run) or bypass (every call runs)"
             if mode == "default" and set(refused) <= EDITING_TOOLS else "--permission-mode bypass (every call runs)")
    return (f"warning: {plural(len(refused), 'call')} refused (permission mode {mode}, no user to ask): {counts}; "
            f"rerun with {wider}, or allow them in [permissions] allow")


def _uncancel() -> None:
    """This task goes on after its cancellation (to close the session and print the result), as if never cancelled."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


def _compact_result(engine: Engine, ev: CompactionFinished, keep: int | None) -> str:
    """What `-p "/compact"` answers: the chat's line for the compaction, or why nothing was compacted."""
    from contextual.print_commands import compacted, not_compacted
    if ev.refused:
        from contextual.core.context.history import rounds
        return not_compacted(ev.refused, keep, len(rounds(engine.history.messages)))
    return compacted(engine.compactions[-1])


async def run_headless(engine: Engine, prompt: str, printer: Printer, *, started: float | None = None,
                       closer: Callable[[], Awaitable[None]] | None = None) -> int:
    """Run one turn and report it; returns the exit code (0: the turn finished with an answer)."""
    run = _Run(engine, prompt, printer, time.monotonic() if started is None else started)
    await run.events()
    await run.close(closer)
    return run.report()


class _Run:
    """One `-p` run: its outcome, and what each kind of event adds to it (`take`)."""

    def __init__(self, engine: Engine, prompt: str, printer: Printer, started: float) -> None:
        self.engine, self.prompt, self.printer, self.started = engine, prompt, printer, started
        # the run's usage and cost are what it adds to the engine's session figures (a resumed session's are there)
        at_start = engine.session_usage
        self.outcome = Outcome(session_id=engine.session_id,
                               spent=lambda: engine.session_usage.since(at_start),
                               priced=cost(UsageFigures(), engine.config.model, engine.config.models) is not None)
        printer.outcome = self.outcome
        printer.start({"session_id": self.outcome.session_id, "model": engine.config.model,
                       "provider": engine.config.provider, "cwd": str(engine.config.project_root)})
        for warning in engine.warnings:
            printer.progress(f"warning: {warning}")
        if engine.config.server_unreached:      # the window is a guess until a call succeeds (then asked again)
            printer.progress(f"warning: {unreached_note(engine.config)}")
        self.unsaved: str | None = None
        self.answer: str | None = None
        self.refused: list[str] = []           # the calls the mode held back, by tool: said once, last
        self.mode = engine.config.permission_mode
        from contextual.core.custom_commands import command_for
        from contextual.print_commands import compact_request
        self.compact = compact_request(prompt)      # `-p "/compact 2"`: the built-in, never the model's message
        self.custom = (None if self.compact is not None
                       else command_for(prompt, engine.config.project_root, engine.config.home))
        self.fitted_before = len(engine.fittings)    # a stopped turn's fitting is recorded at its close, unsaid
        self.said: list[TurnAdjustments] = []

    async def events(self) -> None:
        """The turn's (or `/compact`'s) events, each printed and taken in; a failed write or a stop kept as such."""
        engine, compact = self.engine, self.compact
        try:
            if compact is not None:
                events_of = engine.compact(*compact)
            else:
                events_of = engine.run_turn(self.prompt) if self.custom is None else engine.run_command(*self.custom)
            async with aclosing(events_of) as events:
                async for ev in events:
                    self.printer.event(ev)
                    self.say(ev)
                    self.take(ev)
        except SessionError as exc:
            self.unsaved = str(exc)
            if self.answer is not None and self.outcome.is_error and not self.outcome.result:
                self.finished(self.answer)     # the turn ended; only its recording failed
        except asyncio.CancelledError:
            self.stopped()

    def say(self, ev: Event) -> None:
        """Its stderr line; a `/compact`'s end is the answer instead."""
        if self.compact is not None and isinstance(ev, CompactionFinished):
            self.finished(_compact_result(self.engine, ev, self.compact[1]))   # its line is the answer
        elif (line := progress_line(ev)) is not None:
            self.printer.progress(line)

    def take(self, ev: Event) -> None:
        """What the outcome keeps of an event (the steps, the answer, an error, a refused call)."""
        outcome = self.outcome
        match ev:
            case TurnAdjustments():
                self.said.append(ev)
            case PermissionRequest():       # headless never asks; answer defensively
                if not ev.future.done():
                    ev.future.set_result(PermissionAnswer("deny"))
            case ToolFinished() if refused_by_mode(ev.tool, ev.result, self.mode):
                self.refused.append(ev.tool)
            case ThoughtEvent() | ActionEvent():
                outcome.num_steps = max(outcome.num_steps, ev.step)
            case FinalAnswer():      # kept: a session that fails to close must not cost it
                self.answer, outcome.num_steps = ev.text, max(outcome.num_steps, ev.step)
            case TurnFinished():
                self.answer, outcome.num_steps = ev.answer, ev.steps
                self.finished(ev.answer)
            case ErrorEvent():
                outcome.result, outcome.is_error = ev.message, True
                self.printer.progress(f"error: {ev.message}")

    def finished(self, answer: str) -> None:
        self.outcome.result, self.outcome.is_error = answer, False
        self.printer.answer(answer)

    def stopped(self) -> None:
        """Stopped (asyncio.run cancels this task at SIGINT): the session, the steps made and the usage spent so
        far are the result, so a wrapper can resume by id and bill the spend; the cli's catch-all made a new one
        with none of them. The turn was recorded as interrupted on the way out."""
        _uncancel()
        for record in self.engine.fittings[self.fitted_before:]:      # what the turn's end would have said of its steps
            if not any(record.fitting is ev for ev in self.said):
                self.printer.event(record.fitting)
                self.printer.progress(progress_line(record.fitting) or "")
        stopped = INTERRUPTED if self.compact is None else COMPACTION_INTERRUPTED
        self.outcome.result, self.outcome.is_error = stopped, True
        self.printer.error(stopped)

    async def close(self, closer: Callable[[], Awaitable[None]] | None) -> None:
        """The session closed; a write that failed is said, and is the error when there was no answer."""
        if closer is not None:
            try:
                await closer()
            except SessionError as exc:
                self.unsaved = self.unsaved or str(exc)
        if self.unsaved is not None:
            self.printer.progress(f"warning: the session was not saved: {self.unsaved}")
            if not self.outcome.result:          # the write failed before any answer: that is the error to report
                self.outcome.result, self.outcome.is_error = f"the session was not saved: {self.unsaved}", True

    def report(self) -> int:
        if self.refused:
            self.printer.progress(refused_line(self.refused, self.mode))
        self.outcome.duration_ms = int((time.monotonic() - self.started) * 1000)
        self.printer.report(self.outcome)
        return 1 if self.outcome.is_error else 0
