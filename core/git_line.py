"""git's own options before its sub-command (`git -C d -c k=v --git-dir=g SUB ARGS`), read once for every reader of
a git line: what it runs from files (core/git_runs.py), what it writes (core/bash_files/git_writes.py) and where
`git submodule foreach` runs (core/bash_files/git_submodules.py). Read as git's option parser reads them (git.c,
handle_options): an option that takes a value takes the next word whatever it is (GIT_VALUE_OPTIONS), a few end git
with nothing run, `--help`/`-h` and `--version`/`-v` are the `help` and `version` sub-commands, and the first other
word is the sub-command. The deny rules' reading of what a git line runs (core/shell/wrapper_options.py) reads it
too, so this module imports nothing of core/shell."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from contextual.core.git_commands import GIT_VALUE_OPTIONS

Word = str | None       # core/shell/nodes.py's: a word, None where only known when the line runs

# git's own options after which it runs no sub-command (read before those that take a value: `--exec-path` alone
# prints a folder, `--exec-path=D` sets one)
NOTHING_RUNS = frozenset({"--html-path", "--man-path", "--info-path", "--exec-path"})
# … and those git runs as a sub-command with the words after them (`git --help push` is `git help push`, which runs
# the man viewer a config names)
NAMED_SUBS = {"--help": "help", "-h": "help", "--version": "version", "-v": "version"}
_FOLDER_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree"})


@dataclass(frozen=True)
class GitLine:
    """The words after `git` as git reads them (git_line)."""

    options: tuple[Word, ...] = ()     # the words before the sub-command as written, each value after its option
    folders: tuple[Word, ...] = ()     # each -C's folder in order, each from the one before
    settings: tuple[Word, ...] = ()    # each -c's `name=value`
    git_dirs: tuple[Word, ...] = ()    # each --git-dir's (`--git-dir D`, `--git-dir=D`): git takes the last
    work_trees: tuple[Word, ...] = ()  # each --work-tree's, likewise
    others: tuple[Word, ...] = ()      # the options but -C and -c, with their values (what git's setup reads)
    # a word before the sub-command only known when the line runs: an option (which word is the sub-command is
    # then a guess) or a value
    unknown: bool = False
    unknown_option: bool = False       # … one that is an option's place, not a value: the sub-command is a guess
    # the folders git runs in or uses are not known here: an option only known when the line runs, or a -C,
    # --git-dir or --work-tree word that is, or that bash makes a folder of $HOME (`-C ~/p`; not `--git-dir=~/p`)
    folders_unknown: bool = False
    sub: str = ""                      # the sub-command; "" where none runs (`git --version`, `git -C d`)
    args: tuple[Word, ...] = ()        # the words after it


def git_line(args: Sequence[Word]) -> GitLine:
    """The words after `git`, read as git reads them. A word only known when the line runs is taken for an option
    without a value, so the sub-command is the next word that starts with no `-` (`git $OPTS stash`)."""
    options: list[Word] = []
    valued: dict[str, list[Word]] = {"-C": [], "-c": [], "--git-dir": [], "--work-tree": []}
    others: list[Word] = []
    unknown = unknown_option = folders_unknown = False
    i = 0
    while i < len(args):
        word = args[i]
        if word is not None and (not word.startswith("-") or word in NAMED_SUBS):
            break
        if word is not None and (word in NOTHING_RUNS or word.startswith("--list-cmds")):
            i = len(args)
            break
        takes = word in GIT_VALUE_OPTIONS
        if takes and i + 1 == len(args):
            i = len(args)               # git stops at an option missing its value
            break
        taken = list(args[i:i + 2]) if takes else [word]
        value = taken[-1]
        options += taken
        name, equals, given = (word or "").partition("=")
        if takes and name in valued:
            valued[name].append(value)
        elif equals and name in ("--git-dir", "--work-tree"):
            valued[name].append(given)
        if word not in ("-C", "-c"):
            others += taken
        unknown = unknown or None in taken
        unknown_option = unknown_option or word is None
        folders_unknown = folders_unknown or word is None or (takes and name in _FOLDER_OPTIONS and (
            value is None or value.startswith("~")))
        i += len(taken)
    sub = args[i] if i < len(args) else ""
    return GitLine(tuple(options), tuple(valued["-C"]), tuple(valued["-c"]), tuple(valued["--git-dir"]),
                   tuple(valued["--work-tree"]), tuple(others), unknown, unknown_option, folders_unknown,
                   NAMED_SUBS.get(sub or "", sub or ""), tuple(args[i + 1:]))
