"""Putting a turn's files back: from git objects (git mode) or from saved copies (copy mode).

A file that differs from the turn's after-state now was changed by hand since: it is left alone unless the user
confirms. Both return None when the turn turns out to have changed nothing.
"""

from __future__ import annotations

from typing import Any

import os
from pathlib import Path

from contextual.core.snapshot import copies
from contextual.core.snapshot import git as gitops
from contextual.core.snapshot.plan import Confirm, TurnSnapshots, UndoError, UndoResult, not_undoable

_GITLINK = "160000"
_SYMLINK = "120000"
_EXECUTABLE = "100755"


async def restore_git(root: Path, turn: TurnSnapshots, confirm: Confirm | None) -> UndoResult | None:
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

async def restore_copies(root: Path, turn: TurnSnapshots, confirm: Confirm | None) -> UndoResult | None:
    files: dict[str, dict[str, Any]] = {}
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
    skipped = not_undoable(turn)
    if not changed and not skipped:
        return None
    result = UndoResult(turn_id=turn.turn_id, not_undoable=list(skipped))
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
