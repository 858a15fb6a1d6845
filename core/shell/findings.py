"""What the reading of one Bash line has found so far, and the verdicts on it (for core/shell/parse.py), with the
`Reader` its parts call back through for text they read as a line of its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from contextual.core.shell.nodes import Word
from contextual.core.shell.said import ProgramFile

MAX_NESTING = 8          # bash -c "eval 'sh -c …'": deeper than this is uncertain
# The builtins that only set, declare or unset variables: they run no program a variable could change
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly", "unset"})


@dataclass(frozen=True)
class Input:
    """What a simple command reads on standard input as the line sets it up (ShellParse.inputs)."""
    kind: str = ""                    # "" not redirected | "text" a here-document or here-string | "file" `< F` |
    #                                   "pipe" `a | b` | "other" (a descriptor)
    value: Word = ""                  # the text, or the file's name; None when only known when it runs
    source: tuple[Word, ...] = ()     # "pipe": the words of the simple command writing into it; () when not one
    xargs: tuple[Word, ...] = ()      # the xargs running this command, its word and options (it adds what it reads)
    fed: tuple[Word, ...] = ()        # xargs: its command's words as written (-I STR made those holding STR unknown)


NO_INPUT = Input()


@dataclass
class Findings:
    """The fields of `ShellParse` while the line is read (core/shell/parse.py says what each one means)."""
    commands: list[tuple[Word, ...]] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)       # what each of `commands` reads on standard input
    certain: bool = True
    opaque: bool = False
    misread: bool = False
    syntax_error: bool = False
    writes_files: bool = False
    writes_unknown: bool = False
    exports_unknown: bool = False
    redirected: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    latent: list[tuple[Word, ...]] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    assigned: list[tuple[str, str]] = field(default_factory=list)
    program_files: list[ProgramFile] = field(default_factory=list)
    loading: list[str] = field(default_factory=list)
    # a variable set that changes what later commands run (PATH, LD_PRELOAD, GIT_DIR, GIT_PAGER=$X …) to a value
    # not read here: the line is unreadable once it runs a command other than a declaration (`rebinding_settled`)
    rebinds: bool = False

    def listed(self, words: tuple[Word, ...], given: Input = NO_INPUT) -> None:
        """A simple command, with what it reads on standard input."""
        self.commands.append(words)
        self.inputs.append(given)

    def unreadable(self) -> None:
        self.certain, self.opaque = False, True

    def rebinding(self) -> None:
        self.rebinds = True

    def rebinding_settled(self) -> None:
        """A variable set that changes what later commands run leaves the line unreadable when it runs anything
        but declarations (`export PATH=$P:/x; make`): each Bash tool call is a shell of its own, so on a line of
        declarations alone (`export PATH=$PATH:/x`) it changes nothing. The command word as written: `./export`
        is a program."""
        if self.rebinds and any(words[0] not in DECLARATIONS for words in self.commands + self.latent):
            self.unreadable()

    def misparsed(self) -> None:
        """Unreadable because the parse itself cannot be trusted (not only a value known when it runs)."""
        self.unreadable()
        self.misread = True

    def drop_repeats(self, first: int) -> None:
        """The commands listed from ``first`` on that were listed before it: the same line read twice."""
        known = set(self.commands[:first])
        kept = [(c, i) for c, i in zip(self.commands[first:], self.inputs[first:]) if c not in known]
        self.commands[first:] = [c for c, _ in kept]
        self.inputs[first:] = [i for _, i in kept]


class Reader(Protocol):
    """The reading of one line (core/shell/parse.py), as its parts see it."""
    findings: Findings

    def script(self, text: str, depth: int) -> None:
        """Read text as a line of its own, nested ``depth`` deep."""

    def script_word(self, text: Word, depth: int) -> None:
        """Read a word's value as shell text one level deeper; unreadable when its value is not known."""

    def add(self, words: list[Word], depth: int, stdin: Word = "", given: Input = NO_INPUT) -> None:
        """A simple command: listed, checked, and what it runs read too. `given`: what it reads on standard
        input, as ShellParse.inputs records it."""

    def substitutions(self, text: str, depth: int) -> None:
        """The `$(…)` and backticks of text bash expands now, read as commands of this line."""

    def latent_substitutions(self, text: str, depth: int) -> None:
        """The `$(…)` and backticks of text bash may expand later, read apart as latent commands."""
