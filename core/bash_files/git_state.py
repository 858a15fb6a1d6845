"""Which protected files git's state says a command writes, for Edit and Write deny rules: `git stash`, `git reset
--hard`, `git checkout -f` write only the files git tracks, `git clean` only untracked ones (git_writes.py: the
kinds). One `git ls-files` a check, limited to the protected paths found below the trees the command writes and the
folders between them and the top (a tracked file where a folder is: git replaces the folder with what is below
it); `git stash pop|apply|branch` write the files the stash holds (stash_files). A git that fails, is missing or
takes longer than TIMEOUT_S (a check in all, whatever the folders) leaves every protected path counted."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import time
from collections.abc import Callable

from contextual.core.bash_files.git_tree import work_tree
from contextual.core.bash_files.git_writes import IGNORED, TRACKED, UNTRACKED
from contextual.core.bash_files.write_words import Stash
from contextual.core.bash_files.writes import TREE_ENTRIES, holds_below, protected_below

TIMEOUT_S = 2.0         # a check waits this long for git (a FIFO where git reads .gitignore must not hang it)
_COMMIT = re.compile(r"[0-9a-f]{40,64}")
Covers = tuple[str, Callable[[str], bool]]      # a path rule's glob and its test on a full path


def git_touched(trees: tuple[tuple[str, tuple[str, ...]], ...], kinds: frozenset[str], rules: list[Covers],
                root: str, stash: Stash | None = None) -> int | None:
    """The first rule (its index) covering a path at or below the trees that git lists among `kinds` (trees: for
    each folder git may run in, the trees it writes there), or a file the stash holds; None when none does."""
    deadline = time.monotonic() + TIMEOUT_S         # for the whole check, however many folders git runs in
    if stash is not None:
        return _stash_touched(trees, stash, rules, root, deadline)
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
    listed = {at: git_listed(at, kinds, paths, deadline) for at, paths in asked.items() if paths}
    for index, per_folder in enumerate(found):
        if per_folder is None or any(_touches(listed[at], at, paths, root, rules[index])
                                     for at, paths in per_folder if paths):
            return index
    return None


def _stash_touched(trees: tuple[tuple[str, tuple[str, ...]], ...], stash: Stash, rules: list[Covers],
                   root: str, deadline: float) -> int | None:
    """The first rule covering a file the stash holds (a folder on disk there: a protected path below it; a file
    not on disk yet counts too), from each folder git may run in; where git cannot say, a path below the trees."""
    held = {at: stash_files(at, stash, deadline) for at, _ in trees}
    for index, (spec, matches) in enumerate(rules):
        for at, below in trees:
            files = held[at]
            if files is None and any(holds_below(tree, root, spec, matches) for tree in below):
                return index
            if files is not None and (len(files) > TREE_ENTRIES or any(
                    holds_below(os.path.normpath(os.path.join(at, f)), root, spec, matches) for f in files)):
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


def git_listed(at: str, kinds: frozenset[str], protected: list[str], deadline: float) -> list[str] | None:
    """What `git ls-files` lists of `kinds` at the protected paths and the folders above them below the top of the
    work tree found from the folder `at`, as full paths (a folder listed whole, ignored or a repository of its own,
    ends in `/`); None when git fails, is missing or takes longer than TIMEOUT_S. Tracked: in the index or in
    HEAD (`--with-tree`: a path staged for removal is written back)."""
    top = work_tree(at)
    if top is None or not (at == top or at.startswith(top.rstrip(os.sep) + os.sep)):
        return None             # a work tree not known here, or one git reads pathspecs from the top of
    pathspecs: dict[str, str] = {}         # each as git reads it from `at`, and the path it stands for
    for path in map(os.path.normpath, protected):
        if path != top and not path.startswith(top.rstrip(os.sep) + os.sep):
            return None         # outside the work tree found from `at`: git cannot say
        chain = [path]
        while chain[-1] != top:
            chain.append(os.path.dirname(chain[-1]))
        pathspecs.update((os.path.relpath(p, at), p) for p in chain[:-1] or chain)
    others = kinds - {TRACKED}
    flags = ["--cached", "--with-tree=HEAD"] if TRACKED in kinds else []
    flags += ["--others"] if others else []
    flags += {frozenset({UNTRACKED}): ["--exclude-standard"], frozenset({IGNORED}): [
        "--ignored", "--exclude-standard", "--directory"], frozenset({UNTRACKED, IGNORED}): ["--directory"]}.get(
        others, [])
    if any(not _same(os.path.join(at, spec), path) for spec, path in pathspecs.items()):
        return None             # git reads `..` where `at`'s links lead (`-C x/link`), not as the path is written
    out = _git(at, ["ls-files", "-z", "--full-name", *flags, "--", *pathspecs], deadline)
    return None if out is None else [os.path.join(top, entry) for entry in out.split("\0") if entry]


def stash_files(at: str, stash: Stash, deadline: float) -> list[str] | None:
    """The files `git stash pop|apply` run in `at` writes, as full paths below the top of the work tree found from
    `at` (git's own top, or None): those its tracked changes name (the
    work tree's and the index's, against the commit it was made on) and its untracked files (a third parent);
    for `branch`, which checks that commit out first, also those where HEAD differs from it. None when git fails
    or takes longer than TIMEOUT_S in all, the stash is not one, or HEAD removed a file it changes, or a file in a
    folder where it adds one, since that commit (a rename: git's merge writes the change to the new name)."""
    top = work_tree(at)
    revs = _git(at, ["rev-parse", "--show-cdup", "HEAD", stash.ref, stash.ref + "^@"], deadline) if top else None
    up, *ids = (revs or "\n").split("\n")[:-1]          # the way up to the top, HEAD, the stash, its parents
    if top is None or not _same(os.path.join(at, up), top) or len(ids) not in (4, 5) or \
            not all(_COMMIT.fullmatch(i) for i in ids):
        return None             # git's top is not the one found here (`at` through a link): it cannot say
    head, work, base, index, *untracked = ids
    changes = [_changed(at, base, tip, deadline) for tip in (work, index)]
    listed = [_git(at, ["ls-tree", "-r", "-z", "--full-tree", "--name-only", u], deadline) for u in untracked]
    moved = _changed(at, base, head, deadline) if head != base else []
    if None in changes or None in listed or moved is None:
        return None
    changed = [entry for found in changes for entry in found or []]
    names = [path for _, path in changed] + [n for out in listed for n in (out or "").split("\0") if n]
    gone = {path for status, path in moved if status == "D"}
    folders = {folder for path in gone for folder in _folders_above(path) if folder}
    if stash.branch:
        names += [path for _, path in moved]
    elif any(path in gone or (status == "A" and folders.intersection(_folders_above(path)))
             for status, path in changed):
        return None
    return [os.path.join(top, name) for name in dict.fromkeys(names)]


def _same(path: str, other: str) -> bool:
    """Whether two paths are one file as git reaches them (through links, a `..` after a link to its target's
    parent)."""
    return os.path.realpath(path) == os.path.realpath(other)


def _changed(at: str, old: str, new: str, deadline: float) -> list[tuple[str, str]] | None:
    """The files that differ between two commits, each with its status (A, D, M …; no renames), from the top."""
    out = _git(at, ["diff-tree", "-r", "-z", "--name-status", "--no-renames", old, new], deadline)
    if out is None:
        return None
    parts = out.split("\0")[:-1]                          # status, path, status, path …
    return list(zip(parts[::2], parts[1::2]))


def _git(at: str, args: list[str], deadline: float) -> str | None:
    """What git prints, run in the folder `at`; None when it fails, is missing or is still running at the deadline.
    The one way git runs here: no hook nor configured program (core.fsmonitor off), no object fetched (a partial
    clone's promisor remote runs its config's upload-pack command: no transport allowed, lazy fetch off), pathspecs
    read literally, no lock taken."""
    env = {**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
           "GIT_LITERAL_PATHSPECS": "1", "GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "none"}
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    try:
        done = subprocess.run(["git", "-c", "core.fsmonitor=false", *args], cwd=at, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, check=False, timeout=left)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None
