"""What a sed script runs, reads and writes (for core/shell/languages.py), as GNU sed reads it: `e COMMAND` runs
COMMAND (a bare `e`, and `s///e`, run the pattern space: a command made from the data), `r`/`R FILE` read FILE,
`w`/`W FILE` and `s///w FILE` write it, each to the end of its line; `-f FILE` takes the script from a file (read
from disk apart: said.ProgramFile); with
`--sandbox` sed refuses all of these. sed reads its whole script before it reads any input, and one it refuses runs
nothing."""

from __future__ import annotations

import re

from contextual.core.shell.nodes import Word
from contextual.core.shell.getopt_words import Getopt
from contextual.core.shell.options import is_stdin_path
from contextual.core.shell.said import TEXT, Said, program_file

_OPTIONS = Getopt.spelled("-e -f -l --expression --file --line-length", "-i --in-place",
                          "--quiet --silent --debug --follow-symlinks --posix --regexp-extended --separate --sandbox "
                          "--unbuffered --null-data --zero-terminated --binary --help --version")
_BARE = frozenset("=dDgGhHnNpPxzF{}")          # commands without an argument
_END = ";\n}#"                                  # what may follow a command
_SPACE = " \t\n\r\v\f"                            # between commands


def sed(words: list[Word]) -> Said:
    """What `sed WORDS` runs, reads and writes by its script. The script is the `-e` texts joined by line ends, else
    the first operand; macOS's `sed -i '' SCRIPT` (its -i takes the next word) is read too."""
    options, operands = _OPTIONS.read(words)
    names = {name for name, _ in options}
    if "--sandbox" in names or names & {"--help", "--version"}:
        return Said()
    said = Said()
    # `-f F`: script text from a file on disk, read apart (core/files_run.py) as `sed -e TEXT`
    for name, value in options:
        if name in ("-f", "--file"):
            if isinstance(value, str) and value and not is_stdin_path(value):
                said.files.append(program_file(value, f"sed -e {TEXT}", words))
            else:
                said.elsewhere = True
    pieces = [value for name, value in options if name in ("-e", "--expression")]
    if names & {"-f", "--file"} or pieces:
        scripts: list[Word] = [None if None in pieces else "\n".join(p or "" for p in pieces)] if pieces else []
    else:
        scripts = operands[:1]
    for script in scripts:
        if script is None:
            said.elsewhere = True         # a script only known when it runs
        else:
            said.add(read_script(script) or Said())     # one sed refuses runs nothing
    if not pieces and "-i" in words and len(operands) > 1 and operands[0] == "" and operands[1] is not None:
        said.add(read_script(operands[1]) or Said())    # BSD sed: a script it cannot read runs nothing there
    return said


def read_script(text: str) -> Said | None:
    """The commands of a sed script that run or name files; None for a script GNU sed refuses (an unknown command,
    a regex left open, extra characters after a command), which runs nothing. Each step is GNU sed's own (its
    compile.c): where this reading refuses a script, sed does too."""
    said = Said()
    i, n = 0, len(text)
    while True:
        i = _skip(text, i, _SPACE + ";")
        if i >= n:
            return said
        if text[i] == "#":
            i = _line_end(text, i)
            continue
        at = _addresses(text, i)
        if at is None:
            return None
        i = _skip(text, at, " \t")
        while i < n and text[i] == "!":
            i = _skip(text, i + 1, " \t")
        if i >= n:
            return None
        command, i = text[i], i + 1
        if command == "{":
            continue                      # a command may follow at once
        if command in ":btTv":
            i = _label_end(text, _skip(text, i, " \t"))
            continue                      # … and after a label and a blank (`b end p`)
        if command == "#":
            i = _line_end(text, i)
        elif command in "aic":
            i = _text_end(text, i)
        elif command == "e":
            argument, i = _command_text(text, _skip(text, i, " \t"))
            said.lines.append(argument if argument.strip() else None)    # a bare `e` runs the pattern space
        elif command in "rRwW":
            start, i = _skip(text, i, " \t"), _line_end(text, i)
            argument = text[start:i]
            if not argument and command in "wW":
                return None               # sed cannot open a file without a name (`r` reads none)
            if command in "rR":
                said.reads += [argument] if argument else []
            else:
                said.writes.append(argument)
        elif command == "s":
            found = _substitute(text, i, said)
            if found is None:
                return None
            i = found
        elif command == "y":
            found = _part(text, i + 1, text[i], regex=False) if i < n and text[i] != "\n" else None
            found = _part(text, found, text[i], regex=False) if found is not None else None
            if found is None:
                return None
            i = found
        elif command in "lLqQ":
            i = _skip(text, _skip(text, i, " \t"), "0123456789")
        elif command not in _BARE:
            return None
        i = _skip(text, i, " \t")
        if i < n and text[i] not in _END and not text.startswith("\r\n", i):
            return None


def _substitute(text: str, i: int, said: Said) -> int | None:
    """`s/RE/REPLACEMENT/FLAGS`: where it ends; its `e` flag runs the pattern space, `w FILE` writes FILE."""
    if i >= len(text) or text[i] == "\n":
        return None
    delimiter = text[i]
    found = _part(text, i + 1, delimiter, regex=True)
    found = _part(text, found, delimiter, regex=False) if found is not None else None
    if found is None:
        return None
    i = found
    while i < len(text):
        i = _skip(text, i, " \t")
        flag = text[i] if i < len(text) else ""
        if flag == "e":
            said.lines.append(None)       # the pattern space, made from the input, run as a command
        elif flag == "w":
            start, i = _skip(text, i + 1, " \t"), _line_end(text, i)
            if start >= i:
                return None
            said.writes.append(text[start:i])
            return i
        elif not flag or not (flag in "gpiImM" or flag.isdigit()):
            return i
        i += 1
    return i


def _part(text: str, i: int, delimiter: str, regex: bool) -> int | None:
    """Where a part of `s` or `y` (or an address's regex) ends, after its delimiter: a backslash escapes the next
    character (a line end too), and in a regex a bracket expression may hold the delimiter (`s/[/]/x/`)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == delimiter:
            return i + 1
        elif c == "\\":
            i += 2
        elif c == "\n" and regex:
            return None
        elif c == "[" and regex:
            end = _bracket_end(text, i)
            if end is None:
                return None
            i = end
        else:
            i += 1
    return None


def _bracket_end(text: str, i: int) -> int | None:
    """Past a bracket expression (`[^]a[:alpha:]]`): a `]` first is a member, `[:…:]`, `[.….]`, `[=…=]` nest."""
    j = i + 1
    j += text.startswith("^", j)
    j += text.startswith("]", j)
    while j < len(text):
        if text[j] == "[" and text[j + 1:j + 2] in (":", ".", "="):
            close = text.find(text[j + 1] + "]", j + 2)
            if close < 0:
                return None
            j = close + 2
        elif text[j] == "]":
            return j + 1
        elif text[j] == "\n":
            return None
        else:
            j += 1
    return None


def _addresses(text: str, i: int) -> int | None:
    """Past none, one or two addresses (`1`, `$`, `/re/I`, `\\%re%`, `first~step`, `addr,+N`, `0,/re/`)."""
    first = _address(text, i)
    if first is None:
        return None
    at = _skip(text, first, " \t")
    if at < len(text) and text[at] == ",":
        at = _skip(text, at + 1, " \t")
        if at < len(text) and text[at] in "+~":
            return _skip(text, at + 1, "0123456789")
        found = _address(text, at)
        return None if found is None or found == at else found
    return first


def _address(text: str, i: int) -> int | None:
    n = len(text)
    if i < n and text[i] == "$":
        return i + 1
    if i < n and text[i] in "~+":
        return _skip(text, i + 1, "0123456789")      # GNU takes `~`, `+` with no number for no address
    if i < n and text[i].isdigit():
        i = _skip(text, i, "0123456789")
        if i < n and text[i] == "~":
            i = _skip(text, i + 1, "0123456789")
        return i
    if i < n and text[i] in "/\\":
        if text[i] == "\\":
            if i + 1 >= n or text[i + 1] == "\n":
                return None
            delimiter, i = text[i + 1], i + 2
        else:
            delimiter, i = "/", i + 1
        found = _part(text, i, delimiter, regex=True)
        return None if found is None else _skip(text, found, "IM")
    return i


_ESCAPES = {"n": "\n", "\n": "\n", "t": "\t", "a": "\a", "f": "\f", "v": "\v", "r": "\r"}
_NUMBERED = {"d": (r"[0-9]{1,3}", 10), "o": (r"[0-7]{1,3}", 8), "x": (r"[0-9A-Fa-f]{1,2}", 16)}


def _command_text(text: str, i: int) -> tuple[str, int]:
    r"""`e`'s command and where it ends, as GNU sed reads it: one backslash right after `e` is dropped (`e\`, a line
    end, then the command on the next line), the command runs to a line end no backslash escapes, and its escapes
    are then made the characters they name (`\n`, `\t` …, `\dNNN`, `\oNNN`, `\xHH`, `\cX`; a backslash before any
    other is dropped: `\;` is `;`), unless the script ends right after a backslash (then they are kept as written)."""
    n = len(text)
    if text.startswith("\\", i):
        i += 1 + text.startswith("\n", i + 1)
    start = i
    while i < n and text[i] != "\n":
        if text[i] == "\\" and i + 1 >= n:
            return text[start:i], n
        i += 2 if text[i] == "\\" else 1
    return _normalized(text[start:i]), i


def _normalized(raw: str) -> str:
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        if raw[i] != "\\" or i + 1 >= n:
            out.append(raw[i])
            i += 1
            continue
        after = raw[i + 1]
        number = re.match(_NUMBERED[after][0], raw[i + 2:]) if after in _NUMBERED else None
        if after in _ESCAPES:
            out.append(_ESCAPES[after])
        elif number is not None:
            out.append(chr(int(number.group(), _NUMBERED[after][1])))
            i += len(number.group())
        elif after == "c":
            out += [chr(ord(raw[i + 2].upper()) ^ 0x40)] if i + 2 < n else []   # `\c` last: nothing
            i += 1
        else:
            out.append(after)
        i += 2
    return "".join(out)


def _text_end(text: str, i: int) -> int:
    """Past the text of `a`, `i`, `c`: `a\\` and the lines after it, or GNU's `a TEXT`, to a line end no backslash
    escapes."""
    i = _skip(text, i, " \t")
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "\n":
            return i
        else:
            i += 1
    return len(text)


def _label_end(text: str, i: int) -> int:
    """Past a label (or `v`'s version): it ends at a blank, a line end, `;`, `#` or `}`."""
    while i < len(text) and text[i] not in " \t\n;#}":
        i += 1
    return i


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _skip(text: str, i: int, characters: str) -> int:
    while i < len(text) and text[i] in characters:
        i += 1
    return i
