"""Housekeeping for ghost snapshots (issue 16.5): old ones go, so refs and copies do not pile up for ever.

A turn's snapshot is the ref pair ``refs/contextual/snapshots/<session>/<n>`` and ``<n>-after`` (git mode), or the
folder ``$CONTEXTUAL_HOME/snapshots/<session>/<turn>`` (copy mode). The newest ``keep`` turns younger than
``max_age_days`` stay; the rest are deleted. Undo of a pruned turn then says its snapshot is gone, in one line.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from contextual.core.snapshot import git as gitops

REFS_ROOT = "refs/contextual/"


def _doomed(ages: dict[str, float], keep: int, max_age_days: float, now: float, spare: str | None = None) -> list[str]:
    """Which turns to delete, given each turn's newest timestamp (unix seconds). ``spare``, the turn just taken,
    counts as the newest whatever its stamp says: git stamps are whole seconds, so it can tie the turn before."""
    newest_first = sorted(ages, key=lambda turn: (turn == spare, ages[turn]), reverse=True)
    limit = now - max_age_days * 86400
    return [turn for index, turn in enumerate(newest_first)
            if turn != spare and (index >= keep or ages[turn] < limit)]


async def prune_refs(top: Path, *, keep: int, max_age_days: float, now: float | None = None,
                     spare: str | None = None) -> list[str]:
    """Delete the refs of snapshot turns beyond the bounds, never ``spare`` (a turn's ref); returns the refs
    deleted."""
    now = time.time() if now is None else now
    turns: dict[str, list[str]] = {}
    ages: dict[str, float] = {}
    for ref, stamp in await gitops.ref_dates(top, REFS_ROOT):
        turn = ref.removesuffix("-after")
        turns.setdefault(turn, []).append(ref)
        ages[turn] = max(ages.get(turn, 0.0), stamp)
    doomed = [ref for turn in _doomed(ages, keep, max_age_days, now, spare) for ref in turns[turn]]
    await gitops.delete_refs(top, doomed)
    return doomed


def prune_copies(home: Path, *, keep: int, max_age_days: float, now: float | None = None,
                 spare: Path | None = None) -> list[Path]:
    """Delete copy-mode snapshot folders beyond the bounds, never ``spare``; returns the folders deleted."""
    now = time.time() if now is None else now
    root = Path(home) / "snapshots"
    ages: dict[str, float] = {}
    try:
        for session in root.iterdir():
            for turn in session.iterdir():
                ages[str(turn)] = turn.stat().st_mtime
    except OSError:
        return []
    doomed = [Path(turn) for turn in _doomed(ages, keep, max_age_days, now, str(spare) if spare else None)]
    for folder in doomed:
        shutil.rmtree(folder, ignore_errors=True)
    return doomed
