"""Where `git submodule foreach CMD` runs CMD (for reads.py and writes.py): in each submodule's folder, which git
takes from the work tree's `.gitmodules` (a submodule it does not list there is not visited), and with
`--recursive` in theirs too. Read from the files without running git; None where they do not say (a file
git_config.py cannot read, a work tree not known, more than MAX_SUBMODULES): then a path CMD names may be
below any folder of the project."""

from __future__ import annotations

import os
from dataclasses import dataclass

from contextual.core.bash_files.git_config import read_values
from contextual.core.bash_files.git_tree import work_tree
from contextual.core.git_line import git_line
from contextual.core.shell.nodes import Word, command_name

MAX_SUBMODULES = 64
_FOREACH_FLAGS = frozenset({"-q", "--quiet", "--recursive"})


@dataclass(frozen=True)
class Foreach:
    script: Word            # CMD's text as the shell reads it; None when a word is only known when the line runs
    recursive: bool
    folder: str | None      # -C's folder (from the one git runs in); None: another repository, or one not known


def foreach_script(words: tuple[Word, ...]) -> Foreach | None:
    """What `git [-C DIR] submodule [--quiet] foreach [--recursive] CMD…` runs, and where; None for any other
    command."""
    if not words or not isinstance(words[0], str) or command_name(words[0]) != "git":
        return None
    line = git_line(words[1:])
    if line.unknown:        # `git $OPTS submodule foreach …`: CMD and where it runs only known then
        return Foreach(None, True, None) if "foreach" in words else None
    if line.sub not in ("submodule", "submodule--helper") or "foreach" not in line.args:
        return None
    rest = list(line.args[line.args.index("foreach") + 1:])
    recursive = False
    while rest and rest[0] in _FOREACH_FLAGS:
        recursive = recursive or rest[0] == "--recursive"
        rest = rest[1:]
    # -C's folders, each from the one before; not known where the line names another repository or work tree, or
    # bash makes -C's folder one of $HOME (`-C ~/p`)
    unread = line.git_dirs or line.work_trees or line.folders_unknown
    folder = None if unread else os.path.join("", *(str(each) for each in line.folders))
    return Foreach(None if None in rest else " ".join(str(w) for w in rest), recursive, folder)


def submodule_folders(folder: str, recursive: bool) -> list[str] | None:
    """The folders of the submodules of the work tree `folder` is in, as its `.gitmodules` lists them (and theirs,
    recursive), full paths; None where the files do not say."""
    top = work_tree(folder)
    if top is None:
        return None
    found: list[str] = []
    pending = [top]
    while pending:
        at = pending.pop(0)
        listed = read_values(os.path.join(at, ".gitmodules"),
                             lambda name: name.startswith("submodule.") and name.endswith(".path"))
        if listed is None:
            return None
        for path in (p for paths in listed.values() for p in paths):
            full = os.path.normpath(os.path.join(at, path))
            found.append(full)
            if len(found) > MAX_SUBMODULES:
                return None
            if recursive:
                pending.append(full)
    return list(dict.fromkeys(found))


def foreach_folders(each: Foreach, folders: list[str]) -> list[str] | None:
    """The submodule folders CMD runs in, from each folder the line may be in; None where the files do not say."""
    if each.folder is None:
        return None
    found: list[str] = []
    for base in folders:
        some = submodule_folders(os.path.join(base, each.folder), each.recursive)
        if some is None:
            return None
        found += some
    return list(dict.fromkeys(found))[:MAX_SUBMODULES]
