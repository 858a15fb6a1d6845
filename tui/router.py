"""Routes the engine's events onto the surfaces (chat, scratchpad, status line, history and meter, modals).

It runs inside the app's `turn` worker, on the event loop, so it may touch widgets directly. It knows the app only
as Textual's (``tui.textual_app.TextualApp``: the widgets it queries, the modals it pushes) and the parts it is
handed through the narrow protocols of ``tui.surfaces``, never the app itself; it never re-parses model text (the
engine sends the answer as events) and never waits on the user except where the user must read something (a
permission, an auto-compaction card).
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from typing import AsyncGenerator, Callable, TYPE_CHECKING, assert_never

from contextual.core import events as ev
from contextual.core.tools.todowrite import todos_sent
from contextual.tui.format import (args_label, compaction_level, compaction_note, denied, ledger_line,
                                   permission_level, permission_mark, permission_note, tokens, trail_status)
from contextual.tui.screen_safe import screen_text, stream_guard
from contextual.tui.surfaces import Readings, Showing, Stopping
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:       # the modals are imported when they first open: not needed for the first frame
    from contextual.core.context.compaction_review import CompactionReview, Event
    from contextual.tui.screens.compaction import CompactionModal
    from contextual.tui.screens.permission import PermissionModal

    # The events by what shows them (EventRouter._dispatch): the reply streaming, a tool's call, a compaction,
    # the turn's course.
    _ReplyEvent = (ev.TextDelta | ev.ReasoningDelta | ev.StreamRestarted | ev.Retrying | ev.ThoughtEvent
                   | ev.ActionEvent | ev.FormatErrorEvent | ev.UsageEvent | ev.AnswerDelta | ev.FinalAnswer)
    _ToolEvent = (ev.ToolStarted | ev.ToolOutput | ev.ToolFinished | ev.PermissionRequest | ev.PermissionDecided
                  | ev.ToolsChanged)
    _CompactionEvent = ev.CompactionStarted | CompactionReview | ev.CompactionProgress | ev.CompactionFinished
    _TurnEvent = (ev.PromptChanged | ev.MessageRecorded | ev.TurnAdjustments | ev.BudgetWarning | ev.Notice
                  | ev.StopHookContinued | ev.TurnFinished | ev.ErrorEvent)


class EventRouter:
    def __init__(self, app: TextualApp, readouts: Readings, turns: Stopping, shown: Showing) -> None:
        self.app = app
        self.readouts = readouts
        self.turns = turns
        self.shown = shown
        self.compaction_modal: CompactionModal | None = None
        self.permission_modal: PermissionModal | None = None
        self._asked: tuple[str, object] | None = None     # the call a permission question is about, till answered
        self._logged_before = 0
        self._calling_step = 0
        self._answered = False
        self._fitted: list[ev.TurnAdjustments] = []      # the turn's fittings shown (its "context adjusted" row)
        self.events_seen = 0
        self.last_outcome = ""            # how the latest turn or compaction ended (tui/queued.py reads it)
        self.streams = stream_guard()     # keys redacted, and never shown in part across streamed fragments

    # ----- the surfaces: rows of the main screen, found when used (the router may be made before they mount)
    @property
    def chat(self) -> ChatLog:
        return self.app.query_one(ChatLog)

    @property
    def scratchpad(self) -> ScratchpadView:
        return self.app.query_one(ScratchpadView)

    @property
    def status(self) -> StatusLine:
        return self.app.query_one(StatusLine)

    # ----- whole streams
    async def consume_turn(self, text: str, stream: AsyncGenerator[Event, None]) -> None:
        self._answered = False
        self._calling_step = 0
        self._asked = None
        self.streams.reset()
        text = screen_text(text)     # typed or pasted: an escape sequence in it reached the terminal as written
                                     # (a restored chat cleans its messages where it reads the record)
        await self.chat.add_user(text)
        self.scratchpad.start_turn(text)
        self.status.thinking()
        outcome = "interrupted"
        self._fitted = []
        fitted_before = len(list(self.shown.engine.fittings))
        try:
            async with aclosing(stream) as events:
                async for event in events:
                    await self.route(event)
                    if isinstance(event, ev.TurnFinished):
                        outcome = "finished"
                    elif isinstance(event, ev.ErrorEvent):
                        outcome = "failed"
        except asyncio.CancelledError:
            await self.chat.finish_answer(None)
            # as the record will read on resume: the call asked about and those running end aborted, and the
            # turn "interrupted" (live it said "turn cancelled (recorded as interrupted)" and left the call out)
            await self.chat.calls_stopped(self._asked)
            # summed up at its close, after its events
            for record in list(self.shown.engine.fittings)[fitted_before:]:
                if not any(record.fitting is said for said in self._fitted):
                    await self.chat.context_adjusted(record.fitting)
            await self.chat.add_notice("turn interrupted", "warning")
            raise
        finally:
            self.after_turn(outcome)

    async def consume_compaction(self, stream: AsyncGenerator[Event, None]) -> None:
        self.last_outcome = ""
        try:
            async with aclosing(stream) as events:
                async for event in events:
                    await self.route(event)
            self.last_outcome = "compacted"
        finally:
            self._compaction_over()
            self.status.idle()
            self.readouts.show_prompt()

    def after_turn(self, outcome: str) -> None:
        self.last_outcome = outcome
        self.dismiss_permission()
        self._compaction_over()
        self.scratchpad.end_turn(outcome)
        self.status.idle()
        self.readouts.show_prompt()

    def cancel_compaction(self) -> None:
        if self._cancel_hook is not None:
            self._cancel_hook()

    _cancel_hook: Callable[[], None] | None = None

    def set_compaction_canceller(self, hook: Callable[[], None] | None) -> None:
        """What esc in the compaction modal calls (the engine's cancel_compaction)."""
        self._cancel_hook = hook

    # ----- one event
    async def route(self, event: Event) -> None:
        self.events_seen += 1
        for safe in self.streams.safe(event):      # no key (nor part of one) and no terminal escape reaches a widget
            await self._dispatch(safe)

    async def _dispatch(self, e: Event) -> None:
        """Every kind of event, to the handler of what shows it; an unknown one is a programming error
        (assert_never)."""
        from contextual.core.context.compaction_review import CompactionReview   # loaded by the first turn, not at launch
        match e:
            case ev.TextDelta() | ev.ReasoningDelta() | ev.StreamRestarted() | ev.Retrying() | ev.ThoughtEvent() \
                    | ev.ActionEvent() | ev.FormatErrorEvent() | ev.UsageEvent() | ev.AnswerDelta() | ev.FinalAnswer():
                await self._on_reply(e)
            case ev.ToolStarted() | ev.ToolOutput() | ev.ToolFinished() | ev.PermissionRequest() \
                    | ev.PermissionDecided() | ev.ToolsChanged():
                await self._on_tool(e)
            case ev.CompactionStarted() | CompactionReview() | ev.CompactionProgress() | ev.CompactionFinished():
                await self._on_compaction(e)
            case ev.PromptChanged() | ev.MessageRecorded() | ev.TurnAdjustments() | ev.BudgetWarning() | ev.Notice() \
                    | ev.StopHookContinued() | ev.TurnFinished() | ev.ErrorEvent():
                await self._on_turn(e)
            case _:
                assert_never(e)

    async def _on_reply(self, e: _ReplyEvent) -> None:
        """The model's reply as it streams: its step on the scratchpad, its answer in the chat, the status line."""
        match e:
            case ev.AnswerDelta():
                self.status.answering()
                await self.chat.stream_answer(e.text)
            case ev.FinalAnswer():
                self._answered = True
                await self.chat.finish_answer(e.text)
            case ev.TextDelta():
                self._call_started(e.step)
                self.status.retried()
                self.scratchpad.update_step(e.step, streamed=e.text)
            case ev.StreamRestarted():
                self.scratchpad.reset_step(e.step)
            case ev.Retrying() if e.call == "summary":   # a compaction's summary request: its card says it
                if self.compaction_modal is not None:
                    self.compaction_modal.retrying(e)
            case ev.Retrying():                      # the call is tried again: the status line says why and when
                self.status.retrying(e)
            case ev.ReasoningDelta():
                self._call_started(e.step)
                self.status.retried()
                self.scratchpad.update_step(e.step, reasoning=e.text)
            case ev.ThoughtEvent():
                self.scratchpad.update_step(e.step, thought=e.text)
            case ev.ActionEvent():
                self.scratchpad.update_step(e.step, tool=e.tool, args=e.args)
            case ev.FormatErrorEvent():
                self.scratchpad.update_step(e.step, format_error=e.message)
                self.status.thinking()
            case ev.UsageEvent():
                self.status.retried()      # a reply that streamed no text still ends a retry's wait
            case _:
                assert_never(e)

    async def _on_tool(self, e: _ToolEvent) -> None:
        """A tool's call: its run, the permission it asks, the tools in force changing."""
        match e:
            case ev.ToolStarted():
                await self.on_tool_started(e)
            case ev.ToolOutput():                    # a running tool's output, when the engine streams it
                self.status.output(e.text)
            case ev.ToolFinished():
                await self.on_tool_finished(e)
            case ev.PermissionRequest():
                self.on_permission_request(e)
            case ev.PermissionDecided():
                await self.on_permission_decided(e)
            case ev.ToolsChanged():
                await self.on_tools_changed(e)
            case _:
                assert_never(e)

    async def _on_compaction(self, e: _CompactionEvent) -> None:
        """A compaction: its card from start to finish, and the preview the engine awaits."""
        from contextual.core.context.compaction_review import CompactionReview
        match e:
            case ev.CompactionStarted():
                self.on_compaction_started(e)
            case ev.CompactionProgress():
                if self.compaction_modal is not None:
                    self.compaction_modal.progress(e.stage, e.elapsed, e.tokens_received, e.detail)
            case ev.CompactionFinished():
                await self.on_compaction_finished(e)
            case CompactionReview():                 # issue 19.1: the engine awaits the user's answer
                from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
                self.app.push_screen(CompactionPreviewScreen(e), e.decide)
            case _:
                assert_never(e)

    async def _on_turn(self, e: _TurnEvent) -> None:
        """The turn's course: the prompt it will send, its notices, its end."""
        match e:
            case ev.PromptChanged():
                self.readouts.show_prompt(e.view)
            case ev.TurnAdjustments():               # the engine's once-per-turn summary
                await self.on_turn_adjustments(e)
            case ev.BudgetWarning():
                await self.chat.add_notice(e.message, "warning")
            case ev.Notice():
                await self.chat.add_notice(e.message, e.level)
            case ev.StopHookContinued():
                await self.on_stop_hook_continued(e)
            case ev.TurnFinished():
                if not self._answered:
                    await self.chat.finish_answer(e.answer)
            case ev.ErrorEvent():
                # a compaction's card saying "the turn goes on" over the chat: the turn ended, the error is the news
                self.close_result_card()
                await self.chat.finish_answer(None)
                await self.chat.add_notice(f"error ({e.kind}): {e.message}", "error")
            case ev.MessageRecorded():
                pass          # shown through the PromptChanged that follows (meter, History)
            case _:
                assert_never(e)

    def _call_started(self, step: int) -> None:
        if step != self._calling_step:
            self._calling_step = step
            self.readouts.call_started()

    async def on_tool_finished(self, e: ev.ToolFinished) -> None:
        self.scratchpad.update_step(e.step, running=False, observation=e.full_text,
                                       status="denied" if denied(e.stored) else e.status)
        # a non-zero exit too, and what it returned, as a resumed chat reads them from the stored form
        self.chat.tool_finished(e.tool, trail_status(e.stored, e.status), e.stored)
        if e.status == "success" and (todos := todos_sent(e.tool, e.args)) is not None:
            await self.chat.show_todos(todos)
        self.status.thinking()

    async def on_turn_adjustments(self, e: ev.TurnAdjustments) -> None:
        self._fitted.append(e)
        await self.chat.context_adjusted(e)

    async def on_tools_changed(self, e: ev.ToolsChanged) -> None:
        change = " ".join([f"+{t}" for t in e.added] + [f"-{t}" for t in e.removed])
        await self.chat.add_notice(f"tools changed: {change}; L1 is now {tokens(e.l1_tokens)} tokens", "warning")
        self.readouts.show_prompt()

    async def on_stop_hook_continued(self, e: ev.StopHookContinued) -> None:
        """The turn goes on after its answer: the answer's step shows what the model reads next."""
        from contextual.core.context import continuation
        self._answered = False
        self.scratchpad.update_step(e.step, observation=continuation.note(e.reason))
        await self.chat.add_notice(continuation.notice_line(e.reason), "warning")
        self.status.thinking()

    async def on_tool_started(self, e: ev.ToolStarted) -> None:
        self.scratchpad.update_step(e.step, tool=e.tool, args=e.args, running=True)
        self.status.running_tool(e.tool, args_label(e.args, 50))
        await self.chat.tool_started(e.tool, e.args)

    def on_permission_request(self, e: ev.PermissionRequest) -> None:
        from contextual.tui.screens.permission import PermissionModal
        future = e.future

        def answer(given: ev.PermissionAnswer | None) -> None:
            self.permission_modal = None
            if not future.done():
                future.set_result(given or ev.PermissionAnswer("deny"))
            if given is None:                    # esc: stop the turn rather than let the model ask again
                self.turns.stop()

        self.close_result_card()
        self.status.idle()
        self._asked = (e.tool, e.args)
        modal = self.permission_modal = PermissionModal(e.tool, e.args, e.preview, e.always, e.edits_files)
        self.app.push_screen(modal, answer)

    def dismiss_permission(self) -> None:
        modal, self.permission_modal = self.permission_modal, None
        if modal is not None and modal.is_attached:
            modal.dismiss(ev.PermissionAnswer("deny"))

    async def on_permission_decided(self, e: ev.PermissionDecided) -> None:
        from contextual.core.session.schema import PermissionRecord     # as a resumed chat shows it (chat_log)
        self._asked = None
        record = PermissionRecord(e.tool, e.decision, e.rules, e.once_only, e.note)
        if mark := permission_mark(record):          # on the call's trail row, not a line per call
            self.chat.permission_answered(mark)
        else:
            await self.chat.add_notice(permission_note(record), permission_level(record))
        if e.decision == "accept_edits":        # the engine changed the mode: the line under the input says so
            self.readouts.refresh_topbar()
        if e.decision != "deny":
            self.status.running_tool(e.tool)

    def on_compaction_started(self, e: ev.CompactionStarted) -> None:
        from contextual.tui.screens.compaction import CompactionModal
        self.close_result_card()              # the last compaction's card, if it is still up: this one replaces it
        self.status.idle()
        self._logged_before = len(list(self.shown.engine.compactions))
        modal = self.compaction_modal = CompactionModal(e.trigger, e.pre_tokens, e.rounds_to_archive,
                                                        on_cancel=self.cancel_compaction,
                                                        live_clock=self.status.animated)
        self.app.push_screen(modal, lambda _: self._modal_closed(modal))

    def _modal_closed(self, modal: CompactionModal) -> None:
        # The card closed above may be the last compaction's, closed as the next one started (its dismissal lands
        # after): the next one's modal stays the one its events go to. It was forgotten, and stayed on screen
        # "summarising" for good once the turn ended (three compactions in one turn at 4k).
        if self.compaction_modal is modal:
            self.compaction_modal = None

    async def on_compaction_finished(self, e: ev.CompactionFinished) -> None:
        # History and meter first: the new estimate shows the moment the card does.
        self.readouts.show_prompt()
        modal = self.compaction_modal
        logged = list(self.shown.engine.compactions)
        if modal is not None:
            modal.in_turn = e.trigger == "auto"
            modal.lost = ledger_line(logged[-1].loss_ledger) if logged and not e.refused else ""
            modal.finish(e)
        asked = e.trigger == "manual"        # /compact or ctrl+k: the user waits for its answer
        if e.refused:       # a cancel in the preview too: the card goes by itself, the chat keeps what happened
            await self.chat.add_notice(f"nothing compacted: {e.refused}", "info" if modal is not None else "warning",
                                       replied=asked)
        if not e.refused:
            from contextual.core.session.schema import CompactionRecord
            record = CompactionRecord(e.trigger, e.pre_tokens, e.post_tokens, e.files_included, fallback=e.fallback,
                                      rounds_archived=e.rounds_archived,
                                      loss_ledger=logged[-1].loss_ledger if logged else None, parts=e.parts,
                                      rounds_truncated=e.rounds_truncated, ended=e.ended, input_cut=e.input_cut)
            await self.chat.add_compaction(compaction_note(record), compaction_level(record), replied=asked)
        if modal is not None and asked:
            # Its result is the chat's card (compaction_note): the summary was just approved in the preview, and a
            # dialog that waited for enter after every /compact decided nothing. /compactions opens the card.
            modal.close_if_shown()
        # An automatic compaction inside a turn: the turn goes on while its card shows (it closes itself, or on
        # enter). At 4k–8k nearly every message compacts, and a turn that waited on each card lost seconds to it.
        if modal is not None and e.trigger == "auto":
            self.status.thinking()

    def close_result_card(self) -> None:
        """A compaction's card whose result is shown, closed before another modal takes the screen (a permission
        question, the next compaction): it would be found stale beneath it."""
        if self.compaction_modal is not None:
            self.compaction_modal.close_if_shown()

    def _compaction_over(self) -> None:
        """A compaction stream ended (or was cut): a modal still spinning turns into what the engine logged."""
        modal = self.compaction_modal
        if modal is None or modal.result is not None or not modal.is_attached:
            return
        logged = list(self.shown.engine.compactions)[self._logged_before:]
        if logged:
            from contextual.tui.screens.compaction import finished_of
            modal.finish(finished_of(logged[-1]))
        else:
            modal.finish(ev.CompactionFinished("manual" if modal.trigger == "manual" else "auto", 0, 0, 0, (), "",
                                               refused="the compaction was cancelled before it changed anything"))
