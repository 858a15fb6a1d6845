"""Ghost snapshots (seed 003, 4.7): the working tree recorded before a turn changes it, beside the history.

The records are session entries (``type: system``, ``subtype: ghost_snapshot`` / ``ghost_snapshot_after``): never
part of a prompt, zero tokens, kept across compaction. ``core/snapshot/undo.py`` reads them back to take a turn back.

In a git work tree one snapshot per turn is a commit object of the whole tree made through a temporary index and
kept by a private ref; elsewhere each file is copied the first time a tool is about to change it in the turn.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable

from contextual.core.clock import now_iso
from contextual.core.snapshot import copies
from contextual.core.snapshot import git as gitops
from contextual.core.snapshot.prune import prune_copies, prune_refs
from contextual.core.tools.base import BeforeChange

DEFAULT_WARN_AFTER = 5.0        # the UI says so early; seed 003 only warns past 240 s
SEED_WARN_AFTER = 240.0
REF_PREFIX = "refs/contextual/snapshots"
DEFAULT_KEEP = 50               # turns whose snapshots are kept (config snapshot_keep)
DEFAULT_MAX_AGE_DAYS = 30.0     # and no older than this (config snapshot_max_age_days)



def safe_component(name: str) -> str:
    """A ref/dir name component: only characters git and every filesystem accept."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")
    return cleaned or "unnamed"


def _snapshot_entry(subtype: str, **fields: Any) -> dict[str, Any]:
    from contextual.core.session.schema import system_body   # not at launch: the app imports this module
    return system_body(subtype, **fields)


@dataclass
class SnapshotRecord:
    entry: dict[str, Any] | None               # the session entry to append (None: nothing to record)
    warning: str | None = None       # set when it was slow, naming the largest paths, or git could not be used


@dataclass
class _Turn:
    number: int | None = None                    # git: the n of refs/.../<session>/<n>
    commit: str | None = None                    # git: the before-commit
    tree: str | None = None
    copied: dict[str, str | None] = field(default_factory=dict)   # copy: rel path -> fingerprint before


class GhostSnapshots:
    def __init__(self, project_root: Path, session_id: str, home: Path, *,
                 warn_after: float = DEFAULT_WARN_AFTER, keep: int = DEFAULT_KEEP,
                 max_age_days: float = DEFAULT_MAX_AGE_DAYS) -> None:
        self.root = Path(os.path.realpath(project_root))
        self.session_id = session_id
        self.home = Path(home)
        self.warn_after = warn_after
        self._top: Path | None = None
        self._mode: str | None = None
        self._turns: dict[str, _Turn] = {}
        self.keep, self.max_age_days = keep, max_age_days
        self._pruned = False
        self._unusable: str | None = None       # why git could not be used: said with the next snapshot, once

    async def mode(self) -> str:
        """"git" inside a git work tree git can read, else "copy" (decided once)."""
        if self._mode is None:
            try:
                self._top = await gitops.toplevel(self.root)
            except gitops.GitUnusable as exc:
                self._to_copies(exc)
            self._mode = "git" if self._top is not None else "copy"
        return self._mode

    def _to_copies(self, exc: gitops.GitUnusable) -> None:
        """The rest of this session's snapshots are copies: a repository git waits on would cost each edit the
        git timeout (the real reason said once, not "large files")."""
        self._top, self._mode = None, "copy"
        self._unusable = (f"ghost snapshots: {exc}; this session's edits are saved as copies of the files "
                          "they change instead (a Bash command's changes cannot be undone)")

    def copy_dir(self, turn_id: str) -> Path:
        return self.home / "snapshots" / safe_component(self.session_id) / safe_component(turn_id)

    async def take(self, turn_id: str, paths: Iterable[Path | str] | None, *,
                   label: str | None = None) -> SnapshotRecord | None:
        """Record what ``paths`` (None or []: unknown, e.g. a Bash command) hold before they change.

        Git: the whole tree once per turn. Copy: each path the first time it is touched in the turn; unknown paths
        are recorded as not undoable. Returns None when this turn already covers them.
        """
        turn = self._turns.setdefault(turn_id, _Turn())
        started = time.monotonic()
        entry: dict[str, Any] | None = None
        if await self.mode() == "git":
            if turn.commit is not None:
                return None
            try:
                entry, sizes = await self._take_git(turn_id, turn)
            except gitops.GitUnusable as exc:     # made unreadable since (a command put a FIFO there)
                self._to_copies(exc)
        if entry is None:
            entry, sizes = self._take_copies(turn_id, turn, paths, label)
        elapsed = time.monotonic() - started
        said, self._unusable = self._unusable, None
        if entry is None:
            return None if said is None else SnapshotRecord(None, said)
        await self._prune_once(turn_id, turn)
        return SnapshotRecord(entry, said or await self._slow_warning(elapsed, sizes))

    async def _take_git(self, turn_id: str, turn: _Turn) -> tuple[dict[str, Any], Callable[[], Awaitable[list[tuple[str, int]]]]]:
        top = self._top
        assert top is not None
        turn.number = await self._next_number(top)
        turn.tree = await gitops.write_worktree_tree(top, gitops.scope_of(top, self.root))
        turn.commit = await gitops.commit_tree(top, turn.tree, await gitops.head_commit(top),
                                               f"contextual ghost snapshot before turn {turn_id}")
        ref = self._ref(turn.number)
        await gitops.update_ref(top, ref, turn.commit)
        entry = _snapshot_entry("ghost_snapshot", turnId=turn_id, mode="git", commit=turn.commit, ref=ref,
                            timestamp=now_iso())
        tree = turn.tree

        async def sizes() -> list[tuple[str, int]]:
            return await gitops.largest_paths(top, tree)
        return entry, sizes

    def _take_copies(self, turn_id: str, turn: _Turn, paths: Iterable[Path | str] | None,
                     label: str | None) -> tuple[dict[str, Any] | None, Callable[[], Awaitable[list[tuple[str, int]]]]]:
        entry = _snapshot_entry("ghost_snapshot", turnId=turn_id, mode="copy", store=str(self.copy_dir(turn_id)), files=[],
                            timestamp=now_iso())
        copied_sizes: list[tuple[str, int]] = []
        listed = None if paths is None else list(paths)
        if not listed:                       # None or []: a command that may touch any file (Bash)
            entry["notUndoable"] = [label or "a Bash command (its file changes outside git are not recorded)"]
        else:
            for raw in listed:
                record = self._copy_one(turn_id, turn, Path(raw), entry, copied_sizes)
                if record is not None:
                    entry["files"].append(record)
            if not entry["files"] and "notUndoable" not in entry:
                return None, _no_sizes

        async def sizes() -> list[tuple[str, int]]:
            return sorted(copied_sizes, key=lambda item: item[1], reverse=True)[:5]
        return entry, sizes

    def _copy_one(self, turn_id: str, turn: _Turn, path: Path, entry: dict[str, Any],
                  copied_sizes: list[tuple[str, int]]) -> dict[str, Any] | None:
        absolute = Path(os.path.realpath(path if path.is_absolute() else self.root / path))
        try:
            rel = absolute.relative_to(self.root).as_posix()
        except ValueError:
            entry.setdefault("notUndoable", []).append(f"{path} (outside the project)")
            return None
        if rel in turn.copied:
            return None
        before = copies.fingerprint(absolute)
        if before in (copies.DIRECTORY, copies.SPECIAL):
            kind = "a directory" if before == copies.DIRECTORY else "not a regular file"
            entry.setdefault("notUndoable", []).append(f"{rel} ({kind})")
            return None
        turn.copied[rel] = before
        if before is None:
            return {"path": rel, "existed": False}
        copies.save_copy(absolute, self.copy_dir(turn_id) / "files" / rel)
        copied_sizes.append((rel, absolute.lstat().st_size))
        return {"path": rel, "existed": True, "sha256": before, "copy": f"files/{rel}"}

    async def finish_turn(self, turn_id: str) -> dict[str, Any] | None:
        """The after-state of a turn that took a snapshot (lets undo see edits made by hand later), else None."""
        turn = self._turns.pop(turn_id, None)
        if turn is None:
            return None
        entry = _snapshot_entry("ghost_snapshot_after", turnId=turn_id, mode=self._mode, timestamp=now_iso())
        if self._mode == "git":
            if turn.commit is None:
                return None
            top = self._top
            assert top is not None
            tree = await gitops.write_worktree_tree(top, gitops.scope_of(top, self.root))
            commit = await gitops.commit_tree(top, tree, turn.commit, f"contextual ghost snapshot after turn {turn_id}")
            ref = self._ref(turn.number, after=True)
            await gitops.update_ref(top, ref, commit)
            entry.update(commit=commit, ref=ref, changed=tree != turn.tree)
            return entry
        files: list[dict[str, Any]] = [{"path": rel, "sha256": copies.fingerprint(self.root / rel)}
                                       for rel in turn.copied]
        entry["files"] = files
        entry["changed"] = any(f["sha256"] != turn.copied[f["path"]] for f in files)
        return entry

    def before_change_hook(self, turn_id: str, record_entry: Callable[[dict[str, Any]], None],
                           on_warning: Callable[[str], None] | None = None) -> BeforeChange:
        """The callable the engine installs as ``ToolContext.before_change`` for one turn.

        ``await hook(paths)`` before a tool changes ``paths`` (None or [] for a Bash command). It never raises: a failed
        snapshot is reported through ``on_warning`` and the tool goes on.
        """
        async def before_change(paths: Iterable[Path | str] | None = None, label: str | None = None) -> None:
            try:
                record = await self.take(turn_id, paths, label=label)
            except (OSError, gitops.GitError) as exc:
                if on_warning is not None:
                    on_warning(f"ghost snapshot failed, this change cannot be undone: {exc}")
                return
            if record is None:
                return
            if record.entry is not None:
                record_entry(record.entry)
            if record.warning and on_warning is not None:
                on_warning(record.warning)
        return before_change

    async def _prune_once(self, turn_id: str, turn: _Turn) -> None:
        """Old snapshots go the first time this session takes one (after it, and sparing it by name)."""
        if self._pruned:
            return
        self._pruned = True
        try:
            if self._mode == "git" and self._top is not None:
                await prune_refs(self._top, keep=self.keep, max_age_days=self.max_age_days,
                                 spare=self._ref(turn.number))
            else:
                prune_copies(self.home, keep=self.keep, max_age_days=self.max_age_days, spare=self.copy_dir(turn_id))
        except (OSError, gitops.GitError):
            pass        # housekeeping must never cost a turn; the next session tries again

    def _ref(self, number: int | None, *, after: bool = False) -> str:
        return f"{REF_PREFIX}/{safe_component(self.session_id)}/{number}{'-after' if after else ''}"

    async def _next_number(self, top: Path) -> int:
        existing = await gitops.ref_names(top, f"{REF_PREFIX}/{safe_component(self.session_id)}/")
        numbers = [int(name.rsplit("/", 1)[-1]) for name in existing if name.rsplit("/", 1)[-1].isdigit()]
        return max(numbers, default=0) + 1

    async def _slow_warning(self, elapsed: float, sizes: Callable[[], Awaitable[list[tuple[str, int]]]]) -> str | None:
        if elapsed <= self.warn_after:
            return None
        largest = await sizes()
        named = ", ".join(f"{path} ({_human(size)})" for path, size in largest) or "no large files found"
        return (f"ghost snapshot took {elapsed:.1f} s; the largest files are: {named}. "
                f"Large or generated files slow it down: add them to .gitignore.")


async def _no_sizes() -> list[tuple[str, int]]:
    return []


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.0f} B"
