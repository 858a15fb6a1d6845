"""A session's record read back as the live chat showed its turns, as plain data (``ChatLog.show_transcript``
makes the widgets): the `!command` outputs a turn's message carried (shown before it), its message as typed, its
tool trail and task list, the notices between (permission answers, compactions during it, a Stop hook that made it
go on), its "context adjusted" row, its answers, why it ended without one, and the compactions and undo notes
after it, in the order they happened.

Each compaction goes after the last message recorded before it, worded as the live chat worded it: one that cut
rounds without a summary leaves no message of its own, so the record is what marks it. One made after an input was
sent, before its message was recorded (meta ``sent``), goes under that message. Each permission answer goes after
the call it answered, before the trail when that call was the turn's first (the trail appeared when the call
started, after the dialog). A turn's fitting to the window goes after the message it followed, as the live chat's row
came before the answer it preceded (or at the turn's end); a second one in the turn (a Stop hook made it go on)
joins the first row, as live. Each compaction is preceded by what the live chat said before its line (its PreCompact
hooks' notes, why it kept fewer rounds than asked, a merge of summaries)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contextual.core.context.continuation import notice_line
from contextual.core.context.user_shell import shell_results
from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.core.react import finish_so_far
from contextual.core.snapshot.undo import note_for_user
from contextual.core.tools.todowrite import todos_sent
from contextual.tui.format import (call_label, compaction_level, compaction_note, final_answer, permission_level,
                                   permission_mark, permission_note, trail_status)
from contextual.tui.result_line import result_lines
from contextual.tui.screen_safe import screen_text
from contextual.tui.shell_output import ShellShown, shell_shown
from contextual.tui.widgets.tool_trail import TrailCall

if TYPE_CHECKING:
    from contextual.core.events import TurnAdjustments
    from contextual.core.session.schema import CompactionRecord, FittedRecord, PermissionRecord, TurnEnd
    from contextual.core.tools.base import Todo

LAST = "\uffff"         # a time after every recorded one: a compaction without a time goes last


@dataclass(frozen=True)
class Shown:
    """What the live chat showed between a turn's message and its answer, one thing at a time."""
    kind: str                 # "trail" (the turn's tool calls), "todos" (its task list), "fitted" (its "context
                              # adjusted" row), "notice" or "answer"
    line: str = ""
    level: str = "info"
    start: int = 0            # a trail's first call (of Turn.calls): it holds those up to the next trail's start


TODOS = Shown("todos")
FITTED = Shown("fitted")


@dataclass
class Turn:
    text: str
    calls: list[TrailCall] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    todos: list[Todo] = field(default_factory=list)     # its last TodoWrite's list
    # after its answer, in the order they happened: its compactions' lines and undo notes, as (line, level)
    after: list[tuple[str, str]] = field(default_factory=list)
    # before its answer, in order: its trail where the first call started, its task list, the notices (permission
    # answers, compactions during the turn or before it, once it was sent)
    shown: list[Shown] = field(default_factory=list)
    end: TurnEnd | None = None        # why it ended without an answer (stopped, or failed), when the record says
    # a compaction's line came after its trail: the next call starts a trail below it, as the live chat's does
    trail_closed: bool = False
    shell: list[ShellShown] = field(default_factory=list)     # the `!command`s shown before its message
    fittings: list[TurnAdjustments] = field(default_factory=list)     # its fitting to the window, summed up


def resumed_turns(messages: list[Message], compactions: Sequence[CompactionRecord] = (),
                  permissions: Sequence[PermissionRecord] = (), ends: Mapping[str, TurnEnd] | None = None,
                  fittings: Sequence[FittedRecord] = ()) -> list[Turn]:
    return _Reader(messages, compactions, permissions, ends or {}, fittings).read()


class _Reader:
    """One reading of a record: the turns so far, the compactions and permission answers not placed yet."""

    def __init__(self, messages: list[Message], compactions: Sequence[CompactionRecord],
                 permissions: Sequence[PermissionRecord], ends: Mapping[str, TurnEnd],
                 fittings: Sequence[FittedRecord] = ()) -> None:
        self.messages = messages
        self.ends = ends
        self.turns: list[Turn] = []
        self.pending = sorted(compactions, key=lambda r: r.timestamp or LAST)
        self.answers: dict[str, list[PermissionRecord]] = {}
        for record in permissions:
            if record.after is not None:
                self.answers.setdefault(record.after, []).append(record)
        self.fittings: dict[str, list[TurnAdjustments]] = {}
        for fitted in fittings:
            if fitted.after is not None:
                self.fittings.setdefault(fitted.after, []).append(fitted.fitting)

    def read(self) -> list[Turn]:
        for message in self.messages:
            if message.role == "summary":      # the compaction's record marks it, at its own time
                continue
            if message.starts_turn:
                self._start_turn(message)
            else:
                self._take(message)
            self._fitted(message.id)
        self._compacted_before(LAST)
        return self.turns

    def _start_turn(self, message: Message) -> None:
        timestamp, sent = message.meta.get("timestamp"), message.meta.get("sent")
        if isinstance(timestamp, str):
            # The turn before's: those recorded before this input (before it was sent, when it compacted first).
            if isinstance(sent, str):
                self._compacted_before(sent, at_it=False)
            else:
                self._compacted_before(timestamp)
        # the message as typed, from the record: an escape in it would reach the terminal (live, the router cleans
        # what was typed before the chat shows it)
        self.turns.append(Turn(screen_text(str(message.meta.get("raw", message.content))),
                               end=self.ends.get(str(message.meta.get("turn"))),
                               shell=[shell_shown(*ran) for ran in shell_results(message)]))
        if isinstance(timestamp, str):     # this input's: made once it was sent, shown under it as live
            self._compacted_before(timestamp, during=True)

    def _take(self, message: Message) -> None:
        timestamp = message.meta.get("timestamp")
        if isinstance(timestamp, str):
            self._compacted_before(timestamp, during=message.role != "user")     # an undo note comes after its turn
        if not self.turns:
            return
        turn = self.turns[-1]
        if message.from_stop_hook:     # the turn went on after this answer
            if turn.answers:
                turn.shown.append(Shown("answer", turn.answers.pop()))
            turn.shown.append(Shown("notice", notice_line(str(message.meta["stop_hook"])), "warning"))
        elif message.role == "user":
            turn.after.append(("↶ " + note_for_user(message, self.messages), "info"))
        elif message.role == "assistant" and message.meta.get("final"):
            turn.answers.append(final_answer(message))
        elif message.role == "assistant" and message.meta.get("interrupted"):
            answer = finish_so_far(message.content)     # an answer stopped mid-stream: as far as the chat showed it
            if answer:
                turn.answers.append(answer)
        elif message.meta.get("format_error") or message.meta.get("tool_name") == FORMAT_ERROR_TOOL:
            return          # a reply the parser refused: the live chat shows no call for it either
        elif message.role == "assistant" and message.meta.get("tool_name"):
            self._call(turn, message)
        elif message.role == "tool":
            _result(turn, message)
        self._answered(message.id)

    def _call(self, turn: Turn, message: Message) -> None:
        turn.calls.append(TrailCall(message.meta.get("tool_name") or "", call_label(message.meta.get("args")),
                                    "running"))
        self._answered(message.id)         # the dialog came before the call started
        if turn.trail_closed or not any(shown.kind == "trail" for shown in turn.shown):
            turn.shown.append(Shown("trail", start=len(turn.calls) - 1))
            turn.trail_closed = False
        todos = todos_sent(str(message.meta.get("tool_name")), message.meta.get("args"))
        if todos is not None:
            turn.todos = todos
            if TODOS not in turn.shown:
                turn.shown.append(TODOS)

    def _compacted_before(self, timestamp: str, during: bool = False, at_it: bool = True) -> None:
        """Those recorded before ``timestamp`` (or at it: ``at_it``) go to the last turn."""
        pending = self.pending
        while pending and ((pending[0].timestamp or LAST) < timestamp
                           or at_it and (pending[0].timestamp or LAST) == timestamp):
            record = pending.pop(0)
            if not self.turns:      # one before the first turn shown belongs to turns the chat does not show
                continue
            # what the live chat said before the compaction's line: its hooks' notes, the rounds kept, a merge
            lines = [*record.said_before(), (compaction_note(record), compaction_level(record))]
            if during:         # within the turn: between two of its steps, or after its input was sent
                self.turns[-1].shown.extend(Shown("notice", line, level) for line, level in lines)
                self.turns[-1].trail_closed = True
            else:
                self.turns[-1].after.extend(lines)

    def _fitted(self, message_id: str) -> None:
        """The turn's fitting summed up after this message: its row where the first one came, as the live chat's."""
        fittings = self.fittings.pop(message_id, [])
        if not fittings or not self.turns:
            return
        turn = self.turns[-1]
        if FITTED not in turn.shown:
            turn.shown.append(FITTED)
        turn.fittings.extend(fittings)

    def _answered(self, message_id: str) -> None:
        for record in self.answers.pop(message_id, ()):
            if not self.turns:
                continue
            calls, mark = self.turns[-1].calls, permission_mark(record)
            if mark and calls and calls[-1].status == "running":     # on the row of the call it answered, as live
                calls[-1] = calls[-1]._replace(permission=mark)
            else:
                self.turns[-1].shown.append(Shown("notice", permission_note(record), permission_level(record)))


def _result(turn: Turn, message: Message) -> None:
    """A tool's result on the newest call still running."""
    calls = turn.calls
    for index in range(len(calls) - 1, -1, -1):
        if calls[index].status == "running":
            calls[index] = calls[index]._replace(status=trail_status(message.content),
                                                 result=result_lines(calls[index].tool, message.content))
            break
