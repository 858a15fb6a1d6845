"""Pins (issue 19.3): history messages the user marked "keep".

A pinned message is never compressed (it is sent in its full form), never made harder, cut or dropped to fit,
and never archived by a compaction: it stays in history, after the summaries, verbatim. A step and its
observation are one unit (a result without its call is an orphan the history drops), so pinning either pins
both. The summary prompt is told what is pinned, so the summary refers to it instead of repeating it.

The engine owns one `Pins`; the session records each change (latest wins) and a compaction's boundary entry
lists the pinned messages it kept from the archived rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

from contextual.core.context.history import CompactionPlan
from contextual.core.context.pairing import unit_of
from contextual.core.messages import Message
from contextual.core.tools.base import subject_of

MAX_NOTE_CHARS = 160
# Pins are sent whole and never archived, so together they must leave the window room to work and to compact:
# at most a quarter of it, the share a summary may grow to before compaction merges summaries.
PIN_SHARE = 4


class PinRefused(ValueError):
    """A pin that would not fit; the message is one line saying why and what to do."""


@dataclass
class Pins:
    ids: set[str] = field(default_factory=set)

    def __contains__(self, message_id: object) -> bool:
        return message_id in self.ids

    def __bool__(self) -> bool:
        return bool(self.ids)

    def toggle(self, messages: Sequence[Message], message_id: str, count: Callable[[str], int] | None = None,
               window: int = 0) -> bool:
        """Pin the message's unit, or unpin it when it is pinned; True when it is pinned now.
        Summaries are not pinnable: they are never compressed or archived anyway. With `count` and `window`,
        PinRefused when the pins, whole, would hold more than a PIN_SHARE-th of the window."""
        unit = unit_of(messages, message_id)
        if not unit or any(m.id in unit and m.role == "summary" for m in messages):
            return False
        if message_id in self.ids:
            self.ids -= unit
            return False
        if count is not None and window > 0:
            limit, chosen = window // PIN_SHARE, self.ids | unit
            held = sum(count(pinned_form(m)) for m in messages if m.id in chosen)
            if held > limit:
                raise PinRefused(f"not pinned: pins are sent whole, and with this one they would be {held:,} tokens, "
                                 f"more than a quarter of the {window:,}-token window ({limit:,}); it stays in "
                                 "history in its stored form")
        self.ids |= unit
        return True

    def prune(self, messages: Iterable[Message]) -> None:
        """Forget pins of messages no longer in history (an undone turn)."""
        self.ids &= {m.id for m in messages}

    def pinned(self, messages: Iterable[Message]) -> list[Message]:
        return [m for m in messages if m.id in self.ids]


def protect(plan: CompactionPlan, pins: Pins) -> CompactionPlan | None:
    """The plan with pinned messages moved from the archive to the front of what is kept (in their order).
    None when every archived message is pinned: there is nothing left to summarise."""
    if not pins:
        return plan
    held = [m for m in plan.archive if m.id in pins]
    if not held:
        return plan
    archive = [m for m in plan.archive if m.id not in pins]
    if not archive:
        return None
    return replace(plan, archive=archive, kept=held + list(plan.kept))


def _label(m: Message) -> str:
    step = f" step {m.meta['step']}" if m.meta.get("step") is not None else ""
    if m.role == "tool":
        return f"{m.tool_name} {subject_of(m.meta.get('args')) or ''}".strip() + f" observation{step}"
    if m.role == "assistant":
        return f"assistant{step}"
    return "user message"


def summary_note(pinned: Sequence[Message]) -> str:
    """What the summary prompt is told about pins (empty when nothing is pinned)."""
    if not pinned:
        return ""
    lines = ["The user pinned these messages. They stay in the history verbatim after the summary, so do not "
             "repeat their content; refer to them where it helps:"]
    for m in pinned:
        first = " ".join(m.content.split())[:MAX_NOTE_CHARS]
        lines.append(f"- [{_label(m)}] {first}")
    return "\n".join(lines)


def pinned_form(m: Message) -> str:
    """The text a pinned message is sent as: whole (a tool result's full observation, a step's whole action)."""
    return m.full if m.role in ("tool", "assistant") and m.full else m.content
