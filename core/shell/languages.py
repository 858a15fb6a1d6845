"""The programs whose own language runs commands or names files, and the reader of each (for
core/shell/command.py): awk (core/shell/awk_program.py), sed (core/shell/sed_script.py), vim and its kin
(core/shell/vim_words.py), ed (core/shell/ed_script.py). What they say is read as the rest of the line is: each
command line they hand a shell as a nested line (as `sh -c TEXT`), the files they read and write as a redirection's,
the file they take their commands from to be read from disk (said.ProgramFile), and a command or file made when they
run, or commands taken from elsewhere, leave the line unreadable."""

from __future__ import annotations

from collections.abc import Callable

from contextual.core.shell.awk_program import awk
from contextual.core.shell.ed_script import ed
from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word
from contextual.core.shell.said import Said
from contextual.core.shell.sed_script import sed
from contextual.core.shell.vim_words import EX_NAMES, vim

# the words after the program's, what its standard input is, and a here-document's or here-string's text there
Reading = Callable[[list[Word], Input, Word], Said]


def _vim(name: str) -> Reading:
    return lambda words, given, stdin: vim(name, words, stdin if given.kind == "text" else None)


LANGUAGES: dict[str, Reading] = {
    **{name: (lambda words, given, stdin: awk(words))
       for name in ("awk", "gawk", "mawk", "nawk", "original-awk", "goawk")},
    **{name: (lambda words, given, stdin: sed(words)) for name in ("sed", "gsed")},
    **{name: ed for name in ("ed", "red")},
    **{name: _vim(name) for name in ("vim", "vi", "view", "vimdiff", "gvim", "gview", "gvimdiff", "evim", "eview",
                                     "rvim", "rview", "rgvim", "rgview", "nvim", "nvi", "vim.basic", "vim.tiny",
                                     "vim.nox", "vim.gtk3", *EX_NAMES)},
}
