"""The top of the work tree a git command writes, as git finds it from the folder it runs in and the project is now
(for git_writes.py and git_state.py): the nearest folder with a `.git` git takes for a repository, unless that
repository's config names another (`core.worktree`: a nested repository whose top is the folder above, a
submodule's or `--separate-git-dir`'s `.git` file pointing to a git folder elsewhere). Read from the files, without
running git; None where they cannot be read here (an include, a quoted value): any path counts."""

from __future__ import annotations

import os
import re

from contextual.core.regular_file import read_regular

_CONFIG_BYTES = 1 << 16      # a longer config is not read: the work tree is not known
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)\s*(?:"(?:[^"\\]|\\.)*"\s*)?\](.*)')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?")


def work_tree(folder: str) -> str | None:
    """The top of the work tree git uses from a folder: the one the repository found from it names, else the
    folder holding its .git (the nearest at or above it that git takes for one: _stops_git); the folder itself
    when none has one. None: not known here."""
    start = probe = os.path.normpath(folder)
    while not _stops_git(os.path.join(probe, ".git")):
        if os.path.dirname(probe) == probe:
            return start
        probe = os.path.dirname(probe)
    return repository_tree(os.path.join(probe, ".git"), probe)


def under(top: str | None, path: str) -> str:
    """A path below the top of a work tree, as a full path; any path (the file system's root) where the top is
    not known."""
    return os.sep if top is None else os.path.normpath(os.path.join(top, path))


def repository_tree(git_dir: str, default: str) -> str | None:
    """The top of the work tree of the repository at `git_dir` (a git folder, or a `gitdir:` file pointing to
    one): the folder its config's `core.worktree` names (relative to the git folder), else `default` (the folder
    holding the .git; for `--git-dir`, the one git runs in). A linked work tree's git folder (a `commondir` file)
    reads no core.worktree from the shared config; one in its `config.worktree` is read by git only under an
    extension: not known here, as an include or a value this reading does not take (quoted, escaped) is not.
    None: not known here."""
    folder = _pointed(git_dir)
    if folder is None:                  # a .git file git cannot read stops it with an error: it writes nothing
        return default
    common = _common(folder)
    shared = _worktree_setting(os.path.join(common, "config"))
    own = _worktree_setting(os.path.join(folder, "config.worktree"))
    if shared is None or own is None or own:
        return None
    if common != folder or not shared:
        return default
    return os.path.normpath(os.path.join(folder, shared[-1]))


def _pointed(git_dir: str) -> str | None:
    """The git folder a .git stands for: itself, or the folder its `gitdir: PATH` line names (relative to the
    folder holding it); None for a file git cannot read as one."""
    if os.path.isdir(git_dir):
        return os.path.normpath(git_dir)
    try:
        text = read_regular(git_dir, 4096).decode("utf-8", "surrogateescape")
    except OSError:
        return None
    if not text.startswith("gitdir: "):
        return None
    return os.path.normpath(os.path.join(os.path.dirname(git_dir), text[len("gitdir: "):].strip()))


def _common(folder: str) -> str:
    """The git folder whose objects, refs and config a git folder shares: the one its `commondir` file names (a
    linked work tree's), else itself."""
    try:
        named = read_regular(os.path.join(folder, "commondir"), 4096).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return folder
    return os.path.normpath(os.path.join(folder, named))


def _worktree_setting(path: str) -> list[str] | None:
    """The values `core.worktree` is given in one config file, in their order ([] for none, or no file); None where
    this reading cannot tell: an include, a continued line, a value quoted or escaped, a line it cannot parse,
    a file too long or not a regular one."""
    try:
        data = read_regular(path, _CONFIG_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) > _CONFIG_BYTES:
        return None
    values: list[str] = []
    section = ""
    for line in data.decode("utf-8", "surrogateescape").split("\n"):       # git ends a line at \n only
        line = line.strip()
        if line.endswith("\\"):
            return None
        if line.startswith("["):
            header = _SECTION.fullmatch(line)
            if header is None:
                return None
            name = header.group(1).lower()
            if name.startswith("include"):         # `include`, `includeIf`: settings from another file
                return None
            section = name if '"' not in line.partition("]")[0] else "-"     # `[core "x"]` is not core
            line = header.group(2).strip()
        if not line or line[0] in "#;":
            continue
        key = _KEY.fullmatch(line)
        if key is None:
            return None
        if section == "core" and key.group(1).lower() == "worktree":
            value = (key.group(2) or "").strip()
            if not value or any(c in value for c in '"\\#;'):
                return None
            values.append(value)
    return values


def _stops_git(dot_git: str) -> bool:
    """Whether git looking for its repository stops at this .git: a file (a `gitdir:` link; one it cannot read
    stops it with an error), or a folder holding objects/, refs/ and a HEAD naming a ref or a commit. Git passes
    over any other (an empty `sub/.git` folder, a link to nothing) to the folder above, so the check does too."""
    if not os.path.exists(dot_git):
        return False
    if not os.path.isdir(dot_git):
        return True
    common = _common(dot_git)
    head = os.path.join(dot_git, "HEAD")
    if not (os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(os.path.join(common, "refs"))
            and os.path.isfile(head)):
        return False
    try:
        if os.path.islink(head) and os.readlink(head).startswith("refs/"):
            return True
        text = read_regular(head, 256).decode("utf-8", errors="replace")
    except OSError:
        return False
    return (text.startswith("ref:") and text[4:].lstrip().startswith("refs/")) or \
        re.match("[0-9a-fA-F]{40}", text) is not None
