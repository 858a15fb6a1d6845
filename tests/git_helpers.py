"""Shared helpers for tests on real git repositories (ghost snapshots, undo, rewind)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

QUIET = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x",
         "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


def run_git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=QUIET, check=True, capture_output=True, text=True).stdout


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("*.log\n")
    for name in ("a.py", "b.py", "c.py", "d.py", "e.py"):
        (repo / name).write_text(f"# {name}\nvalue = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "init")
    (repo / "d.py").write_text("# d.py\nvalue = 'edited by the user, not staged'\n")
    (repo / "e.py").write_text("# e.py\nvalue = 'staged by the user'\n")
    run_git(repo, "add", "e.py")
    (repo / "notes.txt").write_text("untracked user notes\n")
    (repo / "debug.log").write_text("ignored\n")
    run_git(repo, "stash", "list")
    return repo


def repo_state(repo: Path) -> dict:
    """Everything of the user's that a snapshot or an undo must not change."""
    git_dir = repo / ".git"
    return {
        "status": run_git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored"),
        "branches": run_git(repo, "for-each-ref", "refs/heads", "refs/tags", "refs/stash"),
        "index": run_git(repo, "ls-files", "-s"),
        "index_bytes": (git_dir / "index").read_bytes(),
        "stash": run_git(repo, "stash", "list"),
        "head": (git_dir / "HEAD").read_text() + run_git(repo, "rev-parse", "HEAD"),
    }


def tree_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(root).parts}
