"""Which turn an undo takes back, read from the session's snapshot entries (seed 003, 4.7).

A turn's ``ghost_snapshot`` entry holds the state before it, its ``ghost_snapshot_after`` entry the state right after
it; each undo records an ``undo`` entry, so the next undo walks further back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from contextual.core.messages import Message

Confirm = Callable[[list[str]], Awaitable[bool]]


class UndoError(Exception):
    """The snapshot cannot be used (its commit or copies are gone); the message is one line."""


@dataclass
class UndoResult:
    turn_id: str | None
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)
    skipped_user_modified: list[str] = field(default_factory=list)
    not_undoable: list[str] = field(default_factory=list)
    note: str = ""
    entry: dict[str, Any] | None = None          # the ``undo`` entry to append; None when nothing was undone
    message: Message | None = None     # the note as a history message (set with ``entry``)

    @property
    def changed_files(self) -> bool:
        return bool(self.restored or self.deleted or self.recreated)


@dataclass
class TurnSnapshots:
    turn_id: str
    before: list[dict[str, Any]] = field(default_factory=list)
    after: dict[str, Any] | None = None


def turns_with_snapshots(entries: list[dict[str, Any]]) -> list[TurnSnapshots]:
    """Turns that took a snapshot, oldest first."""
    turns: dict[str, TurnSnapshots] = {}
    for entry in entries:
        if entry.get("type") != "system" or not entry.get("turnId"):
            continue
        subtype = entry.get("subtype")
        if subtype == "ghost_snapshot":
            turns.setdefault(entry["turnId"], TurnSnapshots(entry["turnId"])).before.append(entry)
        elif subtype == "ghost_snapshot_after" and entry["turnId"] in turns:
            turns[entry["turnId"]].after = entry
    return list(turns.values())


def undone_turns(entries: list[dict[str, Any]]) -> set[str]:
    return {e["turnId"] for e in entries
            if e.get("type") == "system" and e.get("subtype") == "undo" and e.get("turnId")}


def undoable_turns(entries: list[dict[str, Any]]) -> list[str]:
    """Turn ids that may still be undone, oldest first (for the TUI). A turn whose after-state says it changed
    nothing is left out; one without an after-state (interrupted) is kept."""
    undone = undone_turns(entries)
    return [t.turn_id for t in turns_with_snapshots(entries)
            if t.turn_id not in undone and (t.after is None or t.after.get("changed", True))]


def not_undoable(turn: TurnSnapshots) -> list[str]:
    return [item for entry in turn.before for item in entry.get("notUndoable", [])]
