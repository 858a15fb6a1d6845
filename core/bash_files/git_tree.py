"""The top of the work tree a git command writes, as git finds it from the folder it runs in and the project is now
(for git_writes.py and git_state.py): the nearest folder with a `.git` git takes for a repository, unless that
repository's config names another (`core.worktree`: a nested repository whose top is the folder above, a
submodule's or `--separate-git-dir`'s `.git` file pointing to a git folder elsewhere). Read from the files, without
running git, as git reads them (its setup.c): the folder it runs in and the git folders resolved through their
links, a `.git` that is no file nor folder (a FIFO, /dev/null) passed over, a folder that is itself a git folder
taken for a bare repository. None where they cannot be read here, or say something this reading does not follow
(an include, a quoted value, a link that makes the path as written another folder): any path counts."""

from __future__ import annotations

import os
import re
import stat

from contextual.core.bash_files.git_config import read_settings
from contextual.core.regular_file import read_regular

_POINTER_BYTES = 4096        # of a `.git` file or `commondir`; a longer one is not read: not known


class _Unknown(Exception):
    """The files do not say here what git would find."""


def work_tree(folder: str) -> str | None:
    """The top of the work tree git uses from a folder: the one the repository found from it names, else the
    folder holding its .git (the nearest at or above it that git takes for one: _stops_git); the folder itself
    when none has one. None: not known here (also where git, walking up the folder's real path, would find
    another repository than the one found from the path as written, or a bare one).
    Not the question of core/session/paths.py: find_git_dir (the git folder whose HEAD git opens first, for the
    branch shown and the snapshots' check that git will not wait on a FIFO): that one stops at any `.git` and
    reads a `gitdir:` leniently; here the answer is exact or None, since a deny rule then holds for any path."""
    start = os.path.normpath(folder)
    try:
        found = _found_from(start)
        if _real(found) != _real(_found_from(os.path.realpath(folder))):
            return None                 # `x/link` leads elsewhere: git walks up from where it leads
    except _Unknown:
        return None
    if found is None:
        return start
    return repository_tree(os.path.join(found, ".git"), found)


def git_folder(folder: str, git_dir: str | None = None) -> str | None:
    """The git folder whose config git reads and writes from a folder (a linked work tree's common one): the one
    `git_dir` (a full path, --git-dir's) names, else the one found from the folder; "" where there is none (git
    refuses to run); None where it is not known here."""
    try:
        if git_dir is not None:
            return _common(_pointed(git_dir))
        found = _found_from(os.path.normpath(folder))
        if found is not None and _real(found) != _real(_found_from(os.path.realpath(folder))):
            return None
        return "" if found is None else _common(_pointed(os.path.join(found, ".git")))
    except _Unknown:
        return None


def _found_from(start: str) -> str | None:
    """The folder whose .git git stops at, walking up from `start`; None where none does."""
    probe = start
    while True:
        if _stops_git(os.path.join(probe, ".git")):
            return probe
        if _is_git_folder(probe):
            raise _Unknown          # a bare repository, which may name any work tree (or, core.bare false, none)
        if os.path.dirname(probe) == probe:
            return None
        probe = os.path.dirname(probe)


def _real(path: str | None) -> str | None:
    return None if path is None else os.path.realpath(path)


def under(top: str | None, path: str) -> str:
    """A path below the top of a work tree, as a full path; any path (the file system's root) where the top is
    not known."""
    return os.sep if top is None else os.path.normpath(os.path.join(top, path))


def repository_tree(git_dir: str, default: str) -> str | None:
    """The top of the work tree of the repository at `git_dir` (a git folder, or a `gitdir:` file pointing to
    one): the folder its config's `core.worktree` names (relative to the git folder, through its links as git
    resolves it), else `default` (the folder holding the .git; for `--git-dir`, the one git runs in). A linked
    work tree's git folder (a `commondir` file) reads no core.worktree from the shared config unless that config
    turns `extensions.worktreeConfig` on; git reads no core.worktree from a config without
    `core.repositoryformatversion`; one in `config.worktree`, or any of these cases with a core.worktree: not
    known here, as an include or a value this reading does not take (quoted, escaped) is not. None: not known."""
    try:
        folder = _pointed(git_dir)
        common = _common(folder)
        shared = read_settings(os.path.join(common, "config"))
        own = read_settings(os.path.join(folder, "config.worktree"))
        if shared is None or own is None or own.worktrees:
            return None
        linked = common != folder
        if not shared.worktrees or (linked and not shared.worktree_config):
            return default
        if linked or not shared.versioned:
            return None                 # what git makes of it differs between its versions: not followed here
        return _joined(folder, shared.worktrees[-1])
    except _Unknown:
        return None


def joined(folder: str, path: str) -> str | None:
    """A path relative to a folder (or absolute) as written, where git, which resolves it through its links (its
    chdir, real_path), finds the same folder: a `..` after a link is the parent of the link's target. None where
    it does not."""
    written = os.path.normpath(os.path.join(folder, path))
    return written if os.path.realpath(written) == os.path.realpath(os.path.join(folder, path)) else None


def _joined(folder: str, path: str) -> str:
    found = joined(folder, path)
    if found is None:
        raise _Unknown
    return found


def _pointed(git_dir: str) -> str:
    """The git folder a .git stands for: itself, or the folder its `gitdir: PATH` line names (relative to the
    folder holding it; git strips only line ends from it, not blanks)."""
    if os.path.isdir(git_dir):
        return os.path.normpath(git_dir)
    return _joined(os.path.dirname(git_dir), _pointer(git_dir, "gitdir: "))


def _common(folder: str) -> str:
    """The git folder whose objects, refs and config a git folder shares: the one its `commondir` file names (a
    linked work tree's, relative to it), else itself."""
    path = os.path.join(folder, "commondir")
    if not os.path.lexists(path):
        return folder
    return _joined(folder, _pointer(path, ""))


def _pointer(path: str, prefix: str) -> str:
    """The path a pointer file holds after its prefix, as git reads it: up to its line ends (\\r, \\n), blanks kept;
    _Unknown where git would read it otherwise or not at all (not a regular file, unreadable, too long, a NUL, no
    prefix, no path)."""
    try:
        data = read_regular(path, _POINTER_BYTES + 1)
    except OSError as error:
        raise _Unknown from error
    text = data.decode("utf-8", "surrogateescape").rstrip("\r\n")
    if len(data) > _POINTER_BYTES or "\0" in text or not text.startswith(prefix) or len(text) == len(prefix):
        raise _Unknown
    return text[len(prefix):]


def _stops_git(dot_git: str) -> bool:
    """Whether git looking for its repository stops at this .git: a regular file (a `gitdir:` link; one it cannot
    read stops it with an error), or a git folder (_is_git_folder). Git passes over any other (an empty `sub/.git`
    folder, a link to nothing, a FIFO, /dev/null) to the folder above, so the check does too."""
    try:
        mode = os.stat(dot_git).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(mode) or (stat.S_ISDIR(mode) and _is_git_folder(dot_git))


def _is_git_folder(folder: str) -> bool:
    """Git's test of a git folder: its common folder (_common) holding objects and refs it may enter, and a HEAD
    naming a ref or a commit (a link only as `refs/…`, not followed)."""
    head = os.path.join(folder, "HEAD")
    if not os.path.lexists(head):
        return False
    common = _common(folder)
    if not all(os.access(os.path.join(common, name), os.X_OK) for name in ("objects", "refs")):
        return False
    try:
        if os.path.islink(head):
            return os.readlink(head).startswith("refs/")
        text = read_regular(head, 255).decode("utf-8", errors="replace")
    except OSError:
        return False
    return (text.startswith("ref:") and text[4:].lstrip(" \t\n\v\f\r").startswith("refs/")) or \
        re.match("[0-9a-fA-F]{40}", text) is not None
