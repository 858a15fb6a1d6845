"""What an ed script runs, reads and writes (for core/shell/languages.py). ed takes its commands on standard input: a
here-document or here-string, the text `printf` or `echo` pipes in (core/shell/printed.py), or a file (`ed f < s`,
read from disk apart: said.ProgramFile); anything else (another program's output, an enclosing redirection) is only
known when it runs. `!CMD`, `r !CMD`, `w !CMD`, `e !CMD` (and `E`, `W`, `wq`, in a `g`/`v` command list) hand CMD to
sh, `%` in it standing for the file's name; `r`/`e`/`E F` read F, `w`/`W F` write it, and `f`/`e`/`E F` make F the
file a later bare `w` writes. ed goes on after a command it refuses (an `a` with an address past the end leaves the
text after it to be read as commands), so every line is read as a command, text lines included; a text line that
reads as one of these (a line of Python starting with `!`) is taken for it, which only refuses more."""

from __future__ import annotations

import shlex

from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word
from contextual.core.shell.options import is_stdin_path
from contextual.core.shell.printed import printed
from contextual.core.shell.getopt_words import Getopt
from contextual.core.shell.said import TEXT, ProgramFile, Said

_OPTIONS = Getopt.spelled("-p --prompt", "", "-E -G -l -r -s -v -V -h --extended-regexp --traditional --help "
                          "--loose-exit-status --quiet --silent --restricted --strip-trailing-cr --unsafe-names "
                          "--verbose --version")
_ADDRESS = frozenset(" \t0123456789.$+-^,;%")
_FILE_COMMANDS = frozenset("rwWeEf")
_NO_FILE = "\0"             # a default file name ed is not given (no operand): a bare `w` writes nothing


def ed(words: list[Word], given: Input, stdin: Word) -> Said:
    """What `ed WORDS` runs, reads and writes by the commands it reads on standard input (`given`; `stdin`: a
    here-document's or here-string's text). Its operand is the file it edits (`!CMD` there: CMD's output)."""
    options, operands = _OPTIONS.read(words)
    if {name for name, _ in options} & {"--help", "--version", "-h", "-V"}:
        return Said()
    said = Said()
    operand = operands[0] if operands else ""
    if isinstance(operand, str) and operand.startswith("!"):
        said.lines.append(operand[1:])
        operand = ""
    if given.kind == "text":
        text = stdin
    elif given.kind == "pipe":
        text = printed(given.source)      # `printf '1d\nw\n' | ed -s f`
    elif given.kind == "file" and isinstance(given.value, str) and given.value == "/dev/null":
        return said
    elif given.kind == "file" and isinstance(given.value, str) and not is_stdin_path(given.value):
        line = " ".join(["ed", *(shlex.quote(w) if isinstance(w, str) else '"$_"' for w in words), "<<<", TEXT])
        said.files.append(ProgramFile(given.value, line, 2))      # `< F`: a redirection counts twice there
        return said
    else:
        text = None               # another program's output, an enclosing redirection's, a descriptor
    if text is None:
        said.elsewhere = True
        return said
    said.add(read_ed(text, _NO_FILE if operand == "" else operand))
    return said


def read_ed(text: str, default: Word) -> Said:
    """The commands of an ed script, each line read as a command (`default`: the file ed edits; None when only known
    when the line runs)."""
    said = Said()
    named: list[Word] = [default]
    for line in text.split("\n"):
        _command(line, named, said)
    return said


def _command(line: str, named: list[Word], said: Said) -> None:
    i = _after_addresses(line)
    if i >= len(line):
        return
    command = line[i]
    if command == "!":
        said.lines.append(_shell(line[i + 1:], named[0]))
    elif command in "gvGV" and i + 1 < len(line) and line[i + 1] not in " \t":
        end = _pattern_end(line, i + 2, line[i + 1])
        if end is not None:
            _command(line[end + 1:].removesuffix("\\"), named, said)   # the list's first command
    elif command in _FILE_COMMANDS:
        j = i + 1 + (command in "wW" and line[i + 1:i + 2] == "q")
        rest = line[j:]
        if rest[:1] not in ("", " ", "\t", "!"):
            return                # ed wants a blank before a name (a `!` is read even without one)
        name = rest.lstrip(" \t")
        if name.startswith("!"):
            said.lines.append(_shell(name[1:], named[0]))
            return
        _file(command, name, named, said)


def _file(command: str, name: str, named: list[Word], said: Said) -> None:
    """A file command's name: read or written; `f`, `e`, `E` (and `r` in an ed given no file) make it the one a
    later bare `w` writes, so it is taken as written too."""
    target: Word = name or named[0]
    if command == "f" and not name:
        return
    if target == _NO_FILE:
        return
    if command in "wW":
        said.writes.append(target)
        return
    if target is not None:
        said.reads.append(target)
    if name and (command in "eEf" or named[0] == _NO_FILE):
        named[0] = name
        said.writes.append(name)


def _shell(text: str, name: Word) -> Word:
    """The line ed hands sh: an unescaped `%` is the file's name; `!!` repeats the last one (not followed here)."""
    if text.startswith("!"):
        return None
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("\\%", i):
            out.append("%")
            i += 2
            continue
        if text[i] == "%":
            if name is None or name == _NO_FILE:
                return None       # no file, or one only known when the line runs
            out.append(shlex.quote(name) if name != shlex.quote(name) else name)
        else:
            out.append(text[i])
        i += 1
    return "".join(out)


def _after_addresses(line: str) -> int:
    """Where the command starts, past blanks and addresses (`1,$`, `'a`, `/re/+1`, `?re?;.`)."""
    i = 0
    while i < len(line):
        if line[i] in _ADDRESS:
            i += 1
        elif line[i] == "'":
            i += 2
        elif line[i] in "/?":
            end = _pattern_end(line, i + 1, line[i])
            if end is None:
                return len(line)  # a search to the end of the line: no command after it
            i = end + 1
        else:
            break
    return i


def _pattern_end(line: str, i: int, delimiter: str) -> int | None:
    """Where a regular expression starting at i ends (its closing delimiter, not one escaped or in brackets)."""
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            j = i + 1
            j += line[j:j + 1] == "^"
            j += line[j:j + 1] == "]"
            while j < len(line) and line[j] != "]":
                j = line.index(":]", j) + 2 if line.startswith("[:", j) and ":]" in line[j:] else j + 1
            i = j + 1
            continue
        if char == delimiter:
            return i
        i += 1
    return None
