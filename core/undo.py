"""Undo: take back the file changes of the most recent turn, from its ghost snapshot (seed 003, 4.7).

A turn's ``ghost_snapshot`` entry holds the state before it, its ``ghost_snapshot_after`` entry the state right after
it. A file that differs from the after-state now was changed by hand since: it is left alone unless the user
confirms. Each undo records an ``undo`` entry; the next undo walks further back.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Mapping

from core.config import default_home
from core.messages import Message
from core.snapshot import copies
from core.snapshot import git as gitops
from core.snapshot.ghost import now_iso

Confirm = Callable[[list[str]], Awaitable[bool]]

_GITLINK = "160000"
_SYMLINK = "120000"
_EXECUTABLE = "100755"


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
    entry: dict | None = None          # the ``undo`` entry to append; None when nothing was undone
    message: Message | None = None     # the note as a history message (set with ``entry``)

    @property
    def changed_files(self) -> bool:
        return bool(self.restored or self.deleted or self.recreated)


@dataclass
class _TurnSnapshots:
    turn_id: str
    before: list[dict] = field(default_factory=list)
    after: dict | None = None


def turns_with_snapshots(entries: list[dict]) -> list[_TurnSnapshots]:
    """Turns that took a snapshot, oldest first."""
    turns: dict[str, _TurnSnapshots] = {}
    for entry in entries:
        if entry.get("type") != "system" or not entry.get("turnId"):
            continue
        subtype = entry.get("subtype")
        if subtype == "ghost_snapshot":
            turns.setdefault(entry["turnId"], _TurnSnapshots(entry["turnId"])).before.append(entry)
        elif subtype == "ghost_snapshot_after" and entry["turnId"] in turns:
            turns[entry["turnId"]].after = entry
    return list(turns.values())


def undone_turns(entries: list[dict]) -> set[str]:
    return {e["turnId"] for e in entries
            if e.get("type") == "system" and e.get("subtype") == "undo" and e.get("turnId")}


def undoable_turns(entries: list[dict]) -> list[str]:
    """Turn ids that may still be undone, oldest first (for the TUI). A turn whose after-state says it changed
    nothing is left out; one without an after-state (interrupted) is kept."""
    undone = undone_turns(entries)
    return [t.turn_id for t in turns_with_snapshots(entries)
            if t.turn_id not in undone and (t.after is None or t.after.get("changed", True))]


async def undo_last(project_root: Path, entries: list[dict], *, confirm_overwrite: Confirm | None = None) -> UndoResult:
    """Restore the files of the most recent turn that changed any and is not undone yet."""
    root = Path(os.path.realpath(project_root))
    undone = undone_turns(entries)
    for turn in reversed(turns_with_snapshots(entries)):
        if turn.turn_id in undone:
            continue
        if turn.after is not None and turn.after.get("changed") is False and not _not_undoable(turn):
            continue
        mode = turn.before[0].get("mode")
        if mode == "git":
            result = await _undo_git(root, turn, confirm_overwrite)
        elif mode == "copy":
            result = await _undo_copies(root, turn, confirm_overwrite)
        else:
            raise UndoError(f"turn {turn.turn_id}: unknown snapshot mode {mode!r}")
        if result is None:          # it turned out to change nothing: look further back
            continue
        return _finish(result)
    return UndoResult(turn_id=None, note="Nothing to undo: no earlier turn changed any file.")


def _not_undoable(turn: _TurnSnapshots) -> list[str]:
    return [item for entry in turn.before for item in entry.get("notUndoable", [])]


# --- git mode ---------------------------------------------------------------------------------------------------

async def _undo_git(root: Path, turn: _TurnSnapshots, confirm: Confirm | None) -> UndoResult | None:
    top = await gitops.toplevel(root)
    if top is None:
        raise UndoError(f"turn {turn.turn_id} was recorded in a git repository, but {root} is not one any more")
    before = turn.before[0]["commit"]
    if not await gitops.object_exists(top, before):
        raise UndoError(f"the snapshot of turn {turn.turn_id} ({before[:12]}) is no longer in the repository")
    scope = gitops.scope_of(top, root)
    now = await gitops.write_worktree_tree(top, scope)
    after = turn.after.get("commit") if turn.after else None
    if after and await gitops.object_exists(top, after):
        changes = await gitops.diff_trees(top, before, after, scope)
        touched_since = {c.path for c in await gitops.diff_trees(top, after, now, scope)}
    else:
        # No after-state (the turn was cut off): every difference might be the user's, so each one needs consent.
        changes = await gitops.diff_trees(top, before, now, scope)
        touched_since = {c.path for c in changes}
    if not changes:
        return None
    result = UndoResult(turn_id=turn.turn_id)
    shown = {c.path: _display(root, top / c.path) for c in changes}
    suspicious = [c for c in changes if c.path in touched_since]
    overwrite = bool(suspicious) and confirm is not None and await confirm([shown[c.path] for c in suspicious])
    for change in changes:
        name = shown[change.path]
        if _GITLINK in (change.old_mode, change.new_mode):
            result.not_undoable.append(f"{name} (a submodule)")
            continue
        if change.path in touched_since and not overwrite:
            result.skipped_user_modified.append(name)
            continue
        target = top / change.path
        if change.created:
            if os.path.lexists(target):
                _remove(target, top)
                result.deleted.append(name)
            continue
        existed = os.path.lexists(target)
        await _write_blob(top, change, target)
        (result.restored if existed else result.recreated).append(name)
    return result


async def _write_blob(top: Path, change: gitops.TreeChange, target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        raise UndoError(f"{target} is a directory now; move it away and undo again")
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(target):
        target.unlink()
    if change.old_mode == _SYMLINK:
        os.symlink(os.fsdecode(await gitops.raw_blob(top, change.old_blob)), target)
        return
    target.write_bytes(await gitops.blob_for_worktree(top, change.old_blob, change.path))
    if change.old_mode == _EXECUTABLE:
        target.chmod(target.stat().st_mode | ((target.stat().st_mode & 0o444) >> 2))


# --- copy mode --------------------------------------------------------------------------------------------------

async def _undo_copies(root: Path, turn: _TurnSnapshots, confirm: Confirm | None) -> UndoResult | None:
    files: dict[str, dict] = {}
    for entry in turn.before:
        for record in entry.get("files", []):
            files.setdefault(record["path"], {**record, "store": entry.get("store")})
    after = {f["path"]: f.get("sha256") for f in (turn.after or {}).get("files", [])}
    has_after = turn.after is not None
    changed, touched_since = [], set()
    for rel, record in files.items():
        now = copies.fingerprint(root / rel)
        before = record.get("sha256") if record.get("existed") else None
        expected = after.get(rel) if has_after else now
        if has_after and rel in after and after[rel] == before:
            continue                                    # the turn left this file as it was
        if not has_after and now == before:
            continue
        changed.append(rel)
        if not has_after or now != expected:
            touched_since.add(rel)
    not_undoable = _not_undoable(turn)
    if not changed and not not_undoable:
        return None
    result = UndoResult(turn_id=turn.turn_id, not_undoable=list(not_undoable))
    suspicious = [rel for rel in changed if rel in touched_since]
    overwrite = bool(suspicious) and confirm is not None and await confirm(suspicious)
    for rel in changed:
        record, target = files[rel], root / rel
        if rel in touched_since and not overwrite:
            result.skipped_user_modified.append(rel)
            continue
        if not record.get("existed"):
            if os.path.lexists(target):
                _remove(target, root)
                result.deleted.append(rel)
            continue
        copy = Path(record["store"]) / record["copy"]
        if not os.path.lexists(copy):
            raise UndoError(f"the saved copy of {rel} is gone ({copy})")
        existed = os.path.lexists(target)
        copies.restore_copy(copy, target)
        (result.restored if existed else result.recreated).append(rel)
    return result


# --- shared -----------------------------------------------------------------------------------------------------

def _remove(target: Path, stop_at: Path) -> None:
    """Delete a file the turn created, and the directories that only existed to hold it."""
    target.unlink()
    parent = target.parent
    while parent != stop_at and stop_at in parent.parents:
        try:
            parent.rmdir()          # only succeeds when empty
        except OSError:
            break
        parent = parent.parent


def _display(root: Path, path: Path) -> str:
    return os.path.relpath(path, root)


def _finish(result: UndoResult) -> UndoResult:
    result.note = undo_note(result)
    if result.changed_files or (result.not_undoable and not result.skipped_user_modified):
        result.entry = {"type": "system", "subtype": "undo", "turnId": result.turn_id,
                        "restored": result.restored, "deleted": result.deleted, "recreated": result.recreated,
                        "skippedUserModified": result.skipped_user_modified,
                        "notUndoable": result.not_undoable, "note": result.note, "timestamp": now_iso()}
        result.message = note_message(result)
    return result


def undo_note(result: UndoResult) -> str:
    """What the model is told, so it knows its changes are gone."""
    parts = []
    for label, names in (("restored", result.restored), ("deleted", result.deleted),
                         ("recreated", result.recreated)):
        if names:
            parts.append(f"{label} {', '.join(names)}")
    if parts:
        text = (f"[undo] The user undid the file changes of turn {result.turn_id}: {'; '.join(parts)}. "
                f"These files are back to how they were before that turn.")
    else:
        text = f"[undo] The user tried to undo turn {result.turn_id}, but no file was changed back."
    if result.skipped_user_modified:
        text += (f" Left as they are because they were edited by hand after that turn: "
                 f"{', '.join(result.skipped_user_modified)}.")
    if result.not_undoable:
        text += f" Not undoable: {', '.join(result.not_undoable)}."
    return text


def note_message(result: UndoResult) -> Message:
    """The history message that tells the model its changes are gone (a user-role note: the user did it)."""
    return Message(role="user", content=result.note, meta={"undo": result.turn_id})


def record_undo(writer, result: UndoResult) -> None:
    """Append the undo entry and the note to a session (a SessionWriter)."""
    if result.entry is not None and result.message is not None:
        writer.append_entry(result.entry)
        writer.append_message(result.message)


async def undo_in_open_session(project_root: Path, writer, *,
                               confirm_overwrite: Confirm | None = None) -> UndoResult:
    """``/undo`` in the app that holds the session: read its entries, undo, record. The caller appends
    ``result.message`` (when set) to the engine's in-memory history, so the next prompt carries the note."""
    from core.session import load_session

    await writer.flush()
    result = await undo_last(project_root, load_session(writer.path).entries, confirm_overwrite=confirm_overwrite)
    record_undo(writer, result)
    return result


# --- `contextual undo [-r ID]` ----------------------------------------------------------------------------------

def undo_main(argv: list[str], env: Mapping[str, str] | None = None) -> int:
    from core.session import SessionError, SessionLocked, SessionWriter, find_session, latest_session, load_session

    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="contextual undo",
                                     description="Undo the file changes of the most recent turn that made any.")
    parser.add_argument("-r", "--resume", metavar="ID", help="the session (default: this project's latest)")
    args = parser.parse_args(argv)
    root = Path.cwd().resolve()
    home = default_home(env)
    path = find_session(home, root, args.resume) if args.resume else latest_session(home, root)
    if path is None:
        which = f"session {args.resume}" if args.resume else "a session"
        print(f"contextual undo: no {which} found for {root}", file=sys.stderr)
        return 1
    try:
        writer = SessionWriter.reopen(path)      # the lock first: nobody appends while we undo
    except SessionLocked as exc:
        holder = exc.holder or {}
        who = f"process {holder['pid']}" if holder.get("pid") else "another contextual"
        print(f"contextual undo: session {path.stem} is open in {who}; use /undo in that app", file=sys.stderr)
        return 1
    except SessionError as exc:
        print(f"contextual undo: {exc}", file=sys.stderr)
        return 1
    try:
        loaded = load_session(path)
        project = Path(loaded.cwd) if loaded.cwd and Path(loaded.cwd).is_dir() else root
        try:
            result = asyncio.run(undo_last(project, loaded.entries, confirm_overwrite=_ask_on_terminal))
        except (UndoError, gitops.GitError, OSError) as exc:
            print(f"contextual undo: {exc}", file=sys.stderr)
            return 1
        record_undo(writer, result)
    finally:
        writer.close_sync()
    print(render_result(result))
    return 0 if result.changed_files else 1


def render_result(result: UndoResult) -> str:
    """What the user reads: which files changed back, and which were left alone and why."""
    if result.turn_id is None:
        return result.note
    lines = [f"Undid the file changes of turn {result.turn_id}:" if result.changed_files
             else f"Nothing was changed back for turn {result.turn_id}:"]
    for label, names in (("restored", result.restored), ("deleted", result.deleted),
                         ("recreated", result.recreated)):
        lines += [f"  {label:<10} {name}" for name in names]
    lines += [f"  kept       {name} (edited by hand after the turn)" for name in result.skipped_user_modified]
    lines += [f"  not undone {item}" for item in result.not_undoable]
    return "\n".join(lines)


async def _ask_on_terminal(paths: list[str]) -> bool:
    if not sys.stdin.isatty():
        return False
    print("These files were edited by hand after the turn:\n" + "\n".join(f"  {p}" for p in paths))
    answer = await asyncio.to_thread(input, "Overwrite them with their state from before the turn? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
