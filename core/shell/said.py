"""What a program's own language says it runs, reads and writes (for core/shell/languages.py): awk's `system()`,
sed's `e`, vim's `:!`; and its options as getopt reads them, for the readers of those languages."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.shell.nodes import Word
from contextual.core.shell.options import long_starts


@dataclass
class Said:
    """A program's own commands as its words give them: the command lines it hands a shell (None: one made when it
    runs, from its data or a variable), the files it reads and writes by name (None: a name made when it runs), and
    whether it takes more commands from elsewhere (a script file, standard input), which no rule can check."""
    lines: list[Word] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    elsewhere: bool = False

    def add(self, other: Said) -> None:
        self.lines += other.lines
        self.reads += other.reads
        self.writes += other.writes
        self.elsewhere |= other.elsewhere


@dataclass(frozen=True)
class Getopt:
    """A program's options as GNU getopt_long reads them."""
    values: str = ""                      # short options taking a value (`-e TEXT`, `-eTEXT`)
    attached: str = ""                    # … whose value is optional and only attached (`-i.bak`)
    long_values: frozenset[str] = frozenset()      # `--file F`, `--file=F`
    long_attached: frozenset[str] = frozenset()    # `--in-place[=SUFFIX]`
    long_flags: frozenset[str] = frozenset()
    permute: bool = True                  # options after operands too (GNU's default)

    def read(self, words: list[Word]) -> tuple[list[tuple[str, Word]], list[Word]]:
        """The options given, each with its value ("" for none), and the operands. A word only known when the line
        runs is an operand: a reader whose script or program it stands for (or comes before) cannot read it."""
        longs = self.long_values | self.long_attached | self.long_flags
        options: list[tuple[str, Word]] = []
        operands: list[Word] = []
        i, ended = 0, False
        while i < len(words):
            word = words[i]
            i += 1
            if ended or word is None or not word.startswith("-") or word == "-":
                operands.append(word)
                ended = ended or not self.permute
                continue
            if word == "--":
                ended = True
            elif word.startswith("--"):
                name, equals, attached = word.partition("=")
                value: Word = attached
                found = long_starts(name, longs)
                name = found[0] if len(found) == 1 else name      # a unique start is that option
                if name in self.long_values and not equals:
                    value, i = (words[i], i + 1) if i < len(words) else ("", i)
                options.append((name, value))
            else:
                for at in range(1, len(word)):
                    letter = word[at]
                    if letter in self.values or letter in self.attached:
                        given: Word = word[at + 1:]
                        if not given and letter in self.values:
                            given, i = (words[i], i + 1) if i < len(words) else ("", i)
                        options.append(("-" + letter, given))
                        break
                    options.append(("-" + letter, ""))
        return options, operands
