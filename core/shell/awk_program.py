"""What an awk program runs, reads and writes (for core/shell/languages.py): `system(CMD)`, `print … | CMD` and
`CMD | getline` hand CMD to /bin/sh, `print … > FILE` (or `>>`) writes FILE, `getline < FILE` reads it. CMD and FILE
are read where the program gives them as one string; built from data or variables they are only known when it runs.
gawk's `@` (an indirect call may name `system`; `@include`, `@load`), a library (`-i`, `-l`) and the debugger
(`-D`) bring in code from elsewhere; a program from a file (`-f`, `-E`) is read from disk apart (said.ProgramFile).
`--sandbox` (and `--help`, `--version`) are not taken to run nothing: gawk ends its options at one it does not know
(`-Q --sandbox` runs the program unsandboxed) and other awks do not know them (BWK awk ignores an unknown option)."""

from __future__ import annotations

import re

from contextual.core.shell.nodes import Word
from contextual.core.shell.getopt_words import Getopt
from contextual.core.shell.options import is_stdin_path
from contextual.core.shell.said import TEXT, Said, program_file

_OPTIONS = Getopt.spelled(
    "-F -f -v -e -E -i -l -W --field-separator --file --assign --source --exec --include --load",
    "-d -D -L -o -p --dump-variables --debug --lint --pretty-print --profile",
    "--sandbox --characters-as-bytes --traditional --copyright --gen-pot --help --usage --version --bignum "
    "--use-lc-numeric --non-decimal-data --optimize --no-optimize --posix --re-interval --trace --csv", permute=False)
# a program or library from a file; gawk's debugger (-D), whose commands (its `eval` among them) come from stdin
_ELSEWHERE = frozenset({"-i", "--include", "-l", "--load", "-D", "--debug"})
_FROM_FILE = frozenset({"-f", "--file", "-E", "--exec"})        # a program from a file named on the line
# gawk writes these where its option names no file: -d awkvars.out, -o and -p awkprof.out
_WRITTEN = {"-d": "awkvars.out", "--dump-variables": "awkvars.out", "-o": "awkprof.out",
            "--pretty-print": "awkprof.out", "-p": "awkprof.out", "--profile": "awkprof.out"}

_TOKEN = re.compile(r"""
    (?P<blank>[ \t\r]+|\\\n|\#[^\n]*)
  | (?P<newline>\n)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<operator>\|\||\|&|&&|>>|[<>!=]=|!~|\+\+|--|[-+*/%^]=|[|<>!~=?:,;{}()\[\]$+\-*/%^@])
""", re.X)
_OPERAND_ENDS = frozenset({")", "]"})        # then `/` divides (it starts a regex elsewhere)
# keywords an operand may follow (a `/` after them starts a regex); after getline and length awks differ
_KEYWORDS = frozenset({"BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do",
                       "break", "continue", "next", "nextfile", "exit", "return", "delete", "print", "printf", "in",
                       "case", "default", "switch"})
_EITHER = frozenset({")", "++", "--", "getline", "length"})     # a regex to one awk, a division to another
MAX_READINGS = 16
_CONTINUES = frozenset({",", "{", "&&", "||", "do", "else"})   # a line end after these goes on
_ENDS = frozenset({";", "\n", "}", ")", ""})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"', "/": "/"}


def awk(words: list[Word]) -> Said:
    """What `awk WORDS` runs, reads and writes: the program is the `-e`/`--source` texts (gawk), else the first
    operand; a program it cannot read here (not awk as awk reads it, a word only known when it runs) is unknown."""
    options, operands = _OPTIONS.read(words)
    names = {name for name, _ in options}
    said = Said(elsewhere=bool(names & _ELSEWHERE) or any(     # mawk's `-W exec F`, gawk's `-W source=…`
        name == "-W" and (value is None or value[:1] in "efls" or value.startswith("inc")) for name, value in options))
    said.writes += [value or _WRITTEN[name] for name, value in options if name in _WRITTEN]
    # `-f F`, `-E F`: the program in a file on disk, read apart (core/files_run.py) as `awk -- TEXT`
    for name, value in options:
        if name in _FROM_FILE and isinstance(value, str) and value and not is_stdin_path(value):
            said.files.append(program_file(value, f"awk -- {TEXT}", words))
    said.elsewhere |= any(name in _FROM_FILE and (value is None or not value or is_stdin_path(value))
                          for name, value in options)
    texts = [value for name, value in options if name in ("-e", "--source")]
    if not texts and not said.elsewhere and not names & _FROM_FILE:
        texts = operands[:1]
    for text in texts:
        found = None if text is None else read_program(text)
        if found is None:
            said.elsewhere = True
        else:
            said.add(found)
    return said


def read_program(text: str) -> Said | None:
    """The commands an awk program hands the shell and the files it names for output and `getline`, as each awk may
    read it; None where no awk would read it as this reading can (a string or regex left open, a character awk has
    no token for, too many places where awks differ)."""
    readings = _readings(text)
    if not readings:
        return None
    said = Said()
    for tokens in readings:
        found = _said(tokens)
        if found is None:
            return None
        said.add(found)
    return said


def _said(tokens: list[tuple[str, str]]) -> Said | None:
    said = Said()
    depth, printing = 0, -1               # the depth of the parentheses a print or printf statement started at
    for at, (kind, value) in enumerate(tokens):
        before = tokens[at - 1][1] if at else ""
        after = tokens[at + 1][1] if at + 1 < len(tokens) else ""
        if value == "@":
            return None                   # gawk: `@f()` may call system, `@include`, `@load`
        if value in ("(", "["):
            depth += 1
        elif value in (")", "]"):
            depth -= 1
            printing = -1 if depth < printing else printing
        elif kind == "name" and value in ("print", "printf"):
            printing = depth
        elif value in (";", "\n", "}") and depth <= printing:
            printing = -1
        elif kind == "name" and value == "system":
            said.lines.append(_call_string(tokens, at))
        elif value in ("|", "|&") and after == "getline":
            said.lines.append(_string_before(tokens, at))
        elif value in ("|", "|&"):
            said.lines.append(_string_after(tokens, at))
        elif value in (">", ">>") and printing == depth:
            said.writes.append(_string_after(tokens, at))
        elif value == "<" and (before == "getline" or (at > 1 and tokens[at - 2][1] == "getline")):
            read = _string_after(tokens, at)
            said.reads += [read] if read is not None else []
    return said


def _readings(text: str) -> list[list[tuple[str, str]]]:
    """The program's tokens, blanks and comments left out; a regex is one token. Where a `/` starts a regex or
    divides is decided by the token before it, and after some awks differ (mawk reads a regex after `x++` and
    `length`, gawk a division; after the `)` of an `if` condition the reverse): each reading is kept (at most
    MAX_READINGS), and one with a string or regex left open is one no awk runs."""
    done: list[list[tuple[str, str]]] = []
    pending: list[tuple[int, list[tuple[str, str]]]] = [(0, [])]
    while pending:
        i, tokens = pending.pop()
        while i < len(text):
            previous = tokens[-1] if tokens else ("", "")
            if text[i] == "/" and previous[1] in _EITHER and text[i + 1:i + 2] != "=":
                if len(done) + len(pending) >= MAX_READINGS:
                    return []
                pending.append((i + 1, [*tokens, ("operator", "/")]))
            if text[i] == "/" and (previous[1] in _EITHER or not _operand_ended(previous)):
                end = _regex_end(text, i + 1)
                if end is None:
                    break
                tokens.append(("regex", text[i:end]))
                i = end
                continue
            found = _TOKEN.match(text, i)
            if found is None:
                break
            kind = found.lastgroup or ""
            if kind == "newline" and previous[1] in _CONTINUES:
                kind = "blank"
            if kind != "blank":
                tokens.append((kind, found.group()))
            i = found.end()
        else:
            done.append(tokens)
    return done


def _operand_ended(token: tuple[str, str]) -> bool:
    kind, value = token
    return kind in ("number", "string", "regex") or value in _OPERAND_ENDS or (
        kind == "name" and value not in _KEYWORDS)


def _regex_end(text: str, i: int) -> int | None:
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "/":
            return i + 1
        elif c == "\n":
            return None
        elif c == "[":
            close = re.compile(r"\[\^?\]?(?:\[:[a-z]+:\]|[^\]\n])*\]").match(text, i)
            i = close.end() if close else i + 1
        else:
            i += 1
    return None


def _call_string(tokens: list[tuple[str, str]], at: int) -> Word:
    """`system("CMD")`: CMD when the call's one argument is one string, else None (made when it runs)."""
    shape = [value for _, value in tokens[at + 1:at + 4]]
    if len(shape) == 3 and shape[0] == "(" and tokens[at + 2][0] == "string" and shape[2] == ")":
        return _decoded(tokens[at + 2][1])
    return None


def _string_before(tokens: list[tuple[str, str]], at: int) -> Word:
    """`"CMD" | getline`: CMD when one string stands alone before the `|` (`x "CMD" | getline` may join them)."""
    if at and tokens[at - 1][0] == "string" and (at < 2 or not _operand_ended(tokens[at - 2])):
        return _decoded(tokens[at - 1][1])
    return None


def _string_after(tokens: list[tuple[str, str]], at: int) -> Word:
    """`print x | "CMD"`, `> "FILE"`: the one string after the operator that ends the statement, else None."""
    if at + 1 < len(tokens) and tokens[at + 1][0] == "string" and (
            tokens[at + 2][1] if at + 2 < len(tokens) else "") in _ENDS:
        return _decoded(tokens[at + 1][1])
    return None


def _decoded(literal: str) -> Word:
    """A string's value: awk's escapes decoded; None where awks differ (gawk drops the backslash of `\\$`, mawk
    keeps it) or a value would hold a character no command line holds."""
    out: list[str] = []
    body, i = literal[1:-1], 0
    while i < len(body):
        if body[i] != "\\":
            out.append(body[i])
            i += 1
            continue
        after = body[i + 1]
        octal = re.match(r"[0-7]{1,3}", body[i + 1:])
        if after in _ESCAPES:
            out.append(_ESCAPES[after])
        elif octal:
            out.append(chr(int(octal.group(), 8)))
            i += len(octal.group()) - 1
        else:
            return None
        i += 2
    return "".join(out)
