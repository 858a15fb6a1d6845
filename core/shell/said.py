"""What a program's own language says it runs, reads and writes (for core/shell/languages.py): awk's `system()`,
sed's `e`, vim's `:!`."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.shell.nodes import Word


TEXT = "\0TEXT\0"     # where a program file's text goes in its ProgramFile.line (no word of a line holds a NUL)


@dataclass(frozen=True)
class ProgramFile:
    """A file a program takes its own commands from (`awk -f F`, `sed -f F`, `ed < F`): read from disk by the
    permission rules as it is when the line is checked (core/files_run.py), and judged as `line` with the file's
    text, quoted, in place of TEXT (`awk -- TEXT`, `sed -e TEXT`, `ed -s f <<< TEXT`)."""
    path: str
    line: str
    mentions: int         # how many times the line names the file by giving it (a word: 1; `-fF`: 0; `< F`: 2)


def program_file(path: str, line: str, words: list[Word]) -> ProgramFile:
    """`path` as the words give it (`-f p.awk`, `--file=p.awk`, `-fp.awk`): counted as files_run.py counts the words
    naming a file (a word, or the value after a `=`, not one starting with `-`)."""
    def names(word: Word) -> bool:
        parts = {word, word.partition("=")[2]} if isinstance(word, str) and "=" in word else {word}
        return path in parts and not path.startswith("-")
    return ProgramFile(path, line, sum(names(w) for w in words))


@dataclass
class Said:
    """A program's own commands as its words give them: the command lines it hands a shell (None: one made when it
    runs, from its data or a variable), the files it reads and writes by name (None: a name made when it runs), the
    files it takes its commands from (read from disk apart), and whether it takes more commands from elsewhere
    (standard input, a file not named here), which no rule can check."""
    lines: list[Word] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    elsewhere: bool = False
    files: list[ProgramFile] = field(default_factory=list)

    def add(self, other: Said) -> None:
        self.lines += other.lines
        self.reads += other.reads
        self.writes += other.writes
        self.elsewhere |= other.elsewhere
        self.files += other.files

