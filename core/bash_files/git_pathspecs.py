"""The files git's own pathspec globs name (for reads.py, the Read deny rules): `git grep x -- 'sec*'`, `git log -p --
':(glob)**/k'`, `git show HEAD -- 'secrets\\/k'`, `:(icase)SECRETS/K`. Bash hands git the pattern as written; git
matches it against the paths it walks, a `*` across folders too (without `:(glob)`); a pattern without wildcards
naming a folder names all below it. Matched here against the project's files as they are now (a file only in history
is not seen), from the folder git runs in (`:/`, `:(top)` from the top of its work tree). A pathspec that only leaves
files out (`:!x`, `:^x`, `:(exclude)x`) names none, as a git command given none reads every file by itself (`git
grep KEY`, `git log -p`: a program's own reading, docs/permissions.md)."""

from __future__ import annotations

import fnmatch
import os
import re

from contextual.core.bash_files.git_tree import work_tree
from contextual.core.git_line import git_line
from contextual.core.shell.nodes import Word

MAX_ENTRIES = 5000       # looked at below one pattern's folder; past it the rest are not
_GLOB = re.compile(r"[*?[\\]")
_SHORT_MAGIC = re.compile(r":([/!^]*):?")


def pathspec_paths(words: tuple[Word, ...], folders: list[str]) -> list[str]:
    """The full paths a git command's pathspec patterns match in the project, from each folder it may run in."""
    line = git_line(words[1:])
    patterns: list[str] = []
    ended = False
    for word in line.args:
        if word == "--":
            ended = True
        elif isinstance(word, str) and (ended or not word.startswith("-")) and (_GLOB.search(word) or
                                                                                  word.startswith(":")):
            patterns.append(word)
    out: list[str] = []
    for pattern in patterns:
        magic, body = _magic(pattern)
        if magic & {"exclude", "attr"} or not body and "top" not in magic:
            continue
        for folder in folders:
            base = (work_tree(folder) or folder) if "top" in magic else folder
            out += _matches(body, base, "icase" in magic, "literal" in magic)
    return list(dict.fromkeys(out))


def _magic(pattern: str) -> tuple[set[str], str]:
    """A pathspec's magic words and the pattern after them: `:(top,icase)x`, `:/x`, `:!x`, `:^x`."""
    if pattern.startswith(":("):
        end = pattern.find(")")
        if end < 0:
            return {"attr"}, ""           # git refuses it
        names = {m.strip().split(":")[0] for m in pattern[2:end].split(",")}
        return {"exclude" if n in ("exclude", "!", "^") else n for n in names}, pattern[end + 1:]
    if pattern.startswith(":"):
        found = _SHORT_MAGIC.match(pattern)
        letters = found.group(1) if found else ""
        magic = {"top"} if "/" in letters else set()
        magic |= {"exclude"} if set(letters) & {"!", "^"} else set()
        return magic, pattern[found.end() if found else 1:]
    return set(), pattern


def _matches(body: str, base: str, icase: bool, literal: bool) -> list[str]:
    """The files and folders below `base` the pattern names (a folder it names, all below it)."""
    start = os.path.normpath(os.path.join(base, re.split(r"[*?[\\]", body, maxsplit=1)[0].rpartition("/")[0]))
    if literal or not (_GLOB.search(body) or icase):
        return [os.path.normpath(os.path.join(base, body))]
    if icase:
        start = base
    translated = _translated(body.lower() if icase else body)
    out: list[str] = []
    named: set[str] = set()           # folders the pattern names: all below them too
    seen = 0
    for top, dirs, files in os.walk(start):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*dirs, *files]:
            seen += 1
            full = os.path.join(top, name)
            rel = os.path.relpath(full, base)
            if top in named or fnmatch.fnmatchcase(rel.lower() if icase else rel, translated):
                out.append(full)
                # a pattern without wildcards naming a folder names all below it (`:(icase)SECRETS`)
                named |= {full} if name in dirs and not _GLOB.search(body) else set()
        if seen > MAX_ENTRIES:
            break
    return out


def _translated(body: str) -> str:
    """git's pattern as fnmatch reads it: `\\x` is x itself (fnmatch has no escape); `*` crosses folders in both."""
    return re.sub(r"\\(.)", lambda m: "[" + m.group(1) + "]" if m.group(1) not in "]!^" else m.group(1), body)
