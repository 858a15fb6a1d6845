"""What a Bash line's environment tells its git commands, for git_writes.py: the git variables it may set (an
assignment before one, `export`, `env VAR=1 git`, a file it sources) or the Bash tool inherits from this process."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from contextual.core.bash_files.reads import in_folders
from contextual.core.regular_file import read_regular
from contextual.core.shell.nodes import Word
from contextual.core.shell.parse import ShellParse, parse_command

# what a sourced file may set that changes which repository, work tree, config or excludes git reads
_SETS_GIT = re.compile(r"GIT_|XDG_|\bHOME\b")
_SOURCED_BYTES = 256 * 1024


@dataclass(frozen=True)
class GitEnv:
    icase: bool = False         # GIT_ICASE_PATHSPECS: pathspecs match in any case
    elsewhere: bool = False     # GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR: another work tree, not known here
    unread: bool = False        # one git command's options or folders not known here (git_writes.py)


def line_env(command: str, parsed: ShellParse, folders: list[str]) -> GitEnv:
    """The git variables a line may set for its commands, named anywhere on it (`X=1 git`, `export X=1`, `env X=1
    git`, `export GIT_"DIR"=x` as its words read; a value of 0 too), or the Bash tool inherits from this process;
    any of them where the line may set a variable it does not name (_names_unknown)."""
    text = " ".join([command, *(w for words in parsed.commands for w in words if isinstance(w, str))])
    unknown = _names_unknown(parsed, folders)

    def given(*names: str) -> bool:
        return unknown or any(name in text or os.environ.get(name, "") not in ("", "0") for name in names)
    return GitEnv(given("GIT_ICASE_PATHSPECS") or "ICASE_PATHSPECS" in text,
                  given("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"))


def _names_unknown(parsed: ShellParse, folders: list[str] | None) -> bool:
    """Whether the line may export a variable whose name it does not show: a declaration's name known only when it
    runs (`export ${V}REE=x`, `export GI{T_DIR,X}=x`: core/shell/variables.py), a word of `env` only known when it
    runs, a file it sources that may set one of git's (_sources_git; within a sourced file, any)."""
    if parsed.exports_unknown:
        return True
    for words in parsed.commands:
        if words and words[0] in ("source", ".") and (folders is None or _sources_git(words, folders)):
            return True
        if words and words[0] == "env" and None in words:
            return True
    return False


def _sources_git(words: tuple[Word, ...], folders: list[str]) -> bool:
    """Whether a file `source`/`.` reads may set git's variables, HOME or XDG_*: its text names one or sets a name
    _names_unknown cannot read, or it sources another; or it cannot be read here (a name bash may look up on PATH,
    a word only known when it runs, a file too long or not a regular one)."""
    name = words[1] if len(words) > 1 else None
    if not isinstance(name, str) or "/" not in name:
        return True
    for full in in_folders(name, folders):
        try:
            data = read_regular(full, _SOURCED_BYTES + 1)
        except OSError:
            return True
        text = data.decode("utf-8", "replace")
        if len(data) > _SOURCED_BYTES or _SETS_GIT.search(text) or \
                _names_unknown(parse_command(text), None):
            return True
    return False
