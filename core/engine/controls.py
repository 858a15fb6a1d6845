"""The user's hands on the context (issue 19): pins, reminders and the calls the engine sent; and the SessionStart
hooks owed before the next input.

The builder reads `pins` (pinned messages go whole and are never made harder, cut or dropped) and the compactor
reads them too (pinned messages are never archived); the turn takes the reminders with its input, once.
"""

from __future__ import annotations

from typing import Callable, Sequence

from contextual.core.context.pins import Pins
from contextual.core.context.sent_log import SentLog
from contextual.core.context.user_shell import shell_run
from contextual.core.messages import Message, ShellRun
from contextual.core.ports import SessionSink


class ContextControls:
    def __init__(self, mode_note: Callable[[], str] = lambda: "") -> None:
        self.pins = Pins()
        self.mode_note = mode_note              # what the permission mode asks of every input (plan mode)
        self.reminders: list[str] = []          # re-injected facts: they ride on the next user input, then go
        # the user's `!command` results (as sent, whole, the command): the same way
        self.shell: list[tuple[str, str, str]] = []
        self.sent = SentLog()
        # SessionStart's sources not run yet (core/hooks.py): the hooks run before the next input is sent, and what
        # they add rides on it as a reminder. A new engine is a new session until it is told otherwise.
        self.session_starts: list[str] = ["startup"]

    def session_started(self, source: str, *, instead: bool = False) -> None:
        """The session (re)started: `resume`, `clear` (``instead`` of `startup`), or `compact` after a compaction."""
        if instead:
            self.session_starts = []
        if source not in self.session_starts:
            self.session_starts.append(source)

    # ----- reminders (a loss ledger item, re-injected)
    def remind(self, text: str) -> None:
        if text and text not in self.reminders:
            self.reminders.append(text)

    def withdraw(self, text: str) -> None:
        """Take back a reminder not sent yet: a later note says it instead."""
        if text in self.reminders:
            self.reminders.remove(text)

    def session_start_ran(self, source: str) -> None:
        """The SessionStart hooks owed for ``source`` ran (`TurnInput.session_starts`)."""
        self.session_starts.remove(source)

    def take_shell(self, runs: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        """`!command` results held for the next message elsewhere (another engine's: a fork; the session's: a
        resume), after this one's own; returns those it did not hold yet."""
        taken = [run for run in dict.fromkeys(runs) if run not in self.shell]
        self.shell.extend(taken)
        return taken

    def add_shell(self, command: str, sent: str, whole: str) -> None:
        self.shell.append((sent, whole, command))

    def shell_runs(self) -> list[ShellRun]:
        """What the next message records of the pending commands (read before consuming)."""
        return [shell_run(command, whole) for _, whole, command in self.shell]

    def with_reminders(self, question: str, consume: bool = False) -> str:
        """The input with the pending `!command` results before it (they came first) and the reminders appended
        inside it (like @file reminders); `consume` when the input is really sent, so they go once."""
        out = _joined([sent for sent, _, _ in self.shell], question, [*self.reminders, self.mode_note()])
        if consume:
            self.reminders, self.shell = [], []
        return out

    def whole_input(self, question: str) -> str | None:
        """The input as `with_reminders` makes it with each `!command`'s whole result instead of its stored
        form; None when no command is pending (the input has no other form). Read before consuming."""
        if not self.shell:
            return None
        return _joined([whole for _, whole, _ in self.shell], question, [*self.reminders, self.mode_note()])

    # ----- pins
    def toggle_pin(self, messages: Sequence[Message], message_id: str, session: SessionSink | None,
                   count: Callable[[str], int] | None = None, window: int = 0) -> bool:
        """Pin (or unpin) a history message and its step partner; recorded in the session. True when pinned now;
        PinRefused (core/context/pins.py) when it would not fit the window's share for pins."""
        pinned = self.pins.toggle(messages, message_id, count, window)
        if session is not None:
            session.append_pins(sorted(self.pins.ids))
        return pinned

    def restore_pins(self, messages: Sequence[Message], ids: list[str]) -> None:
        self.pins.ids = set(ids)
        self.pins.prune(messages)


def _joined(before: list[str], question: str, after: list[str]) -> str:
    return "\n\n".join(part for part in (*before, question, *after) if part)
