"""What vim and its kin run from the Ex commands their words give (for core/shell/languages.py): `-c CMD`, `+CMD`,
`--cmd CMD`, and in Ex mode (`ex`, `vim -e`) the lines of a here-document. Vim's own language is too wide to read
(`:call system()`, `:normal`, `:py`, options naming programs, `` `cmd` `` in a file name), so a command is read only
where it is one of a few that run nothing, a shell line (`:!CMD`, `:{range}!CMD`, `:r !CMD`, `:w !CMD`, under
`:g/pat/`) or a file (`:w F`, `:r F`); any other, a script from a file (`-S`, `-u`, `-s`), and keys or commands
read from standard input leave the line unreadable."""

from __future__ import annotations

import re

from contextual.core.shell.nodes import Word
from contextual.core.shell.said import Said

_RANGE = re.compile(r"""(?:\s|[%.$,;+\-\d]|'[a-zA-Z<>\[\]'"^.]|/(?:\\.|[^/\\])*/?|\?(?:\\.|[^?\\])*\??|\\[/?&])*""")
_NAME = re.compile(r"[a-zA-Z]+|&&|[&~<>=#!]")
# (full name, shortest abbreviation) of the commands read here
_COMMANDS = {name: (full, len(short)) for full, short in (
    ("substitute", "s"), ("&&", "&&"), ("&", "&"), ("~", "~"), ("global", "g"), ("vglobal", "v"),
    ("delete", "d"), ("move", "m"), ("copy", "co"), ("t", "t"), ("join", "j"), ("yank", "y"), ("print", "p"),
    ("number", "nu"), ("list", "l"), ("#", "#"), ("=", "="), (">", ">"), ("<", "<"), ("mark", "ma"), ("k", "k"),
    ("write", "w"), ("wq", "wq"), ("wall", "wa"), ("wqall", "wqa"), ("xit", "x"), ("xall", "xa"), ("exit", "exi"),
    ("update", "up"), ("saveas", "sav"), ("quit", "q"), ("qall", "qa"), ("quitall", "quita"), ("cquit", "cq"),
    ("read", "r"), ("edit", "e"), ("enew", "ene"), ("set", "se"), ("setlocal", "setl"), ("setglobal", "setg"),
    ("retab", "ret"), ("sort", "sor"), ("nohlsearch", "noh"), ("undo", "u"), ("redo", "red"), ("left", "le"),
    ("right", "ri"), ("center", "ce"), ("put", "pu"), ("silent", "sil"), ("keepjumps", "keepj"),
    ("keeppatterns", "keepp"), ("lockmarks", "lockm"), ("noautocmd", "noa"), ("sandbox", "san"),
    ("unsilent", "uns"), ("bnext", "bn"), ("bprevious", "bp"), ("buffer", "b"), ("bdelete", "bd")) for name in [full]}
_MODIFIERS = frozenset({"silent", "keepjumps", "keeppatterns", "lockmarks", "noautocmd", "sandbox", "unsilent"})
_WRITES = frozenset({"write", "wq", "wall", "wqall", "xit", "xall", "exit", "update", "saveas"})
_QUITS = frozenset({"wq", "wqall", "xit", "xall", "exit", "cquit"})      # … and quit, qall, quitall with a `!`
_SHELL_WORDS = frozenset({"global", "vglobal"})      # the rest of the line, `|` and all, is theirs
# options that name no program, expression or file to run (`:set shell=…`, `makeprg`, `diffexpr` are not here)
_SAFE_OPTIONS = frozenset((
    "number nu relativenumber rnu list fileformat ff fileformats ffs fileencoding fenc bomb endofline eol "
    "fixendofline fixeol expandtab et tabstop ts shiftwidth sw softtabstop sts textwidth tw ignorecase ic "
    "smartcase scs autoindent ai smartindent si cindent cin binary bin paste wrap wrapscan ws hlsearch hls "
    "incsearch is magic readonly ro modifiable ma modified mod compatible cp nocompatible undolevels ul "
    "wrapmargin wm shiftround sr backup bk writebackup wb swapfile swf filetype ft syntax syn").split())


def ex_commands(text: str) -> tuple[Said, list[str]]:
    """What a line of Ex commands (`|` between them) runs, reads and writes, and the commands' full names in order
    (`quit!` with its bang; "" for one that is not a command of its own). Any command not read here leaves it
    unreadable (`elsewhere`)."""
    said, names = Said(), list[str]()
    rest: str | None = text
    while rest is not None:
        rest, name = _command(rest, said)
        names.append(name)
    return said, names


def quits_for_sure(names: list[str]) -> bool:
    """Whether the commands end by quitting whatever happened before (then vim reads nothing more): `wq`, `x`,
    `q!`, or `q` right after a write (a `q` alone fails where the buffer was changed)."""
    last = [name for name in names if name]
    return bool(last) and (last[-1].rstrip("!") in _QUITS or last[-1] in ("quit!", "qall!", "quitall!") or (
        last[-1] in ("quit", "qall", "quitall") and len(last) > 1 and last[-2].rstrip("!") in ("write", "update")))


def _command(text: str, said: Said) -> tuple[str | None, str]:
    """One command at the start of text: what it says added to `said`; the text after the `|` that ends it (None
    at the end), and its full name (with a `!` given it)."""
    text = text.lstrip(" \t:")
    if not text or text.startswith('"'):
        return None, ""
    text = text[_RANGE.match(text).end():]                      # type: ignore[union-attr]
    found = _NAME.match(text)
    if found is None:
        return (None, "") if not text.strip() else _unread(said)
    if found.group() == "!":
        said.lines.append(_shell_line(text[1:]))              # `:!CMD`, `:%!CMD`: the rest of the line
        return None, "!"
    full = _full_name(found.group())
    if full is None and found.group()[:1] == "s" and re.match(r"s[^a-zA-Z\s|\"]", text):
        full, found = "substitute", re.match("s", text)     # `:s#a#b#`: the delimiter follows at once
    if full is None or found is None:
        return _unread(said)
    bang = text[found.end():found.end() + 1] == "!"
    argument = text[found.end() + bang:]
    if full in _MODIFIERS:
        return _command(argument, said)
    if full in _SHELL_WORDS:
        _global(argument, said)
        return None, full
    if (full == "read" and bang) or (full in ("read", "write") and _skip_options(argument).startswith("!")):
        said.lines.append(_shell_line(_skip_options(argument).removeprefix("!")))   # `:r !CMD`: the rest of the line
        return None, full
    argument, rest = _split_bar(argument)
    if full in ("substitute", "&", "&&", "~"):
        if "\\=" in argument:
            return _unread(said)                # the replacement is an expression vim evaluates
    elif full in ("set", "setlocal", "setglobal"):
        if not all(_safe_option(word) for word in argument.split()):
            return _unread(said)
    elif full == "put" and argument.lstrip().startswith("="):
        return _unread(said)                    # the expression register
    elif full in _WRITES or full in ("read", "edit"):
        _file_command(full, _skip_options(argument), said)
    return rest, full + "!" * bang


def _skip_options(argument: str) -> str:
    """A file command's argument past its `++opt` words (`++enc=utf-8`: how to read or write, not where)."""
    argument = argument.strip()
    while argument.startswith("++"):
        argument = argument.partition(" ")[2].lstrip()
    return argument


def _file_command(full: str, argument: str, said: Said) -> None:
    """`:w`, `:w F`, `:w >> F`, `:r F`, `:e F`: the file it writes or reads (`:w` alone writes the buffer's own)."""
    argument = argument.removeprefix(">>").strip()
    if argument.startswith("+") or "`" in argument:
        said.elsewhere = True                   # `:e +CMD F` runs CMD; `` `cmd` `` in a name is run by the shell
    elif argument:
        name = None if re.search(r"[%#<*?\[{~$]", argument) else argument
        if full in ("read", "edit"):
            said.reads += [name] if name else []
        else:
            said.writes.append(name)
    elif full in _WRITES:
        said.writes.append("")                  # the buffer's own file: the files vim was given


def _global(argument: str, said: Said) -> None:
    """`:g/pat/CMD`: CMD (the rest of the line) on each matching line; `:g` alone prints them."""
    if not argument or argument[0].isalnum() or argument[0] in ' \t"|\\':
        return
    delimiter, i = argument[0], 1
    while i < len(argument) and argument[i] != delimiter:
        i += 2 if argument[i] == "\\" else 1
    inner, _ = ex_commands(argument[i + 1:])
    said.add(inner)


def _split_bar(text: str) -> tuple[str, str | None]:
    """A command's argument and the text after the `|` that ends it (a backslash escapes a `|`)."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "|":
            return text[:i], text[i + 1:]
        else:
            i += 1
    return text, None


def _shell_line(text: str) -> Word:
    """The command vim hands the shell: `\\!`, `\\%`, `\\#` are the characters; an unescaped `!` is the last shell
    command run (not known here)."""
    if re.search(r"(?<!\\)!", text):
        return None
    return re.sub(r"\\([!%#])", r"\1", text)


def _full_name(name: str) -> str | None:
    for full, shortest in _COMMANDS.values():
        if full.startswith(name) and len(name) >= shortest:
            return full
    return None


def _safe_option(word: str) -> bool:
    name = re.match(r"(?:no|inv)?([a-z]+)", word)
    plain = re.match(r"[a-z]+", word)
    return bool(name and (name.group(1) in _SAFE_OPTIONS or (plain and plain.group() in _SAFE_OPTIONS))) and \
        "`" not in word


def _unread(said: Said) -> tuple[None, str]:
    said.elsewhere = True
    return None, ""
