"""The end of a session's record read without building the rest (a long session's first frame): its messages from
the ``turns``-th last user turn on, with the records among them as the full load reads them (core/session/loader.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from contextual.core.messages import Message
from contextual.core.session import schema
from contextual.core.session.entries import message_from_entry
from contextual.core.session.entry_lines import parse_line
from contextual.core.session.loader import last_turn


@dataclass
class Tail:
    """The end of a session's record, read without building the rest (a long session's first frame): its messages
    from the ``turns``-th last user turn on, and how many compactions the whole file records."""
    messages: list[Message]
    compactions: int
    records: list[schema.CompactionRecord] = field(default_factory=list)   # those among the messages read
    permissions: list[schema.PermissionRecord] = field(default_factory=list)   # those among them, as on load
    turn_ends: dict[str, schema.TurnEnd] = field(default_factory=dict)         # theirs, as on load
    fittings: list[schema.FittedRecord] = field(default_factory=list)          # those among them, as on load


def _entries_backwards(data: bytes, end: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(where its line starts, entry) for the whole, valid lines before ``end``, last first."""
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        line, end = data[start:end], start
        entries: list[tuple[int, dict[str, Any]]] = []
        parse_line(0, line.decode("utf-8", errors="replace"), -1, False, entries, [])
        if entries:
            yield start, entries[0][1]


@dataclass
class _TailRead:
    """What ``read_tail`` gathers, line by line from the end: each list last first."""
    found: list[Message] = field(default_factory=list)
    records: list[schema.CompactionRecord] = field(default_factory=list)
    permissions: list[schema.PermissionRecord] = field(default_factory=list)
    fittings: list[schema.FittedRecord] = field(default_factory=list)
    ends: dict[str, schema.TurnEnd] = field(default_factory=dict)
    # permission and context_adjusted entries, until the message before them is
    answered: list[dict[str, Any]] = field(default_factory=list)
    # older interrupted entries (no turnId), until their turn's message is
    untied: list[dict[str, Any]] = field(default_factory=list)
    users: int = 0                      # user turns begun among the messages found
    dropping: Any = None                # a rewind's target: earlier messages up to it are gone

    def system(self, entry: dict[str, Any]) -> bool:
        """A system entry that is no message, taken in (or dropped with a rewind); False for any other entry."""
        if entry["type"] != "system":
            return False
        subtype = entry.get("subtype")
        if subtype == "rewind" and self.dropping is None:
            self.dropping = entry.get("toUuid")
        elif subtype == "compact_boundary":
            if self.dropping is None:
                self.records.append(schema.CompactionRecord.from_entry(entry))
        elif subtype in ("permission", "context_adjusted"):
            if self.dropping is None:
                self.answered.append(entry)
        elif subtype in schema.TURN_END_SUBTYPES:
            end = schema.TurnEnd.from_entry(entry)
            if self.dropping is None and end.turn_id is not None:
                self.ends[end.turn_id] = end
            elif self.dropping is None:
                self.untied.append(entry)
        else:
            return False
        return True

    def message(self, entry: dict[str, Any]) -> None:
        """A message's entry: kept unless a rewind dropped it, with the entries read after it tied to it."""
        try:
            msg = message_from_entry(entry)
        except (KeyError, TypeError, ValueError):
            return
        if msg is None:
            return
        if self.dropping is not None:
            if msg.id == self.dropping:
                self.dropping = None
            return
        self.found.append(msg)
        if msg.role != "summary":
            for e in self.answered:
                if e["subtype"] == "permission":
                    self.permissions.append(schema.PermissionRecord.from_entry(e, msg.id))
                else:
                    self.fittings.append(schema.FittedRecord.from_entry(e, msg.id))
            self.answered.clear()
        if msg.starts_turn:
            for old in self.untied:
                tied = schema.TurnEnd.from_entry(old, last_turn([msg]))
                if tied.turn_id is not None:
                    self.ends[tied.turn_id] = tied
            self.untied.clear()
        self.users += msg.starts_turn

    def tail(self, compactions: int) -> Tail:
        """In file order."""
        return Tail(self.found[::-1], compactions, self.records[::-1], self.permissions[::-1], self.ends,
                    self.fittings[::-1])


def read_tail(path: Path, turns: int) -> Tail:
    """Lines are parsed from the end until ``turns`` user turns are whole; a rewind drops what it dropped on load.
    Damaged lines are skipped silently here: the full load that follows says which."""
    data = Path(path).read_bytes()
    compactions = data.count(b'"subtype":"compact_boundary"')       # the writer's compact separators
    read = _TailRead()
    at = len(data)                       # where the last line read starts
    for at, entry in _entries_backwards(data, at) if turns > 0 else iter(()):
        if not read.system(entry):
            read.message(entry)
            if read.users >= turns:
                break
    sent = read.found[-1].meta.get("sent") if read.found and read.dropping is None else None
    if isinstance(sent, str):        # the first turn read compacted first: that compaction is shown with it
        read.records.extend(_opening(data, at, sent))
    return read.tail(compactions)


def _opening(data: bytes, end: int, sent: str) -> Iterator[schema.CompactionRecord]:
    """The compactions a turn began with (after its input was sent, before its message, whose line starts at
    ``end``, was recorded), last first."""
    for _, entry in _entries_backwards(data, end):
        if entry["type"] != "system":          # a message or a call: the turn before
            return
        if entry.get("subtype") == "compact_boundary":
            record = schema.CompactionRecord.from_entry(entry)
            if (record.timestamp or "") < sent:
                return
            yield record
