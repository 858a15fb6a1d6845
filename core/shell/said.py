"""What a program's own language says it runs, reads and writes (for core/shell/languages.py): awk's `system()`,
sed's `e`, vim's `:!`."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.shell.nodes import Word


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

