"""The history's unit: one message, as stored (seed 002 D1, E1).

Roles:
- ``summary``   an archived-history summary (A5); never compressed again.
- ``user``      a user input; starts a round (D1). Also a Stop hook's reason, which goes on with its turn.
- ``assistant`` the model's ``Thought/Action`` text of one step, or the final answer.
- ``tool``      a tool result in its *stored* (compressed) form; ``full`` keeps the whole
                observation for browsing, it is never sent once the turn is over.
"""

from __future__ import annotations

import uuid as _uuid
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict, Unpack

Role = Literal["summary", "user", "assistant", "tool"]
# The "tool" of a reply the parser refused: its error goes back to the model as that call's result
FORMAT_ERROR_TOOL = "FormatError"


class ShellRun(TypedDict):
    """A user's `!command` whose result rides on a user message (core/context/user_shell.py)."""
    command: str
    lines: int                # its block's lines at the head of the message's ``full``, in order


class MessageMeta(TypedDict, total=False):
    """What a message carries beside its text, by role. Written to the session as ``meta`` (CONTRACT); read back
    as JSON (core/session/entries.py), so a reader checks a value's type where it matters."""
    timestamp: str            # every message: when it was recorded (UTC ISO, core.clock)
    turn: str                 # user messages and their turn's steps: the turn id (undo, rewind)
    # user
    raw: str                  # what the user typed (the content has @file reminders added)
    undo: str                 # a note from /undo telling the model its changes are gone: the undone turn's id
    stop_hook: str            # a Stop hook's reason: the message goes on with its turn (core/context/continuation.py)
    sent: str                 # when it was sent, when the turn compacted first (its timestamp comes after that)
    shell: list[ShellRun]     # the `!command` results it carries, so a resumed chat shows them as the live one did
    notes: list[str]          # the reminders that rode on it (a round cut without a summary, a stopped turn, a fact):
                              # owed again when the user rewinds to before it (`Message.notes`)
    # assistant steps and their tool results
    step: int
    call_id: str
    tool_name: str | None     # None: a call the record names without its tool (an aborted, unknown one)
    args: Any                 # the call's arguments, JSON as the model wrote them
    thinking: str             # the step's reasoning (only the latest is ever sent again)
    format_error: bool        # the reply could not be parsed: it is its own "call"
    # the final answer (assistant)
    final: bool
    answer: str               # the parsed Finish[...] text
    # tool results
    hard: str                 # the stored form at A3's harder limits, sent when even the kept rounds do not fit
    interrupted: bool         # the synthetic "aborted" result of a call that never finished
    synthetic: bool
    status: str
    # summaries
    start: str                # the archived span's first and last timestamps
    cutoff: str
    trigger: str
    rounds_archived: int
    files_included: list[str]
    edited: bool              # the user edited it in the compaction preview
    merged: int               # issue 24: it replaces this many earlier summaries (they outgrew window/4)


def new_id() -> str:
    return str(_uuid.uuid4())


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    # The whole form of ``content`` when that is shortened: a tool result's full observation (what the model saw
    # in its turn), an assistant step's whole action. Shown beside ``content``; sent again only when pinned.
    full: str | None = None
    meta: MessageMeta = field(default_factory=lambda: MessageMeta())
    id: str = field(default_factory=new_id)

    def with_content(self, content: str) -> "Message":
        return replace(self, content=content)

    def with_meta(self, **meta: Unpack[MessageMeta]) -> "Message":
        """A copy with these meta fields added (a message is never changed in place: history shares it)."""
        merged: MessageMeta = {**self.meta, **meta}
        return replace(self, meta=merged)

    @property
    def tool_name(self) -> str | None:
        return self.meta.get("tool_name")

    @property
    def call_id(self) -> str | None:
        return self.meta.get("call_id")

    @property
    def starts_turn(self) -> bool:
        """A message the user sent, which starts a turn and its round (an /undo's note is user-role, from the app; a
        Stop hook's reason is user-role, within the turn it continues)."""
        return self.role == "user" and not self.meta.get("undo") and not self.from_stop_hook

    @property
    def notes(self) -> list[str]:
        """The reminders that rode on this user message (meta ``notes``, read back as JSON: strings only). A rewind to
        before it owes them to the next input: the state they told of (a round cut without a summary) is still
        there, and the model had heard of it only in the message taken back."""
        said = self.meta.get("notes")
        return [n for n in said if isinstance(n, str) and n] if isinstance(said, list) else []

    @property
    def from_stop_hook(self) -> bool:
        """A Stop hook's reason, which its turn goes on with (core/context/continuation.py)."""
        return self.role == "user" and "stop_hook" in self.meta


# What the chat and the export say of a turn whose record holds no answer (stopped, or failed before its end)
NO_ANSWER = "no answer: this turn was stopped or failed before it finished"
