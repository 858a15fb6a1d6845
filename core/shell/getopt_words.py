"""A program's words as GNU getopt_long reads them: its options, each with its value, and its operands. The one
reading for what a program's language runs (core/shell/awk_program.py, sed_script.py) and what it writes
(core/bash_files/write_words.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contextual.core.shell.nodes import Word
from contextual.core.shell.options import long_starts


@dataclass(frozen=True)
class Getopt:
    """A program's options, spelled as given (`-e`, `--file`)."""
    values: frozenset[str] = frozenset()        # take a value: the next word, `-eTEXT`, `--file=F`
    attached: frozenset[str] = frozenset()      # take an optional value, only attached (`-i.bak`, `--in-place=.bak`)
    flags: frozenset[str] = frozenset()         # the others it knows (a long one's unique start is that option)
    permute: bool = True                        # options after operands too (GNU's default; awk stops at its first)
    # a long option's start that names several (`--outp`: --output, --output-dir) is each of them: what a version with
    # fewer options may read it as (curl before --output-dir wrote `--outp F`'s F); else it stays as given
    ambiguous_each: bool = False

    @classmethod
    def spelled(cls, values: str = "", attached: str = "", flags: str = "", permute: bool = True) -> Getopt:
        """From words split at blanks: `Getopt.spelled("-e -f --file", "-i --in-place")`."""
        return cls(frozenset(values.split()), frozenset(attached.split()), frozenset(flags.split()), permute)

    def read(self, words: Sequence[Word]) -> tuple[list[tuple[str, Word]], list[Word]]:
        """The options given in order, each with its value ("" for none; one missing at the end is ""), and the
        operands. A word only known when the line runs is an operand: a reader whose script or program it stands for
        (or comes before) cannot read it. A long option's start naming several options (`--s`: gawk's --sandbox and
        --source) is, unless `ambiguous_each`, kept as given: an option the program does not know, as getopt_long
        returns it (gawk 5.2 then ends its options and still runs `-e PROG`, unsandboxed; sed and curl refuse it)."""
        longs = [o for o in self.values | self.attached | self.flags if o.startswith("--")]
        options: list[tuple[str, Word]] = []
        operands: list[Word] = []
        i, ended = 0, False
        while i < len(words):
            word = words[i]
            i += 1
            if ended or word is None or not word.startswith("-") or word == "-":
                operands.append(word)
                ended = ended or not self.permute
            elif word == "--":
                ended = True
            elif word.startswith("--"):
                name, equals, attached = word.partition("=")
                value: Word = attached
                found = long_starts(name, longs)
                names = found if len(found) == 1 or (found and self.ambiguous_each) else [name]
                if not equals and any(n in self.values for n in names) and not any(n in self.attached for n in names):
                    value, i = (words[i], i + 1) if i < len(words) else ("", i)
                options += [(n, value) for n in names]
            else:
                i = self._short(word, words, i, options)
        return options, operands

    def _short(self, word: str, words: Sequence[Word], i: int, options: list[tuple[str, Word]]) -> int:
        """A bundle of short options (`-rtDIR`): the first taking a value takes the rest of the word, or the next
        word (the index past it is returned)."""
        for at in range(1, len(word)):
            option = "-" + word[at]
            if option in self.values or option in self.attached:
                given: Word = word[at + 1:]
                if not given and option in self.values:
                    given, i = (words[i], i + 1) if i < len(words) else ("", i)
                options.append((option, given))
                break
            options.append((option, ""))
        return i
