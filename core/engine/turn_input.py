"""A turn's input, up to the user's message recorded: the SessionStart hooks the session owes, the UserPromptSubmit
hooks (which may refuse it, or add context that rides on it), a compaction the trigger asks for first (A6/C7) or
the budget warnings; then the message itself, with the reminders owed and the user's `!command` results whole.
Stopped on the way, the message is still recorded: it was sent, and nothing typed is lost."""

from __future__ import annotations

import uuid
from contextlib import aclosing
from dataclasses import dataclass
from typing import AsyncGenerator

from contextual.core import secrets
from contextual.core.clock import now_iso
from contextual.core.context.compaction_review import Event
from contextual.core.context.compaction_words import ESTIMATE, against_trigger
from contextual.core.context.preprocess import preprocess
from contextual.core.engine.compactor import Compactor
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.hook_runner import HookRunner
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.engine.turn_ends import TurnEnds
from contextual.core.events import BudgetWarning, ErrorEvent, Notice
from contextual.core.messages import Message
from contextual.core.prompt import Trigger
from contextual.core.reminder import system_reminder
from contextual.core.textsafe import valid_unicode


@dataclass
class Opening:
    """One turn's input while it is admitted."""
    text: str                 # as sent: a key in it redacted (never sent nor recorded), valid Unicode
    typed: str                # with its @file reminders (A7)
    raw: str                  # what the user typed (`/init`, `/review a.py`), what a resumed chat shows
    turn_id: str
    sent: str                 # when it was sent: before the compaction it may set off
    kept: bool = True         # False once a UserPromptSubmit hook refused it
    compacted: bool = False   # a compaction ran before it was recorded


class TurnInput:
    def __init__(self, settings: Settings, prompt: PromptState, recorder: Recorder, controls: ContextControls,
                 compactor: Compactor, hooks: HookRunner, ends: TurnEnds) -> None:
        self._settings = settings
        self._prompt = prompt
        self._recorder = recorder
        self._controls = controls
        self._compactor = compactor
        self._hooks = hooks
        self._ends = ends

    def open(self, text: str, as_typed: str) -> Opening:
        text = secrets.redact(valid_unicode(text))      # a key in the message is never sent (nor recorded)
        return Opening(text, preprocess(text, self._settings.config.project_root), secrets.redact(as_typed) or text,
                       uuid.uuid4().hex[:12], now_iso())

    def record(self, opening: Opening) -> Message:
        """The user's message, made when recorded, after the compaction before the turn: its time and id come after
        the compaction's, and a note that compaction left (rounds cut without a summary) goes with this input, not
        the next. `sent` (when it was sent, before that compaction) says the compaction came with this input: a
        resumed chat shows it under this message, as the live chat did, not after the turn before."""
        whole = self._controls.whole_input(opening.typed)        # the user's `!command` results whole, when any
        shell = self._controls.shell_runs()
        notes = list(self._controls.reminders)       # owed again if the user rewinds to before this message
        return self._recorder.append(Message(
            "user", self._controls.with_reminders(opening.typed, consume=True), full=whole,
            meta={"turn": opening.turn_id, "raw": opening.raw, "timestamp": now_iso(),
                  **({"sent": opening.sent} if opening.compacted else {}), **({"shell": shell} if shell else {}),
                  **({"notes": notes} if notes else {})}))

    async def admit(self, opening: Opening) -> AsyncGenerator[Event, None]:
        try:
            async with aclosing(self._admit(opening)) as events:
                async for ev in events:
                    yield ev
        except BaseException:
            # Stopped (or the app quit) before the message was recorded — during a SessionStart or UserPromptSubmit
            # hook, or the compaction before the turn: it was sent, so the session keeps it, as a turn stopped before
            # its first call, and nothing typed is lost.
            if opening.kept:
                self.record(opening)
                self._ends.stopped(opening.turn_id)
                await self._recorder.flush(fsync=True)
            raise

    async def _admit(self, opening: Opening) -> AsyncGenerator[Event, None]:
        async with aclosing(self.session_starts()) as events:     # new, resumed or cleared: before the trigger
            async for ev in events:
                yield ev
        submitted = await self._hooks.user_prompt(opening.raw)
        for note in submitted.notes:
            yield Notice(note, "warning")
        if submitted.blocked or submitted.stop is not None:   # Claude Code: the prompt is not sent, nor kept
            opening.kept = False
            yield ErrorEvent(f"a UserPromptSubmit hook blocked this message: "
                             f"{submitted.reason or submitted.stop}; it was not sent", "hook")
            return
        for added in submitted.context:     # rides inside this message, as the other reminders do
            self._controls.remind(system_reminder(f"UserPromptSubmit hook additional context: {added}"))
        trigger = self._prompt.compaction_due(opening.text)
        if not trigger.due:
            warning = self._budget_warning(trigger)
            if warning is not None:
                yield warning
            return
        opening.compacted = True
        async with aclosing(self._compactor.run("auto", None)) as events:
            async for ev in events:
                yield ev
        # the compaction owes SessionStart ("compact"): run now, so what it adds rides on this input too
        async with aclosing(self.session_starts()) as events:
            async for ev in events:
                yield ev

    def _budget_warning(self, trigger: Trigger) -> BudgetWarning | None:
        """The meter's words (compaction_words.against_trigger): the estimate as a share of the trigger line, never
        of the window (the warning said 71 % where the meter said 97 % of the same figure); the warning line is the
        one figure said against the window, as warn_ratio is set."""
        config = self._settings.config
        # the trigger's figures are our count: the window too, the server's own figure named where it differs
        window = self._prompt.in_our_tokens(config.context_window)
        server = "" if window == config.context_window else \
            f"; our count: the server counts the window as {config.context_window:,}"
        said = f"{ESTIMATE} {against_trigger(trigger.estimate, trigger.threshold, '{:,}'.format)}"
        if trigger.estimate >= trigger.threshold:
            # not compacting at the trigger line: switched off, or nothing old enough to archive; /compact is advised
            # only where it would archive something (it refuses a history of one round)
            off = "" if config.auto_compact else "auto-compaction is off — "
            advice = (self._compact_advice() if trigger.compactable else
                      "nothing is old enough to archive: the prompt is fitted")
            return BudgetWarning(f"{said}, past the trigger line; {off}{advice}", trigger.estimate, window)
        if trigger.warn:
            # the warning line is min(warn_ratio × window, the trigger line): below the trigger line here
            return BudgetWarning(f"{said}: past the warning line at {trigger.warn_at:,} ({config.warn_ratio:.0%} of "
                                 f"the {window:,}-token window{server})", trigger.estimate, window)
        return None

    def _compact_advice(self) -> str:
        """How this user compacts: the app's /compact, or, headless, the -p run that does it (`-p` said "run
        /compact" at every turn, which it had no way to run)."""
        if self._compactor.interactive:
            return "run /compact"
        session = self._recorder.session_id
        which = f"-r {session}" if session else "-c"
        return f"compact between turns with `contextual {which} -p /compact`"

    async def session_starts(self) -> AsyncGenerator[Event, None]:
        """The SessionStart hooks the session owes (new, resumed, cleared, or just compacted: ContextControls), run
        before its next input is sent; what they add rides on that input as a reminder, once. One left pending
        when the turn is stopped during it runs before the next input."""
        controls = self._controls
        while controls.session_starts:
            source = controls.session_starts[0]
            said = await self._hooks.session_start(source)
            controls.session_start_ran(source)
            for note in said.notes:
                yield Notice(note, "warning")
            if said.blocked or said.stop is not None:     # as in Claude Code: it cannot stop a session; the user reads it
                yield Notice(f"a SessionStart hook ({source}) said: {said.reason or said.stop}", "warning")
            for added in said.context:
                controls.remind(system_reminder(f"SessionStart hook additional context: {added}"))
