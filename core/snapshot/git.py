"""Git plumbing for ghost snapshots: record the working tree without touching the user's repository state.

Every tree is written through a private, temporary index (GIT_INDEX_FILE), so the user's index, branches,
HEAD, stash and working files never change. A snapshot commit is kept alive by a private ref under
``refs/contextual/`` so that ``git gc`` does not collect it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from contextual.core.snapshot import git_files

# Snapshots must not depend on the user having configured an identity.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "contextual", "GIT_AUTHOR_EMAIL": "snapshots@contextual.invalid",
    "GIT_COMMITTER_NAME": "contextual", "GIT_COMMITTER_EMAIL": "snapshots@contextual.invalid",
}


class GitError(Exception):
    """A git command failed; the message is one line."""


class GitUnusable(GitError):
    """git cannot be used in this repository without waiting (a FIFO where it reads, a call past its timeout):
    snapshots are copies instead; the message says why."""


# A repository's own config can name commands that git runs while it reads the work tree: `core.fsmonitor` on
# every `add`, a `filter.<driver>.clean` on each attributed file, hooks on `checkout`, `gpg.program` on a signed
# commit. A checkout (or a model that wrote `.git/config`) must not run anything through our snapshots, so every
# call turns them off, the filter drivers by name (read from the config first, as they can be called anything).
_OFF = (("core.fsmonitor", "false"), ("core.hooksPath", os.devnull), ("commit.gpgSign", "false"))
FILTER_COMMANDS = ("clean", "smudge", "process")
TIMEOUT_S = 60          # a FIFO where git reads (.gitignore, .git/HEAD) must not hang the turn for good


async def _run(cwd: Path, args: tuple[str, ...], env: dict[str, str], stdin: bytes | None) -> tuple[int, bytes, bytes]:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", *args, cwd=str(cwd), env=env,
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    except FileNotFoundError as exc:
        if not cwd.is_dir():
            raise GitError(f"{cwd} no longer exists") from exc
        raise GitError("git is not installed") from exc
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), TIMEOUT_S)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        proc.kill()                             # never left behind, blocked on a FIFO, after Ctrl-C
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise GitUnusable(f"git {args[0]} took longer than {TIMEOUT_S} s") from None
    return proc.returncode or 0, out, err


def _config_env(overrides: list[tuple[str, str]]) -> dict[str, str]:
    """Settings given to git through the environment (GIT_CONFIG_COUNT): any key, whatever its characters."""
    env = {"GIT_CONFIG_COUNT": str(len(overrides))}
    for i, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


async def _commands_off(cwd: Path, env: dict[str, str]) -> dict[str, str]:
    _, out, _ = await _run(cwd, ("config", "-z", "--get-regexp", r"^filter\."), {**env, **_config_env([])}, None)
    drivers = set()
    for entry in out.split(b"\0"):
        key = entry.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        section, _, rest = key.partition(".")
        driver, _, _variable = rest.rpartition(".")
        if section.lower() == "filter" and driver:
            drivers.add(driver)
    overrides = list(_OFF) + [(f"filter.{d}.{c}", "") for d in sorted(drivers) for c in FILTER_COMMANDS]
    overrides += [(f"filter.{d}.required", "false") for d in sorted(drivers)]
    return _config_env(overrides)


async def git(cwd: Path, *args: str, env: dict[str, str] | None = None, ok_codes: tuple[int, ...] = (0,),
              stdin: bytes | None = None) -> bytes:
    why = git_files.unreadable(cwd)      # before any git runs: each would wait its whole timeout
    if why is not None:
        raise GitUnusable(f"git cannot read this repository: {why}")
    # Literal pathspecs: a project folder named "a*b" means that folder, not a glob.
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_LITERAL_PATHSPECS": "1", **(env or {})}
    full_env.update(await _commands_off(cwd, full_env))
    code, out, err = await _run(cwd, args, full_env, stdin)
    if code not in ok_codes:
        first = err.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {first[0] if first else f'exit {code}'}")
    return out


def scope_of(top: Path, root: Path) -> str:
    """The project's folder as a pathspec relative to the work tree's top ("." when they are the same)."""
    return Path(os.path.relpath(root, top)).as_posix()


async def toplevel(root: Path) -> Path | None:
    """The work tree that contains ``root``, or None when ``root`` is not inside a git work tree; GitUnusable when
    it is in one git cannot read without waiting."""
    if shutil.which("git") is None:
        return None
    try:
        out = await git(root, "rev-parse", "--is-inside-work-tree", "--show-toplevel")
    except GitUnusable:
        raise
    except GitError:
        return None
    lines = out.decode().splitlines()
    if len(lines) < 2 or lines[0].strip() != "true":
        return None
    return Path(lines[1].strip())


async def head_commit(top: Path) -> str | None:
    out = await git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}", ok_codes=(0, 1))
    return out.decode().strip() or None


async def write_worktree_tree(top: Path, scope: str = ".") -> str:
    """A tree object of the working tree now: tracked and untracked files, .gitignore respected.

    Only ``scope`` (the project's folder, relative to ``top``) is read from disk; the rest of the tree keeps
    what the user's index holds, so compare trees with the same ``scope``."""
    user_index = Path((await git(top, "rev-parse", "--git-path", "index")).decode().strip())
    if not user_index.is_absolute():
        user_index = top / user_index
    with tempfile.TemporaryDirectory(prefix="contextual-index-") as tmp:
        index = Path(tmp) / "index"
        # Starting from a copy of the user's index reuses its stat cache (only changed files get hashed)
        # and keeps files the user staged explicitly even when .gitignore matches them. copy2 keeps the index's
        # mtime, which git's racy-clean check compares file mtimes against: a fresh mtime would hide racy edits.
        if user_index.exists():
            shutil.copy2(user_index, index)
        env = {"GIT_INDEX_FILE": str(index)}
        await git(top, "add", "-A", "--", scope, env=env)
        return (await git(top, "write-tree", env=env)).decode().strip()


async def commit_tree(top: Path, tree: str, parent: str | None, message: str) -> str:
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", message]   # never prompt for a signing key
    if parent:
        args += ["-p", parent]
    return (await git(top, *args, env=_IDENTITY)).decode().strip()


async def update_ref(top: Path, ref: str, commit: str) -> None:
    await git(top, "update-ref", ref, commit)


async def ref_names(top: Path, prefix: str) -> list[str]:
    out = await git(top, "for-each-ref", "--format=%(refname)", prefix)
    return [line for line in out.decode().splitlines() if line]


async def ref_dates(top: Path, prefix: str) -> list[tuple[str, float]]:
    """(ref, committer time in unix seconds) for every ref under ``prefix``."""
    out = await git(top, "for-each-ref", "--format=%(refname) %(committerdate:unix)", prefix)
    pairs = []
    for line in out.decode(errors="replace").splitlines():
        ref, _, stamp = line.rpartition(" ")
        if ref:
            pairs.append((ref, float(stamp) if stamp.isdigit() else 0.0))
    return pairs


async def delete_refs(top: Path, refs: list[str]) -> None:
    """One `update-ref --stdin` transaction for all of them (a repository with thousands stays quick)."""
    if refs:
        await git(top, "update-ref", "--stdin", stdin="".join(f"delete {ref}\n" for ref in refs).encode())


async def object_exists(top: Path, rev: str) -> bool:
    try:
        await git(top, "cat-file", "-e", rev)
        return True
    except GitError:
        return False


@dataclass(frozen=True)
class TreeChange:
    path: str               # relative to the work tree's top, '/'-separated
    old_mode: str           # "000000" when absent
    new_mode: str
    old_blob: str

    @property
    def created(self) -> bool:
        return self.old_mode == "000000"


async def diff_trees(top: Path, old: str, new: str, scope: str = ".") -> list[TreeChange]:
    out = await git(top, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", old, new, "--", scope)
    fields = out.split(b"\0")
    changes: list[TreeChange] = []
    i = 0
    while i + 1 < len(fields):
        header = fields[i].decode()
        if not header.startswith(":"):
            i += 1
            continue
        old_mode, new_mode, old_blob, _new_blob, _status = header[1:].split(" ")
        changes.append(TreeChange(os.fsdecode(fields[i + 1]), old_mode, new_mode, old_blob))
        i += 2
    return changes


async def blob_for_worktree(top: Path, blob: str, path: str) -> bytes:
    """The blob as it would be checked out at ``path`` (smudge filters and line endings applied)."""
    return await git(top, "cat-file", "--filters", f"--path={path}", blob)


async def raw_blob(top: Path, blob: str) -> bytes:
    return await git(top, "cat-file", "blob", blob)


async def largest_paths(top: Path, tree: str, limit: int = 5) -> list[tuple[str, int]]:
    out = await git(top, "ls-tree", "-r", "-l", "-z", tree)
    sizes: list[tuple[str, int]] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        size = meta.split()[-1]
        if size.isdigit():
            sizes.append((os.fsdecode(path), int(size)))
    sizes.sort(key=lambda item: item[1], reverse=True)
    return sizes[:limit]
