"""The one path by which messages enter history during a turn: appended, written to the session at once, and
held until the front end hears of them (MessageRecorded); also the session's other lines, the turn's snapshots
and the notices owed to the user."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any, Collection

from contextual.core.clock import now_iso
from contextual.core.context.history import HistoryManager
from contextual.core.events import Notice, TurnAdjustments, UsageEvent
from contextual.core.messages import Message
from contextual.core.ports import SessionSink, SnapshotHook
from contextual.core.session.schema import CompactionRecord, FittedRecord, PermissionRecord, TurnEnd

if TYPE_CHECKING:
    from contextual.core.tools.base import Todo


class Recorder:
    def __init__(self, history: HistoryManager, session: SessionSink | None, snapshots: SnapshotHook | None,
                 warnings: list[str] | None) -> None:
        self._history = history
        self.session = session
        self.snapshots = snapshots
        self.warnings: list[str] = list(warnings or ())   # e.g. corrupt session lines skipped on resume
        self.pending: list[str] = []             # warnings raised inside a tool call (slow snapshot), shown after it
        self._recorded: list[Message] = []       # recorded since the last MessageRecorded events went out
        # Why the session's turns that ended without an answer did, by turn id (restored, then this run's): a chat
        # rebuilt from the record (/undo, /rewind) says it where the live chat said it.
        self.turn_ends: dict[str, TurnEnd] = {}
        # Each turn's fitting to the window summed up, after the message it followed (restored, then this run's):
        # a chat rebuilt from the record shows its "context adjusted" row where the live chat did.
        self.fittings: list[FittedRecord] = []
        self._last_said: str | None = None       # the id of the message recorded last (a fitting follows it)

    def attach(self, session: SessionSink | None, snapshots: SnapshotHook | None) -> None:
        self.session, self.snapshots = session, snapshots

    @property
    def session_id(self) -> str | None:
        return getattr(self.session, "session_id", None)

    def append(self, message: Message) -> Message:
        """Record it (stamped with the time when it has none: a summary's archived span comes from these);
        returns the message as recorded."""
        if "timestamp" not in message.meta:
            message = message.with_meta(timestamp=now_iso())
        self._history.append(message)
        self._recorded.append(message)
        self._last_said = message.id
        if self.session is not None:
            self.session.append_message(message)
        return message

    def take_in(self, message: Message) -> None:
        """A message made outside a turn and already written to the session by its maker."""
        self._history.append(message)
        self._recorded.append(message)
        self._last_said = message.id

    def take_recorded(self) -> list[Message]:
        out, self._recorded = self._recorded, []
        return out

    def warn(self, message: str, first: bool = False) -> None:
        self.warnings.insert(0, message) if first else self.warnings.append(message)

    def warn_after_call(self, message: str) -> None:
        """A warning raised inside a tool call (a slow snapshot, a rule that could not be saved): said after it."""
        self.pending.append(message)

    def drop_warnings(self, said: Collection[str]) -> None:
        """Warnings the front end has said in its own way (the app's answer to the trust question)."""
        self.warnings[:] = [w for w in self.warnings if w not in said]

    def restore(self, turn_ends: dict[str, TurnEnd], warnings: list[str], fittings: list[FittedRecord]) -> None:
        """A resumed session's turn ends, fittings and the loader's warnings (after any this run raised)."""
        self.turn_ends = dict(turn_ends)
        self.fittings = list(fittings)
        self.warnings += warnings

    def notices(self) -> list[Notice]:
        out = [Notice(line, "warning") for line in self.pending]
        self.pending.clear()
        return out

    def entry(self, entry: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.append_entry(entry)

    def turn_ended(self, record: TurnEnd) -> None:
        if record.turn_id is not None:
            self.turn_ends[record.turn_id] = record
        if self.session is not None:
            self.session.append_turn_end(record)

    def fitted(self, fitting: TurnAdjustments) -> None:
        """The turn's fitting summed up (once before its answer, or at its close however it ended)."""
        record = FittedRecord(fitting, self._last_said)
        self.fittings.append(record)
        self.entry(record.to_entry())

    def usage(self, event: UsageEvent) -> None:
        if self.session is not None:
            self.session.append_usage(event)

    def tool_use(self, call_id: str, name: str, args: Any, parent: Message) -> None:
        if self.session is not None:
            self.session.append_tool_use(call_id, name, args, parent)

    def permission(self, record: PermissionRecord) -> None:
        if self.session is not None:
            self.session.append_permission(record)

    def compaction(self, record: CompactionRecord, summary: Message | None) -> None:
        if self.session is not None:
            self.session.append_compaction(record, summary)

    def todos(self, todos: list[Todo]) -> None:
        if self.session is not None:
            self.session.append_todos(todos)

    async def finish_snapshot(self, turn_id: str) -> None:
        if self.snapshots is None:
            return
        try:
            entry = await self.snapshots.finish_turn(turn_id)
        except Exception:   # a snapshot problem must never lose the turn
            return
        if entry:
            self.entry(entry)

    def finish_snapshot_now(self, turn_id: str, within: float) -> None:
        """finish_snapshot from any thread, beside a loop that is stuck: on a loop of its own, in a thread of its
        own (git runs there), given `within` seconds; the entry written here, or none when it took longer."""
        snapshots = self.snapshots
        if snapshots is None:
            return
        found: list[dict[str, Any] | None] = []

        async def after() -> None:
            try:
                found.append(await snapshots.finish_turn(turn_id))
            except Exception:   # a snapshot problem must never lose the turn
                pass
        worker = threading.Thread(target=asyncio.run, args=(after(),), name="contextual-snapshot", daemon=True)
        worker.start()
        worker.join(within)
        if found and found[0]:
            self.entry(found[0])

    async def flush(self, fsync: bool) -> None:
        if self.session is not None:
            await self.session.flush(fsync=fsync)

    async def flush_or_say(self) -> str | None:
        """flush(fsync=True) at a turn's end; a write the disk refused (full) returns why instead of raising: the
        turn ended all the same, and the writer keeps its lines for its next write."""
        if self.session is None:
            return None
        from contextual.core.session.writer import SessionWriteError     # loaded with the session already
        try:
            await self.session.flush(fsync=True)
        except SessionWriteError as exc:
            return str(exc)
        return None
