"""Undo: take back the file changes of the most recent turn, from its ghost snapshot (seed 003, 4.7)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, Sequence
from pathlib import Path

from contextual.core.clock import local_minutes, now_iso
from contextual.core.messages import Message
from contextual.core.textsafe import one_line
from contextual.core.snapshot.plan import (Confirm, UndoError, UndoResult, not_undoable, turns_with_snapshots,
                                undoable_turns, undone_turns)
from contextual.core.snapshot.restore import restore_copies, restore_git

if TYPE_CHECKING:
    from contextual.core.ports import SessionSink

__all__ = ["UndoError", "UndoResult", "undo_last", "undoable_turns", "undo_in_open_session", "record_undo",
           "render_result", "undo_note", "turn_label", "turn_for_model", "note_for_user"]


async def undo_last(project_root: Path, entries: list[dict[str, Any]], *, confirm_overwrite: Confirm | None = None,
                    record: Sequence[Message] = ()) -> UndoResult:
    """Restore the files of the most recent turn that changed any and is not undone yet; ``record`` (the session's
    messages) names that turn in the note to the model."""
    root = Path(os.path.realpath(project_root))
    undone = undone_turns(entries)
    for turn in reversed(turns_with_snapshots(entries)):
        if turn.turn_id in undone:
            continue
        if turn.after is not None and turn.after.get("changed") is False and not not_undoable(turn):
            continue
        mode = turn.before[0].get("mode")
        if mode == "git":
            result = await restore_git(root, turn, confirm_overwrite)
        elif mode == "copy":
            result = await restore_copies(root, turn, confirm_overwrite)
        else:
            raise UndoError(f"turn {turn.turn_id}: unknown snapshot mode {mode!r}")
        if result is None:          # it turned out to change nothing: look further back
            continue
        return _finish(result, record)
    return UndoResult(turn_id=None, note="Nothing to undo: no earlier turn changed any file.")


def _finish(result: UndoResult, record: Sequence[Message]) -> UndoResult:
    result.note = undo_note(result, record)
    if result.changed_files or (result.not_undoable and not result.skipped_user_modified):
        from contextual.core.session.schema import system_body   # not at launch: the app imports this
        result.entry = system_body("undo", turnId=result.turn_id, restored=result.restored, deleted=result.deleted,
                                   recreated=result.recreated, skippedUserModified=result.skipped_user_modified,
                                   notUndoable=result.not_undoable, note=result.note, timestamp=now_iso())
        result.message = note_message(result)
    return result


def undo_note(result: UndoResult, record: Sequence[Message] = ()) -> str:
    """What the model is told, so it knows its changes are gone: the turn named as the user knows it
    (`turn_for_model`), not by its id."""
    turn = turn_for_model(result.turn_id or "", record)
    parts = []
    for label, names in (("restored", result.restored), ("deleted", result.deleted),
                         ("recreated", result.recreated)):
        if names:
            parts.append(f"{label} {', '.join(names)}")
    if parts:
        text = (f"[undo] The user undid the file changes of {turn}: {'; '.join(parts)}. "
                f"These files are back to how they were before that turn.")
    else:
        text = f"[undo] The user tried to undo {turn}, but no file was changed back."
    if result.skipped_user_modified:
        text += (f" Left as they are because they were edited by hand after that turn: "
                 f"{', '.join(result.skipped_user_modified)}.")
    if result.not_undoable:
        text += f" Not undoable: {', '.join(result.not_undoable)}."
    return text


def note_message(result: UndoResult) -> Message:
    """The history message that tells the model its changes are gone (a user-role note: the user did it)."""
    return Message(role="user", content=result.note, meta={"undo": result.turn_id or ""})


def record_undo(writer: SessionSink, result: UndoResult) -> None:
    """Append the undo entry and the note to a session (a SessionWriter)."""
    if result.entry is not None and result.message is not None:
        writer.append_entry(result.entry)
        writer.append_message(result.message)


async def undo_in_open_session(project_root: Path, writer: SessionSink, *,
                               confirm_overwrite: Confirm | None = None) -> UndoResult:
    """``/undo`` in the app that holds the session: read its entries, undo, record. The caller appends
    ``result.message`` (when set) to the engine's in-memory history, so the next prompt carries the note."""
    from contextual.core.session.loader import load_session

    await writer.flush()
    loaded = load_session(writer.path)
    result = await undo_last(project_root, loaded.entries, confirm_overwrite=confirm_overwrite,
                             record=loaded.full_record)
    record_undo(writer, result)
    return result


# the turn as named to the model (`turn 2 (“fix …”)`), or by its id in a note written before that
_NOTE = re.compile(r"^\[undo\] The user undid the file changes of (?P<turn>.+): "
                   r"(?P<what>(?:restored|deleted|recreated) .*?)\. These files")


def note_for_user(note: Message, record: Sequence[Message]) -> str:
    """The note `undo_note` left for the model, as the user reads it in a restored chat or an export (one line),
    its turn named as the user knows it: the note follows the latest turn, not always the one it undid."""
    found = _NOTE.match(note.content)
    if found:
        turn = str(note.meta.get("undo") or found.group("turn").removeprefix("turn "))
        return f"Undid the file changes of the turn {turn_label(turn, record)}: {found.group('what')}"
    return note.content.splitlines()[0] if note.content else ""


def turn_for_model(turn: str, record: Sequence[Message]) -> str:
    """A turn as the model can tell it: its number in the session (as the scratchpad counts) and its first words;
    a turn /rewind took out of the conversation (or none recorded) is only an earlier one."""
    started = [m for m in record if m.starts_turn]
    number = next((n for n, m in enumerate(started, 1) if m.meta.get("turn") == turn), None)
    if number is None:
        return "an earlier turn"
    return f"turn {number} (“{one_line(str(started[number - 1].meta.get('raw') or started[number - 1].content), 40)}”)"


def turn_label(turn: str, record: Sequence[Message]) -> str:
    """A turn as the user knows it: “what they typed” (HH:MM), or its id when the record lacks its message."""
    message = next((m for m in record if m.role == "user" and m.meta.get("turn") == turn), None)
    if message is None:          # /rewind took its message out of the conversation; its files are still changed
        return f"{turn} (a turn /rewind took out of the conversation)"
    text = one_line(str(message.meta.get("raw") or message.content), 60)
    when = str(message.meta.get("timestamp") or "")
    clock = local_minutes(when)[11:16] if len(when) >= 16 else ""
    return f"“{text}”" + (f" ({clock})" if clock else "")


def render_result(result: UndoResult, record: Sequence[Message] = ()) -> str:
    """What the user reads: which files changed back, and which were left alone and why; with the session's
    ``record``, the turn named as the user knows it (turn_label), else by its id (the `undo` command)."""
    if result.turn_id is None:
        return result.note
    turn = f"the turn {turn_label(result.turn_id, record)}" if record else f"turn {result.turn_id}"
    lines = [f"Undid the file changes of {turn}:" if result.changed_files
             else f"Nothing was changed back for {turn}:"]
    for label, names in (("restored", result.restored), ("deleted", result.deleted),
                         ("recreated", result.recreated)):
        lines += [f"  {label:<10} {name}" for name in names]
    lines += [f"  kept       {name} (edited by hand after the turn)" for name in result.skipped_user_modified]
    lines += [f"  not undone {item}" for item in result.not_undoable]
    return "\n".join(lines)
