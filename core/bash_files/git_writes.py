"""The files git's sub-commands write (for writes.py): the paths `checkout|restore|rm|mv` name; below
their pathspecs, else the whole work tree, for those that write files they do not name (`reset --hard`, `stash`,
`checkout -f`, `switch -f`, `read-tree -u`; `clean` below the folder it runs in); a diff's files for `apply` and
`am` (diffs.py)."""

from __future__ import annotations

import os

from contextual.core.bash_files.diffs import git_diff
from contextual.core.bash_files.write_programs import GIT_HERE, GIT_STASH_KEEPS, GIT_TREES, GIT_VALUES, GIT_WRITES
from contextual.core.bash_files.write_words import ANY, Found, read_options
from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word


def git_writes(words: tuple[Word, ...], given: Input, folders: list[str]) -> Found:
    """`git checkout -- k`, `git restore .`, `git -C sub rm -r d`: each word after the sub-command may be a path
    it writes or removes (a branch name as well: matched against the rules, it names no protected file).
    `git reset --hard`, `git stash`, `git checkout -f`, `git clean -f`: below their pathspecs, else the whole work
    tree (the folder, for `clean`); `git apply`, `git am`: the files their diffs name."""
    folder, tree, i = "", "", 0
    while i < len(words) and isinstance(words[i], str) and str(words[i]).startswith("-"):
        word = str(words[i])
        if word in GIT_VALUES and i + 1 < len(words):
            value = str(words[i + 1] or "")
            folder = os.path.join(folder, value) if word == "-C" else folder     # each -C from the one before
            tree = value if word == "--work-tree" else tree
            i += 1
        tree = word.partition("=")[2] if word.startswith("--work-tree=") else tree
        i += 1
    if i >= len(words):
        return Found()
    sub, rest = words[i], words[i + 1:]
    found = Found()
    if sub in GIT_WRITES:
        paths = [w for w in rest if not (isinstance(w, str) and w.startswith("-"))]
        found.trees += [os.path.join(folder, w) if isinstance(w, str) and folder else w for w in paths]
    whole = os.path.join(folder, tree) if tree else None     # the work tree, when the line names it (--work-tree)
    spec = GIT_TREES.get(str(sub))
    if sub == "stash" and rest and not (isinstance(rest[0], str) and rest[0].startswith("-")):
        if rest[0] in GIT_STASH_KEEPS:
            spec = None
        elif rest[0] == "push":
            rest = rest[1:]
        else:           # save, pop, apply, branch: the stash's files, any of the work tree
            spec, found = None, found.extend(Found(trees=[whole]) if whole else Found(tops=[(folder or ANY, "")]))
    if spec is not None:
        seen, _, operands = read_options(rest, spec)
        if (spec.only and not seen & spec.only) or seen & spec.never:
            pass
        elif spec.operands == "each" and operands:
            found.trees += [os.path.join(folder, o) if isinstance(o, str) else o for o in operands]
        elif sub in GIT_HERE or whole:
            found.trees.append(whole or folder or ANY)
        else:
            found.tops.append((folder or ANY, ""))
    if sub in ("apply", "am"):
        found.extend(git_diff(str(sub), rest, given, folders, folder))
    return found


def work_tree(folder: str) -> str:
    """The top of the work tree holding a folder, as the project is now (the nearest folder at or above it with
    a .git); the folder itself when none has one."""
    start = probe = os.path.normpath(folder)
    while not os.path.lexists(os.path.join(probe, ".git")):
        if os.path.dirname(probe) == probe:
            return start
        probe = os.path.dirname(probe)
    return probe
