"""How vim and its kin take Ex commands from a line (for core/shell/languages.py): `-c CMD` (also `-cCMD`), `+CMD`
(not `+N`, `+/pat`), `--cmd CMD`, read by core/shell/vim_commands.py; scripts from files (`-S F`, `-u F`, `-s F`
typed as keys, neovim's `-l F`) and another vim's (`--remote-send`, `--remote-expr`) are not read; `-w F`, `-W F`, `-i
F`, `-V…F`, `--startuptime F`, `--log F` are written. Standard input is typed keys, or in Ex mode (`ex`, `-e`, `-E`)
command lines, read where a here-document or here-string gives them; any other leaves the line unreadable unless
the commands end by quitting for sure (`wq`, `x`, `q!`)."""

from __future__ import annotations

from contextual.core.shell.nodes import Word
from contextual.core.shell.said import Said
from contextual.core.shell.vim_commands import ex_commands, quits_for_sure

EX_NAMES = frozenset({"ex", "exim", "nex", "gex"})
_VALUE_LETTERS = "cSuUiTtqwWs"           # take the rest of the word, else the next word (`-s` only out of Ex mode)
_HARMLESS_FILES = frozenset({"NONE", "NORC", "DEFAULTS", "NOPLUGIN"})
_LONG_VALUES = frozenset({"--cmd", "--startuptime", "--log", "--servername", "--listen", "--gui-dialog-file"})
_LONG_WRITTEN = frozenset({"--startuptime", "--log", "--gui-dialog-file"})


def vim(name: str, words: list[Word], stdin: str | None) -> Said:
    """What `NAME WORDS` runs by its Ex commands; `stdin`: the text of a here-document or here-string it reads,
    None when it reads anything else."""
    said = Said()
    commands: list[Word] = []
    files: list[Word] = []
    ex_mode, ended, i = name in EX_NAMES, False, 0
    while i < len(words):
        word, i = words[i], i + 1
        following = words[i] if i < len(words) else None
        if ended or word is None or word == "-" or not word.startswith(("-", "+")):
            files.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("+"):
            body = word[1:]
            if body and not body.isdigit() and not body.startswith(("/", "?")):
                commands.append(body)                       # `+N`, `+/pat`: a line to start on
        elif word.startswith("--"):
            option, equals, attached = word.partition("=")
            value: Word = attached
            if option in _LONG_VALUES and not equals:
                value, i = following, i + 1
            if option == "--cmd":
                commands.append(value)
            elif option in _LONG_WRITTEN:
                said.writes.append(value)
            elif option.startswith("--remote"):
                said.elsewhere = True                       # commands or keys for another vim
        else:
            ex_mode, i = _short(name, word, following, i, ex_mode, said, commands)
    names: list[str] = []
    for command in commands:
        if command is None:
            said.elsewhere = True
            continue
        found, given = ex_commands(command)
        said.add(found)
        names += given
    if ex_mode and stdin is not None:
        for line in stdin.splitlines():
            said.add(ex_commands(line)[0])
    elif not quits_for_sure(names):
        said.elsewhere = True                               # keys or commands from standard input
    if "" in said.writes:                                   # `:w`: the files it edits
        said.writes = [w for w in said.writes if w != ""] + [f for f in files if f != "-"]
    return said


def _short(name: str, word: str, following: Word, i: int, ex_mode: bool, said: Said, commands: list[Word]
           ) -> tuple[bool, int]:
    """A word of short options (`-es`, `-c CMD`, `-V9log`): whether Ex mode is on after it, and the next word's
    index (past a value it took)."""
    for at in range(1, len(word)):
        letter = word[at]
        if letter in "eE":
            ex_mode = True
            continue
        if letter == "V":
            said.writes += [word[at + 1:].lstrip("0123456789")] if word[at + 1:].lstrip("0123456789") else []
            break
        if letter == "l" and name == "nvim":
            said.elsewhere = True                           # a Lua script
            break
        if letter not in _VALUE_LETTERS or (letter == "s" and ex_mode):
            continue
        value: Word = word[at + 1:]
        if not value:
            value, i = following, i + 1
        if letter == "c":
            commands.append(value)
        elif letter in "Ss" or (letter in "uU" and value not in _HARMLESS_FILES):
            said.elsewhere = True                           # a script from a file, or keys typed from one
        elif letter in "wW" and not (value or "").isdigit():
            said.writes.append(value)
        elif letter == "i" and value != "NONE":
            said.writes.append(value)                       # the viminfo file, read and written
        break
    return ex_mode, i
