"""What a turn changed, read from its snapshots before anything is undone: the files that differ between its
before- and after-state. /undo's question says from it what its commands changed (it had said "ran 1 command,
whose changes go back too" for a turn whose only command was `ls`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contextual.core.snapshot import git as gitops
from contextual.core.snapshot.plan import turns_with_snapshots


@dataclass(frozen=True)
class TurnDiff:
    mode: str       # "git": the whole tree was recorded; "copy": only the files the edits named; "": no snapshot read
    paths: tuple[str, ...] | None   # relative to the project; None: not known (no after-state, a snapshot gone)


async def turn_diff(project_root: Path, entries: list[dict[str, Any]], turn_id: str) -> TurnDiff:
    """The files turn ``turn_id`` changed, by its snapshots in the session's ``entries``."""
    turn = next((t for t in turns_with_snapshots(entries) if t.turn_id == turn_id), None)
    if turn is None or not turn.before:
        return TurnDiff("", None)
    root = Path(os.path.realpath(project_root))
    if turn.before[0].get("mode") != "git":
        before = {f["path"]: f.get("sha256") if f.get("existed") else None
                  for entry in turn.before for f in entry.get("files", [])}
        after = {f["path"]: f.get("sha256") for f in (turn.after or {}).get("files", [])}
        known = turn.after is not None
        return TurnDiff("copy", tuple(p for p in before if after.get(p) != before[p]) if known else None)
    after_commit = (turn.after or {}).get("commit")
    try:
        top = await gitops.toplevel(root)
        if top is None or not after_commit:
            return TurnDiff("git", None)
        changes = await gitops.diff_trees(top, turn.before[0]["commit"], after_commit, gitops.scope_of(top, root))
    except (gitops.GitError, OSError):
        return TurnDiff("git", None)
    return TurnDiff("git", tuple(os.path.relpath(top / c.path, root) for c in changes))
