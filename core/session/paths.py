"""Where session files live (CONTRACT "Session files") and the project's git branch."""

from __future__ import annotations

import os
import re
from pathlib import Path

from contextual.core.regular_file import read_regular

DIR_MODE = 0o700
FILE_MODE = 0o600
SESSION_SUFFIX = ".jsonl"
# A HEAD or a `.git` file is one line. A checkout unpacked from an archive can make either a FIFO (open() blocked the
# session's start for good, the app's event loop with it) or a link to /dev/zero (read to the end: all of memory).
GIT_POINTER_BYTES = 4096

# Session ids become file names: no separators, no dot-dot, nothing a shell would trip on.
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def project_real_path(project_root: Path) -> str:
    return str(Path(project_root).resolve())


def escape_project_path(project_root: Path) -> str:
    """/Users/foo/project -> -Users-foo-project (seed 001 8.5)."""
    return project_real_path(project_root).replace("/", "-")


def projects_dir(home: Path) -> Path:
    return Path(home) / "projects"


def sessions_dir(home: Path, project_root: Path) -> Path:
    return projects_dir(home) / escape_project_path(project_root)


def is_valid_session_id(session_id: str) -> bool:
    return bool(_SAFE_ID.match(session_id)) and ".." not in session_id


def session_file(home: Path, project_root: Path, session_id: str) -> Path:
    return sessions_dir(home, project_root) / f"{session_id}{SESSION_SUFFIX}"


def make_private_dirs(folder: Path) -> None:
    """Create folder (and missing parents) as 0700; tighten the session folder even if it existed."""
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    os.chmod(folder, DIR_MODE)
    # The parents we may just have created ($home/projects) get the same treatment.
    parent = folder.parent
    if parent.name == "projects":
        os.chmod(parent, DIR_MODE)


def find_git_dir(start: Path) -> Path | None:
    """The git directory whose HEAD and index git opens first from `start` (the branch shown; the snapshots' check
    that git will not wait on them, core/snapshot/git_files.py): the nearest `.git` in any form, a `gitdir:` file
    followed. A `.git` that is neither a folder nor a file (a FIFO an archive made) is returned as it is, for the
    caller to refuse (git would hang); a HEAD alone still shows its branch.
    Not the question of core/bash_files/git_tree.py: work_tree (the top of the work tree git writes, for the deny
    rules): that one passes over a `.git` git does not take for a repository (a HEAD that is no regular file
    among them), follows commondir and core.worktree, and answers "not known" wherever links or the files leave a
    doubt; here such a `.git` must stop the walk, and a doubt must not hide it."""
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if not candidate.exists():
            continue
        if not candidate.is_file():
            return candidate
        try:            # worktree or submodule: "gitdir: <path>"
            text = pointer_text(candidate)
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:"):].strip())
            return target if target.is_absolute() else (folder / target).resolve()
        return None
    return None


class GitBranch:
    """Reads .git/HEAD (never spawns git); re-reads only when HEAD's mtime changes."""

    def __init__(self, project_root: Path) -> None:
        git_dir = find_git_dir(Path(project_root).resolve())
        self._head = git_dir / "HEAD" if git_dir else None
        self._mtime: float | None = None
        self._branch: str | None = None
        self.refresh()

    def refresh(self) -> str | None:
        if self._head is None:
            return None
        try:
            mtime = self._head.stat().st_mtime
            if mtime != self._mtime:
                self._mtime = mtime
                self._branch = _branch_from_head(pointer_text(self._head))
        except OSError:
            self._branch = None
        return self._branch

    @property
    def branch(self) -> str | None:
        return self._branch


def pointer_text(path: Path) -> str:
    """A HEAD's or a `.git` file's text: a regular file's first GIT_POINTER_BYTES, never waiting on a FIFO (an
    OSError, as for a file that cannot be read)."""
    return read_regular(path, GIT_POINTER_BYTES).decode("utf-8", errors="replace").strip()


def _branch_from_head(text: str) -> str | None:
    text = text.strip()
    if text.startswith("ref:"):
        ref = text[4:].strip()
        return ref.removeprefix("refs/heads/")
    # Detached HEAD: a commit id; a short form is what a person recognises.
    return text[:12] or None


def find_sessions_dirs(home: Path) -> list[Path]:
    root = projects_dir(home)
    try:
        return [root / name for name in sorted(os.listdir(root)) if (root / name).is_dir()]
    except OSError:
        return []
