"""One compaction, plan → summarise → review → apply (seed 002 A4-A6, C2, D6, E2; issue 19.1 and 19.3), and the
compaction log. The summary runs as a task this object owns, so the modal's cancel key can stop it."""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, AsyncGenerator, Callable, Sequence

from contextual.core.clock import now_iso
from contextual.core.context.history import CompactionPlan
from contextual.core.context.pins import Pins, protect
from contextual.core.engine.hook_runner import HookRunner
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.engine.metered import Metered
from contextual.core.events import (CompactionFinished, CompactionProgress, CompactionStarted, Notice, PromptChanged,
                                    Retrying, UsageEvent)
from contextual.core.providers.base import UsageChunk
from contextual.core.events import CompactionTrigger as Trigger
from contextual.core.messages import Message
from contextual.core.server_windows import takes
from contextual.core.session.schema import CompactionRecord, Truncation
from contextual.core.context import compaction_words
from contextual.core.context.compaction_review import Event
from contextual.core.plural import plural
from contextual.core.reminder import system_reminder

if TYPE_CHECKING:      # the summary machinery loads with the first compaction, not with every engine (the launch)
    from contextual.core.context import compaction
    from contextual.core.context.file_analyzer import FileReport


def truncation_note(cut: Truncation) -> str:
    """With ``cut.partly`` the first round's start is in the summary above (the note said "what it held is not above"
    right under the summary of its start)."""
    rounds, why, after_summary, partly = cut.rounds, cut.why, cut.after_summary, cut.partly
    # rounds gone before those the summary above holds, whose own note left unread with these (told)
    earlier = "" if not cut.earlier else (
        f" Before the rounds that summary holds, {plural(cut.earlier, 'more round')} "
        f"{'was' if cut.earlier == 1 else 'were'} removed without a summary too.")
    if after_summary and partly:
        rest = "the rest of it" if rounds == 1 else f"the rest of it and the {plural(rounds - 1, 'round')} after it"
        which = ("The round after the last summary above is" if rounds == 1 else
                 f"Of the {rounds} rounds after the last summary above, the first is")
        return system_reminder(f"{which} summarised there only in part ({why or 'no summary'}): {rest} "
                               f"{'was' if rounds == 1 else 'were'} removed without a summary and "
                               f"{'is' if rounds == 1 else 'are'} not above.{earlier} If you need it, ask the user.")
    if after_summary:
        which = ("The round after the last summary above was" if rounds == 1 else
                 f"The {rounds} rounds after the last summary above were")
    else:
        which = "The oldest round of this conversation was" if rounds == 1 else \
            f"The {rounds} oldest rounds of this conversation were"
    return system_reminder(f"{which} removed without a summary ({why or 'no summary'}): what "
                           f"{'it' if rounds == 1 else 'they'} held is not above.{earlier} If you need it, ask the "
                           "user.")


def told(own: Truncation, log: Sequence[CompactionRecord], unread: Sequence[Message], summarised: bool) -> Truncation:
    """What the model is told after a compaction that removed ``own`` without a summary, counting in what earlier
    cuts told it where that note would be lost or contradicted: two fallbacks in a row told of one round where two
    were gone, the first note having ridden on a message the second archived unread.
    With no summary made since the last compaction's cut, its rounds lie just before these (the oldest rounds after
    the summaries go first): one span, counted together. Otherwise an earlier cut whose note rode on a message no
    summary read (``unread``) lies before the rounds the last summary holds: said as ``earlier``."""
    previous = log[-1].cut if log else None
    if previous is not None and not summarised:
        return Truncation(previous.rounds + own.rounds, own.why, previous.after_summary, previous.partly,
                          previous.earlier)
    notes = {note for m in unread for note in m.notes}
    gone = [r.cut for r in log if r.cut is not None and truncation_note(r.cut) in notes]
    return replace(own, earlier=own.earlier + sum(c.rounds + c.earlier for c in gone))


def _stopping() -> bool:
    """The task running this was itself cancelled (the turn stopped), beside the summary task."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


@dataclass
class _Run:
    """One compaction from its plan to its application."""
    trigger: Trigger
    pre: int                        # the trigger's estimate of the next prompt before it
    started: float                  # time.monotonic() at its start: the card's elapsed time
    plan: CompactionPlan
    held: list[str]                 # the pinned messages among the archived rounds': they stay
    hooks_said: list[str] = field(default_factory=list)     # the PreCompact hooks' notes, recorded with it
    kept_said: str = ""             # why fewer rounds are kept than asked, when the chat has not been told
    outcome: compaction.CompactionOutcome | None = None      # the summary to apply; None: cancelled in the preview


class Compactor:
    def __init__(self, settings: Settings, prompt: PromptState, recorder: Recorder, pins: Pins,
                 interactive: bool, remind: Callable[[str], None] = lambda note: None,
                 withdraw: Callable[[str], None] = lambda note: None,
                 restarted: Callable[[str], None] = lambda source: None) -> None:
        self._settings = settings
        self._remind = remind           # a note that rides on the next input (ContextControls.remind)
        self._withdraw = withdraw       # one not sent yet, taken back (ContextControls.withdraw)
        self._restarted = restarted     # SessionStart's "compact" is owed (ContextControls.session_started)
        self._prompt = prompt
        self._recorder = recorder
        self._pins = pins
        self._interactive = interactive
        self._hooks = HookRunner(settings, recorder)
        self.log: list[CompactionRecord] = []                 # the compaction log (`/compactions`), newest last
        self._summary_task: asyncio.Task[compaction.CompactionOutcome] | None = None
        self._cancelled = False
        self._kept_said = ""            # the last "fewer rounds kept" note the chat was given
        # an automatic compaction the user cancelled in the preview: the turn makes no other for the rest of it (it
        # was made again, every summary part asked for again, and the preview back, at each step)
        self._declined = False
        self.cancels = 0                # compactions cancelled in the preview: a turn that needed one sees it did

    def restore(self, log: list[CompactionRecord]) -> None:
        self.log[:] = log

    @property
    def declined(self) -> bool:
        """An automatic compaction was cancelled in the preview since the turn began (``new_turn``)."""
        return self._declined

    def new_turn(self) -> None:
        """A turn begins: an automatic compaction declined in the one before is made (and previewed) again."""
        self._declined = False

    @property
    def interactive(self) -> bool:
        """A user can review a summary here (the app); headless runs (`-p`) accept it."""
        return self._interactive

    def cancel(self) -> None:
        """The modal's cancel key: stop the summary call; what it finished is kept and the rest falls back to hard
        truncation (UI.md: esc falls back to truncation; the preview's cancel is the way out that changes nothing)."""
        self._cancelled = True
        if self._summary_task is not None:
            self._summary_task.cancel()

    async def run(self, trigger: Trigger, instructions: str | None, keep_rounds: int | None = None,
                  preview: bool = False) -> AsyncGenerator[Event, None]:
        """Plan → summarise (cancellable) → review (issue 19.1) → apply the outcome."""
        from contextual.core.context import compaction
        config = self._settings.config
        started = time.monotonic()
        self._cancelled = False           # esc from here on stops this compaction's summary (even before it starts)
        # Issue 24, one unit: the card's "before" and "after" are the trigger's estimate of the next prompt — the
        # figure the meter shows (our count before any fitting, or the server's usage when that is larger).
        pre = self._prompt.compaction_due().estimate
        plan, refused, held = self._plan(config.keep_rounds if keep_rounds is None else keep_rounds)
        if plan is None:
            yield CompactionFinished(trigger, pre, pre, 0, (), "", refused=refused)
            return
        run = _Run(trigger, pre, started, plan, held)
        yield CompactionStarted(trigger, pre, plan.rounds_archived)
        run.hooks_said = await self._pre_compact(trigger, instructions)
        for note in run.hooks_said:                         # recorded with it: a resumed chat says them too
            yield Notice(note, "warning")
        # fewer rounds kept than keep_rounds: the chat is told why, once (at 4k every message compacts; the card says
        # it each time), when the compaction is applied: said before the preview, it stayed after a cancel
        run.kept_said = plan.note if plan.note != self._kept_said else ""
        yield CompactionProgress("choosing", time.monotonic() - started, 0,
                                 f"archiving {plural(plan.rounds_archived, 'round')}; "
                                 + (plan.note if plan.note else f"keeping {plan.rounds_kept}"))
        files = await asyncio.to_thread(compaction.files_for, plan, config.project_root)   # disk off the loop
        reviewed = self._interactive and (preview or (trigger == "auto" and config.compaction_preview))
        async with aclosing(self._summarised(run, instructions, files, reviewed)) as events:
            async for ev in events:
                yield ev
        if run.outcome is None:
            yield CompactionFinished(trigger, pre, pre, 0, (), "", refused="cancelled in the preview; "
                                     "history is unchanged")
            return
        async with aclosing(self._applied(run, run.outcome)) as events:
            async for ev in events:
                yield ev

    def _plan(self, keep: int) -> tuple[CompactionPlan | None, str, list[str]]:
        """The rounds to archive, keeping `keep`, with the pinned messages among them (which stay); else None and
        why not."""
        from contextual.core.context import compaction, review_flow
        config, prompt = self._settings.config, self._prompt
        plan, refused = compaction.plan(prompt.l3(), len(prompt.history.messages), keep, prompt.keep_budget())
        if plan is not None and self._settings.summary_provider is None:
            # No model to summarise with (a session resumed without one): the fallback would archive the rounds
            # with no summary at all, losing them for a missing setting. Refused, and said why.
            plan, refused = None, (f"{config.missing_model_message() or 'no model configured'}: a summary needs "
                                   "a model")
        held: list[str] = []
        if plan is not None:                       # pinned messages are never archived (issue 19.3)
            held = review_flow.pinned_in_archive(plan, self._pins)
            plan = protect(plan, self._pins)
            refused = refused or "every message older than the kept rounds is pinned: nothing to summarise"
        return plan, refused, held

    async def _pre_compact(self, trigger: Trigger, instructions: str | None) -> list[str]:
        """What the PreCompact hooks said; one that would stop the compaction is said, not silently dropped: it
        cannot stop one here."""
        before = await self._hooks.pre_compact(trigger, instructions)
        hooks_said = [*before.notes]
        if before.blocked or before.stop is not None:
            hooks_said.append(f"a PreCompact hook cannot stop a compaction here; it goes on "
                              f"({before.reason or before.stop})")
        return hooks_said

    async def _summarised(self, run: _Run, instructions: str | None, files: FileReport, reviewed: bool
                          ) -> AsyncGenerator[Event, None]:
        """The summary in `run.outcome`: asked again with the user's instructions until accepted in the preview
        (`reviewed`); left None when the preview was cancelled."""
        from contextual.core.context import compaction, review_flow
        prompt = self._prompt
        pinned = self._pins.pinned(prompt.history.messages)
        attempt, box = 1, list[compaction.CompactionOutcome]()
        while True:
            async with aclosing(self._summarise(run.plan, run.trigger, files, review_flow.summary_instructions(
                        instructions, pinned), run.pre, run.started, box, run.held)) as events:
                async for ev in events:
                    yield ev
            outcome = box.pop()
            # No summary, or only its finished parts (esc, a later part timed out or failed): applied as it stands
            if not reviewed or outcome.summary is None or outcome.parts is not None or self._cancelled:
                run.outcome = outcome
                return
            review = review_flow.start_review(run.trigger, run.plan, outcome.text, attempt,
                                              [m.content for m in prompt.history.summaries])
            yield review.event
            decision = await review.decision()
            if decision.action == "accept":
                run.outcome = review_flow.with_text(outcome, decision.text)
                return
            if decision.action == "cancel":
                self._declined = self._declined or run.trigger == "auto"
                self.cancels += 1
                return
            attempt, instructions = attempt + 1, decision.instructions or instructions

    async def _applied(self, run: _Run, outcome: compaction.CompactionOutcome) -> AsyncGenerator[Event, None]:
        """The outcome applied to history and recorded, and the prompt rebuilt on it."""
        said = run.kept_said
        if said:
            self._kept_said = said
            yield Notice(compaction_words.kept_line(said), "info")
        if outcome.merged:                     # issue 24: the one place summaries are compressed again
            yield Notice(compaction_words.merged_line(outcome.merged), "info")
        yield CompactionProgress("rebuilding", time.monotonic() - run.started, 0, "rebuilding the prompt")
        await self._recorder.flush(fsync=True)
        post = self._apply(outcome, run.pre, run.held, said, run.hooks_said)
        await self._recorder.flush(fsync=True)
        yield PromptChanged(self._prompt.next_prompt)
        yield CompactionFinished(run.trigger, run.pre, post, run.plan.rounds_archived, outcome.files_included,
                                 outcome.text, outcome.fallback, parts=outcome.parts,
                                 rounds_truncated=outcome.rounds_truncated, ended=outcome.ended,
                                 input_cut=outcome.input_cut)

    async def _summarise(self, plan: CompactionPlan, trigger: Trigger, files: FileReport, instructions: str | None,
                         pre: int, started: float, box: list[compaction.CompactionOutcome], held: list[str]
                         ) -> AsyncGenerator[Event, None]:
        """One summary call as a cancellable task with its progress; the outcome is left in ``box``."""
        from contextual.core.context import compaction
        from contextual.core.context.summary_outcome import PartsDone
        progress: asyncio.Queue[CompactionProgress | Retrying] = asyncio.Queue()
        assert self._settings.summary_provider is not None      # run() refuses a plan without one
        meter = Metered(self._settings.summary_provider)
        summariser = compaction.summariser(meter, self._settings.config)
        done = PartsDone()
        self._summary_task = asyncio.ensure_future(compaction.summarise(
            plan, trigger, summariser, files, instructions,
            lambda tokens, detail: progress.put_nowait(
                CompactionProgress("summarising", time.monotonic() - started, tokens, detail)),
            list(self._prompt.history.summaries), done,
            lambda retry: progress.put_nowait(Retrying(0, retry.attempt, retry.attempts, retry.reason, retry.wait,
                                                       retry.retry_after, call="summary"))))
        if self._cancelled:               # esc came while the rounds were being chosen
            self._summary_task.cancel()
        try:
            yield CompactionProgress("summarising", time.monotonic() - started, 0, "asking the summary model")
            async with aclosing(compaction.pump(self._summary_task, progress)) as events:
                async for ev in events:
                    yield ev
            outcome = self._summary_task.result()
        except (asyncio.CancelledError, GeneratorExit):   # GeneratorExit: cancelled while its event was handled
            outcome = compaction.stopped(plan, trigger, done)
            if not self._cancelled or _stopping():
                # The whole turn was stopped (ctrl+c in -p, the app quitting, esc on the card), not only this
                # compaction: it is abandoned and history stays whole; the next input compacts again. Cutting here
                # dropped the archived rounds with nobody told.
                self._summary_task.cancel()
                raise
        finally:
            self._summary_task = None
            spent = [self._spent(chunk, model) for chunk, model in meter.taken()]   # recorded, however it ended
        for usage in spent:
            yield usage
        config = self._settings.config
        if config.effective_summary_model == config.model and takes(summariser.learned, config.context_window):
            # the summary request's rejection stated the model's window: the turn's calls and the next runs use it
            yield Notice(self._settings.take_server_window(summariser.learned or 0), "warning")
        box.append(outcome)

    def _spent(self, chunk: UsageChunk, model: str) -> UsageEvent:
        """A summary call's usage: the session's cost counts it, live and on resume."""
        usage = self._prompt.usage.take_side(chunk, model, self._settings.config, "summary")
        self._recorder.usage(usage)
        return usage

    def _apply(self, outcome: compaction.CompactionOutcome, pre: int, held: Sequence[str] = (), said: str = "",
               hooks_said: Sequence[str] = ()) -> int:
        """Apply to history; log it (with the loss ledger: what the archived rounds held that nothing in the
        prompt holds now, ``said``: the chat's note on the rounds kept, ``hooks_said``: its PreCompact hooks' notes)
        and record it in the session."""
        from contextual.core.context import compaction, review_flow
        prompt = self._prompt
        ledger = review_flow.ledger_of(outcome.plan.archive, outcome.plan.kept, outcome.text,
                                       prompt.history.summaries)
        # The first message kept whole after the pinned ones: the kept rounds', else the round in progress's.
        current = prompt.history.messages[prompt.turn_start:] if prompt.turn_start is not None else []
        kept_from = next((m.id for m in [*outcome.plan.kept, *current] if m.id not in held), None)
        prompt.apply_compaction(outcome.summary, kept_from, held)
        record = CompactionRecord(outcome.trigger, pre, None, tuple(outcome.files_included), outcome.fallback,
                                  outcome.plan.rounds_archived, ledger, kept_from, tuple(held), now_iso(),
                                  outcome.merged, outcome.parts, outcome.rounds_truncated, outcome.ended,
                                  outcome.input_cut, outcome.partly, kept_note=said, hook_notes=tuple(hooks_said))
        # E2's truncation leaves no summary (or only the finished parts'): without a word the model takes the kept
        # rounds for the start. Under an earlier summary they are the rounds after it, not the conversation's oldest
        own = record.own_cut(after_summary=bool(prompt.history.summaries))
        cut = None
        if own is not None:
            summarised, previous = outcome.summary is not None, self.log[-1].cut if self.log else None
            if previous is not None and not summarised:
                # one span with the last cut (told): its note, when it still waits for an input (two /compact
                # before one), is taken back, or the model read "the oldest round" beside "the 2 oldest rounds"
                self._withdraw(truncation_note(previous))
            cut = told(own, self.log, compaction.unread(outcome), summarised)
            self._remind(truncation_note(cut))
        post = prompt.compaction_due().estimate
        record = replace(record, post_tokens=post, cut=cut)
        self.log.append(record)
        self._recorder.compaction(record, outcome.summary)
        self._restarted("compact")       # what a SessionStart hook added went with the archived rounds: it runs again
        return post
