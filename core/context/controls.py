"""The user's hands on the context (issue 19), as the Engine's public calls: pins, reminders, the calls it sent,
the live policy. A mixin so the engine's own module only calls into it at a few named points:

- `_init_controls()` in the constructor;
- `with_reminders(question)` where the turn's input (and the preview's) is made;
- `sent.add(messages, model)` where a request goes out;
- `pins` read by the builder (pinned messages go whole and are never made harder, cut or dropped) and by the
  compaction (pinned messages are never archived).
"""

from __future__ import annotations

from typing import Any

from contextual.core.context.pins import Pins
from contextual.core.context.sent_log import SentLog


class ContextControls:
    builder: Any
    history: Any
    session: Any

    def _init_controls(self) -> None:
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
    def toggle_pin(self, message_id: str) -> bool:
        """Pin (or unpin) a history message and its step partner; recorded in the session. True when pinned now."""
        pinned = self.pins.toggle(self.history.messages, message_id)
        if self.session is not None:
            self.session.append_pins(sorted(self.pins.ids))
        return pinned

    def restore_pins(self, ids: list[str]) -> None:
        self.pins.ids = set(ids)
        self.pins.prune(self.history.messages)

    # ----- the live context policy (/policies)
    @property
    def policy(self) -> str:
        return self.builder.policy

    def set_policy(self, name: str) -> None:
        from contextual.core.context.scratchpad import POLICIES
        if name not in POLICIES:
            raise ValueError(f"unknown context policy {name!r}; known: {', '.join(sorted(POLICIES))}")
        self.builder.policy = name
