"""The programs whose own language runs commands or names files, and the reader of each (for
core/shell/command.py): awk (core/shell/awk_program.py), sed (core/shell/sed_script.py), vim and its kin
(core/shell/vim_words.py). What they say is read as the rest of the line is: each command line they hand a shell as
a nested line (as `sh -c TEXT`), the files they read and write as a redirection's, and a command or file made when
they run, or commands taken from elsewhere, leave the line unreadable."""

from __future__ import annotations

from collections.abc import Callable

from contextual.core.shell.awk_program import awk
from contextual.core.shell.nodes import Word
from contextual.core.shell.said import Said
from contextual.core.shell.sed_script import sed
from contextual.core.shell.vim_words import EX_NAMES, vim

Reading = Callable[[list[Word], "str | None"], Said]     # the words after the program's, the text of its stdin


def _vim(name: str) -> Reading:
    return lambda words, stdin: vim(name, words, stdin)


LANGUAGES: dict[str, Reading] = {
    **{name: (lambda words, stdin: awk(words)) for name in ("awk", "gawk", "mawk", "nawk", "original-awk", "goawk")},
    **{name: (lambda words, stdin: sed(words)) for name in ("sed", "gsed")},
    **{name: _vim(name) for name in ("vim", "vi", "view", "vimdiff", "gvim", "gview", "gvimdiff", "evim", "eview",
                                     "rvim", "rview", "rgvim", "rgview", "nvim", "nvi", "vim.basic", "vim.tiny",
                                     "vim.nox", "vim.gtk3", *EX_NAMES)},
}
