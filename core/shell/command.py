"""One simple command of a Bash line (for core/shell/parse.py): its words listed, checked as a command bash can
run at all, then what it runs in turn (a wrapper unwrapped, a script sourced, an alias' text, a variable set)."""

from __future__ import annotations

import dataclasses
import re

from contextual.core.git_commands import dashed
from contextual.core.shell.aliases import Aliases
from contextual.core.shell.findings import NO_INPUT, Input, Reader
from contextual.core.shell.languages import LANGUAGES
from contextual.core.shell.latent import LatentText
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.options import is_stdin_path
from contextual.core.shell.said import Said
from contextual.core.shell.unwrap import Unwrapper
from contextual.core.shell.variables import Variables
from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrappers import WRAPPERS

MAX_UNWRAP = 16          # sudo env nice timeout … in a row

_SOURCES = {"source", "."}            # run a file's text in this shell: a file on disk is not read here
_NUMBER_LIKE = re.compile(r"[-+]\S*|[\d.,:]*\d[\d.,:]*")        # an option or a value, never a program
_LOADER = re.compile(r"ld(-linux[-\w.]*|-musl[-\w.]*)?\.so(\.\d+)*")   # runs the program it is given
_LOADER_WRAPPER = Wrapper(value_options=frozenset({"--library-path", "--preload", "--audit", "--argv0"}))
# Builtins that run text later or elsewhere: `fc -s` replays history, `compgen -C CMD` and `complete -C CMD` run
# CMD, `set -k` makes every NAME=VALUE word an assignment (GIT_SSH_COMMAND=… after `git`), `set -H` turns on
# history expansion (`history -s 'rm f'` on one line, `!!` on the next runs it).
_RUNS_LATER = frozenset({"fc", "compgen", "complete"})
_OTHER_GRAMMARS = frozenset({"zsh", "ksh", "mksh", "tcsh", "csh", "yash", "fish"})   # not bash's quoting
_POSIX_SHELLS = frozenset({"sh", "dash", "ash"})          # no $'…' quoting: `\$'\\'` ends differently


class SimpleCommands:
    def __init__(self, reader: Reader, variables: Variables, aliases: Aliases, latent: LatentText,
                 unwrapper: Unwrapper) -> None:
        self.reader = reader
        self.findings = reader.findings
        self.variables = variables
        self.aliases = aliases
        self.latent = latent
        self.unwrapper = unwrapper

    def add(self, words: list[Word], depth: int, stdin: Word = "", given: Input = NO_INPUT) -> None:
        open_tail = False
        for _ in range(MAX_UNWRAP):
            if not words or words[0] is None:
                self.findings.unreadable()    # the command is only known when it runs
                return
            self.findings.listed(tuple(words), given)
            # each command a wrapper runs too: `builtin export GIT_SSH_COMMAND=…`, `command unset 'a[$(…)]'`
            self.variables.command(words, depth)
            self.latent.note_command(words)
            self.aliases.expand(words, depth)
            name = command_name(words[0])
            if not self._plausible(words, name):
                self.findings.misparsed()
                return
            if name in _SOURCES:
                if len(words) < 2 or words[1] is None:
                    self.findings.unreadable()    # `source <(…)`, `. "$X"`: a script made when it runs
                elif is_stdin_path(words[1]):
                    self.reader.script_word(stdin or None, depth)     # `source /dev/stdin <<< 'rm f'`
                else:
                    self.findings.scripts.append(words[1])    # read from disk by the permission rules
                return
            if name == "hash" and any(w is None or (w.startswith("-") and "p" in w) for w in words[1:]):
                self.findings.unreadable()    # `hash -p /bin/rm ls`: a name now runs another program
                return
            if (sub := dashed(name)) is not None:
                words = ["git", sub, *words[1:]]      # /usr/lib/git-core/git-push, a link named git-push: git push
                continue
            if (language := LANGUAGES.get(name)) is not None:
                self._said(language(words[1:], given, stdin), depth)
                return
            wrapper = WRAPPERS.get(name) or (_LOADER_WRAPPER if _LOADER.fullmatch(name) else None)
            if wrapper is None:
                return
            # open_tail: xargs' command, whose last (unknown) word stands for the words it reads
            inner = self.unwrapper.unwrap(wrapper, words[1:], depth, stdin, open_tail)
            if inner is None:
                return
            at = _argv0_at(words, name)
            argv0 = words[at + 1] if at is not None else None
            if inner and inner[0] is not None and argv0 is not None and (sub := dashed(command_name(argv0))):
                inner = ["git", sub, *inner[1:]]      # `exec -a git-push git origin`: git reads its name first
            if wrapper.appends_input:     # xargs: the command's last words are what xargs reads
                given = dataclasses.replace(given, xargs=tuple(words[:len(words) - len(inner) + 1]),
                                            fed=tuple(words[len(words) - len(inner) + 1:]))
            words, open_tail = inner, wrapper.appends_input
        self.findings.unreadable()

    def _said(self, said: Said, depth: int) -> None:
        """What a program's own language runs (awk's `system("rm f")`, sed's `e`, vim's `:!`): each command line
        read as `sh -c` text is, its files as a redirection's; one made when it runs leaves the line unreadable."""
        for line in said.lines:
            self.reader.script_word(line, depth)
        self.findings.redirected += said.reads
        for path in said.writes:
            if path is None:
                self.findings.writes_unknown = True
            else:
                self.findings.written.append(path)
                self.findings.redirected.append(path)
        if said.files:
            # read from disk by the permission rules (core/files_run.py); no allow rule allows the line
            self.findings.program_files += said.files
            self.findings.certain = False
        if said.elsewhere:
            self.findings.unreadable()

    def _plausible(self, words: list[Word], name: str) -> bool:
        """Whether the words can be read as the command bash runs: a program's name, not an option or a value a
        wrapper's unknown option left in its place (`numactl -C 0 rm f`), a placeholder another program fills in
        (`find … -exec '{}' f ';'`), a descriptor or /proc path, another shell's grammar, a builtin that runs
        text later. `exec -a rm busybox f` and a loader's --argv0 run under a name of their choosing: that name
        is listed too."""
        word = str(words[0])
        if _NUMBER_LIKE.fullmatch(word) or "{" in word or "}" in word or word.startswith(("/dev/", "/proc/")):
            return False
        if name in _RUNS_LATER or (name == "set" and any(w is None or (w.startswith("-") and ("k" in w or "H" in w))
                                                         or w in ("keyword", "histexpand") for w in words[1:])):
            return False
        if name == "shopt" and any(w is None or w == "histexpand" for w in words[1:]):
            return False          # `shopt -so histexpand`: as `set -H`
        if name in _OTHER_GRAMMARS and any(w not in ("--version", "--help") for w in words[1:]):
            return False
        if name in _POSIX_SHELLS and not _text_read_alike(words[1:]):
            return False
        if (at := _argv0_at(words, name)) is not None:
            self.findings.listed(tuple(words[at + 1:]))
        return True


def _text_read_alike(words: list[Word]) -> bool:
    """Whether sh, dash or ash read their text (the `-c` text or the script, their first operand) as bash reads it:
    known, and without bash's `$'…'`. Their options before it must be known too (`sh $X -c …`: $X may be the
    text); the words after it are the text's arguments, any value (`xargs sh -c 'rm "$1"' _`)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            return False
        if word == "--" or word[:1] not in ("-", "+") or len(word) == 1:
            text = words[i + 1] if word == "--" and i + 1 < len(words) else word
            return text is not None and "$'" not in text
        if "o" in word[1:] or "O" in word[1:]:         # `-o NAME`, `-eo pipefail`: the name is no operand
            if i + 1 < len(words) and words[i + 1] is None:
                return False
            i += 1
        i += 1
    return True


def _argv0_at(words: list[Word], name: str) -> int | None:
    """Where `exec -a NAME PROG` or a loader's `--argv0 NAME` gives the name PROG runs under; None when not."""
    for option in ("-a", "--argv0"):
        if (name == "exec" or _LOADER.fullmatch(name)) and option in words[1:-1]:
            return words.index(option)
    return None
