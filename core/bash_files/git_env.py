"""What a Bash line's environment tells its git commands, for git_writes.py: the git variables it may set (an
assignment before one, `export`, `env VAR=1 git`, a file it sources) or the Bash tool inherits from this process."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from contextual.core.bash_files.reads import in_folders
from contextual.core.regular_file import read_regular
from contextual.core.shell.nodes import Word
from contextual.core.shell.parse import parse_command

_DECLARING = frozenset({"export", "declare", "typeset", "readonly", "local"})
_PLAIN = re.compile(r"-.*|[A-Za-z_][A-Za-z0-9_]*(\+?=.*)?", re.S)       # an option, a name, a name's value
# what a sourced file may set that changes which repository, work tree, config or excludes git reads
_SETS_GIT = re.compile(r"GIT_|XDG_|\bHOME\b")
_SOURCED_BYTES = 256 * 1024


@dataclass(frozen=True)
class GitEnv:
    icase: bool = False         # GIT_ICASE_PATHSPECS: pathspecs match in any case
    elsewhere: bool = False     # GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR: another work tree, not known here
    unread: bool = False        # one git command's options or folders not known here (git_writes.py)


def line_env(command: str, commands: tuple[tuple[Word, ...], ...], folders: list[str]) -> GitEnv:
    """The git variables a line may set for its commands, named anywhere on it (`X=1 git`, `export X=1`, `env X=1
    git`, `export GIT_"DIR"=x` as its words read; a value of 0 too), or the Bash tool inherits from this process;
    any of them where the line may set a variable it does not name (_names_unknown)."""
    text = " ".join([command, *(w for words in commands for w in words if isinstance(w, str))])
    unknown = _names_unknown(command, commands, folders)

    def given(*names: str) -> bool:
        return unknown or any(name in text or os.environ.get(name, "") not in ("", "0") for name in names)
    return GitEnv(given("GIT_ICASE_PATHSPECS") or "ICASE_PATHSPECS" in text,
                  given("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"))


def _names_unknown(command: str, commands: tuple[tuple[Word, ...], ...], folders: list[str] | None) -> bool:
    """Whether the line may export a variable whose name only bash knows: a declaration's word that is no plain
    name as written (`export ${V}REE=x`, `export GI{T_DIR,X}=x`: an expansion, a brace), a word of `env` only known
    when it runs, a file it sources that may set one of git's (_sources_git; within a sourced file, any)."""
    for words in commands:
        if words and words[0] in ("source", ".") and (folders is None or _sources_git(words, folders)):
            return True
        if words and words[0] == "env" and None in words:
            return True
    if not any(name in command for name in _DECLARING):
        return False
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()\n")     # a line end ends a command
        lexer.whitespace, lexer.whitespace_split = " \t\r", True
        tokens = list(lexer)
    except ValueError:
        return True
    declaring = False
    for token in tokens:
        if token in _DECLARING:
            declaring = True
        elif token[:1] in ("", ";", "&", "|", "(", ")", "\n"):
            declaring = False
        elif declaring and not _PLAIN.fullmatch(token):
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
                _names_unknown(text, parse_command(text).commands, None):
            return True
    return False
