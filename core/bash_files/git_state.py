"""Which protected files git's state says a command writes, for Edit and Write deny rules: `git stash`, `git reset
--hard`, `git checkout -f` write only the files git tracks, `git clean` only untracked ones (git_writes.py: the
kinds). One `git ls-files` a check, limited to the protected paths found below the trees the command writes and the
folders between them and the top (a tracked file where a folder is: git replaces the folder with what is below
it); a git that fails, is missing or takes longer than TIMEOUT_S leaves every protected path counted."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Callable

from contextual.core.bash_files.git_writes import IGNORED, TRACKED, UNTRACKED, work_tree
from contextual.core.bash_files.writes import TREE_ENTRIES, holds_below, protected_below

TIMEOUT_S = 2.0         # a check waits this long for git (a FIFO where git reads .gitignore must not hang it)
Covers = tuple[str, Callable[[str], bool]]      # a path rule's glob and its test on a full path


def git_touched(trees: tuple[tuple[str, tuple[str, ...]], ...], kinds: frozenset[str], rules: list[Covers],
                root: str) -> int | None:
    """The first rule (its index) covering a path at or below the trees that git lists among `kinds` (trees: for
    each folder git may run in, the trees it writes there); None when none does."""
    found: list[list[tuple[str, list[str]]] | None] = []      # per rule: (folder git runs in, protected paths)
    for spec, matches in rules:
        per_folder: list[tuple[str, list[str]]] | None = []
        for at, below in trees:
            each = [protected_below(tree, root, spec, matches) for tree in below]
            if per_folder is None or None in each:
                per_folder = None
            else:
                per_folder.append((at, [p for listed in each if listed for p in listed]))
        found.append(per_folder)
    asked: dict[str, list[str]] = {}
    for per_folder in found:
        for at, paths in per_folder or []:
            asked.setdefault(at, []).extend(paths)
    listed = {at: git_listed(at, kinds, paths) for at, paths in asked.items() if paths}
    for index, per_folder in enumerate(found):
        if per_folder is None or any(_touches(listed[at], at, paths, root, rules[index])
                                     for at, paths in per_folder if paths):
            return index
    return None


def _touches(listed: list[str] | None, at: str, protected: list[str], root: str, rule: Covers) -> bool:
    """Whether git writes a protected path: one it lists; a path it lists below one (a file the rule covers, below
    a folder it covers, or in a folder listed whole: all of it of the kinds asked); or one it lists above (a
    tracked file where the folder is, a folder listed whole). None: git could not say, so yes."""
    if listed is None:
        return True
    spec, matches = rule
    wanted = {os.path.normpath(p) for p in protected}
    above = {a for p in wanted for a in _folders_above(p)}
    covered = functools.lru_cache(maxsize=None)(matches)
    inside = []                             # below a protected path: the rule's own folder need not cover them
    for entry in listed:
        path = os.path.normpath(os.path.join(at, entry))
        ups = _folders_above(path)
        hits = [i for i, folder in enumerate(ups) if folder in wanted]
        if entry.endswith("/") and (hits or path in wanted or path in above):
            if holds_below(path, root, spec, covered):      # a folder listed whole: all below it is of the kinds
                return True
        elif path in wanted or path in above:
            return True
        elif hits:
            inside.append((path, ups[:hits[-1] + 1]))
    if len(inside) > TREE_ENTRIES:          # as a tree too large to look through
        return True
    return any(covered(path) or any(map(covered, ups)) for path, ups in inside)


def _folders_above(path: str) -> list[str]:
    out, parent = [], os.path.dirname(path)
    while parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out


def git_listed(at: str, kinds: frozenset[str], protected: list[str]) -> list[str] | None:
    """What `git ls-files`, run in the folder `at`, lists of `kinds` at the protected paths and the folders above
    them below the work tree's top, relative to `at` (a folder listed whole, ignored or a repository of its own,
    ends in `/`); None when git fails, is missing or takes longer than TIMEOUT_S. Tracked: in the index or in
    HEAD (`--with-tree`: a path staged for removal is written back). The one call of git here: it runs no hook nor
    configured program (core.fsmonitor off), reads pathspecs literally and takes no lock."""
    top = work_tree(at)
    pathspecs: dict[str, None] = {}
    for path in map(os.path.normpath, protected):
        if path != top and not path.startswith(top.rstrip(os.sep) + os.sep):
            return None         # outside the work tree found from `at`: git cannot say
        chain = [path]
        while chain[-1] != top:
            chain.append(os.path.dirname(chain[-1]))
        pathspecs.update(dict.fromkeys(os.path.relpath(p, at) for p in chain[:-1] or chain))
    others = kinds - {TRACKED}
    flags = ["--cached", "--with-tree=HEAD"] if TRACKED in kinds else []
    flags += ["--others"] if others else []
    flags += {frozenset({UNTRACKED}): ["--exclude-standard"], frozenset({IGNORED}): [
        "--ignored", "--exclude-standard", "--directory"], frozenset({UNTRACKED, IGNORED}): ["--directory"]}.get(
        others, [])
    env = {**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
           "GIT_LITERAL_PATHSPECS": "1"}
    try:
        done = subprocess.run(["git", "-c", "core.fsmonitor=false", "ls-files", "-z", *flags, "--", *pathspecs],
                              cwd=at, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [entry for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0") if entry]
