"""The names a Bash line gives a new meaning (for core/shell/parse.py): `alias NAME=VALUE`, whose text bash reads
in a later command word's place, git's `-c alias.NAME=VALUE`, expanded where git meets NAME on the line, and git's
`help.autocorrect`, which gives a mistyped sub-command the meaning of the nearest one."""

from __future__ import annotations

import shlex

from contextual.core.git_commands import guessed
from contextual.core.shell.findings import MAX_NESTING, Reader
from contextual.core.shell.nodes import Word

MAX_ALIAS_READS = 64     # a command word read again with an alias' text in its place, per line


class Aliases:
    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.shell: dict[str, list[str]] = {}    # `alias NAME=VALUE` on this line
        self.git: dict[str, str] = {}            # git -c alias.NAME=VALUE on this line
        self.expanding: set[str] = set()         # the aliases being read in their place
        # git's help.autocorrect turned on by the line (`-c`, `git config`): held for every git after it, as a
        # `git config` earlier on the line may have written it (a later `-c help.autocorrect=0` is not trusted)
        self.autocorrects = False
        self.reads = 0

    def names(self) -> list[str]:
        return list(self.shell)

    def define(self, words: list[Word], depth: int) -> None:
        """`alias x='rm -rf'`: each value is shell text a later `x` runs (scripts can turn expand_aliases on),
        read now; an unknown word is unreadable."""
        for word in words:
            if word is None or "=" in word:
                self.reader.script_word(None if word is None else word.partition("=")[2], depth)
            if word is not None and "=" in word:
                name, _, value = word.partition("=")
                self.shell.setdefault(name, []).append(value)

    def expand(self, words: list[Word], depth: int) -> None:
        """`alias A=''`, `alias A=command`, `alias A='X=1 '`, then `A rm f`: bash puts the alias' text in the word's
        place and reads the line on, so the words after it may be the command (`rm f`). Each value the line gave
        the name is read with the words after it; an unknown word stays unknown."""
        if words[0] not in self.shell or words[0] in self.expanding:
            return
        name = str(words[0])
        values = list(dict.fromkeys(self.shell[name]))
        self.reads += len(values)
        if depth >= MAX_NESTING or self.reads > MAX_ALIAS_READS:
            self.reader.findings.unreadable()     # aliases naming aliases, each with many values: k**depth readings
            return
        rest = " ".join('"$_"' if w is None else shlex.quote(w) for w in words[1:])
        self.expanding.add(name)          # bash does not expand an alias in its own text (`alias ls='ls -l'`)
        for value in values:
            self.reader.script(f"{value} {rest}", depth + 1)
        self.expanding.discard(name)

    def set_git_alias(self, name: str, value: str) -> None:
        self.git[name] = value

    def has_git_alias(self, name: str) -> bool:
        return name.lower() in self.git        # git's names ignore case: alias.P is `git p` and `git P`

    def git_names(self) -> list[str]:
        return list(self.git)

    def guesses(self, name: str) -> bool:
        """Whether git, with the line's help.autocorrect, runs the command or alias nearest `git NAME`."""
        return self.autocorrects and guessed(name, self.git)

    def take_git_alias(self, name: str) -> str:
        """The value of git's alias NAME, used once: `git -c alias.r=rebase r` expands `r` where it is met."""
        return self.git.pop(name.lower())
