"""The user's hands on the context (issue 19): pins, reminders and the calls the engine sent.

The builder reads `pins` (pinned messages go whole and are never made harder, cut or dropped) and the compactor
reads them too (pinned messages are never archived); the turn takes the reminders with its input, once.
"""

from __future__ import annotations

from typing import Sequence

from contextual.core.context.pins import Pins
from contextual.core.context.sent_log import SentLog
from contextual.core.messages import Message
from contextual.core.ports import SessionSink


class ContextControls:
    def __init__(self) -> None:
        self.pins = Pins()
        self.reminders: list[str] = []          # re-injected facts: they ride on the next user input, then go
        self.sent = SentLog()

    # ----- reminders (a loss ledger item, re-injected)
    def remind(self, text: str) -> None:
        if text and text not in self.reminders:
            self.reminders.append(text)

    def with_reminders(self, question: str, consume: bool = False) -> str:
        """The input with the pending reminders appended inside it (like @file reminders); `consume` when the
        input is really sent, so they go once."""
        if not self.reminders:
            return question
        out = "\n\n".join([question, *self.reminders]) if question else "\n\n".join(self.reminders)
        if consume:
            self.reminders = []
        return out

    # ----- pins
    def toggle_pin(self, messages: Sequence[Message], message_id: str, session: SessionSink | None) -> bool:
        """Pin (or unpin) a history message and its step partner; recorded in the session. True when pinned now."""
        pinned = self.pins.toggle(messages, message_id)
        if session is not None:
            session.append_pins(sorted(self.pins.ids))
        return pinned

    def restore_pins(self, messages: Sequence[Message], ids: list[str]) -> None:
        self.pins.ids = set(ids)
        self.pins.prune(messages)
