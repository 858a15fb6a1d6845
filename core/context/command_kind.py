"""What a shell command is, read from the shell parse the permission rules use (core/shell/parse.py): the program
it is mostly about, its kind (a file view, a search, a test run, a diff, other), the one range of one file it shows,
its grep pattern, and whether it picked its lines out itself. The digests (core/context/digest.py) keep lines by it.
SWE-agent's and OpenHands' file commands (`open`, `goto`, `str_replace_editor view`…) count as file views, their
searches as searches.
"""

from __future__ import annotations

import functools
import re
import shlex

from contextual.core.shell.nodes import command_name
from contextual.core.shell.parse import parse_command
from contextual.core.shell.wrappers import WRAPPERS

VIEW_PROGRAMS = {"cat", "sed", "head", "tail", "nl", "less", "more", "awk", "bat",
                 "open", "goto", "scroll_up", "scroll_down", "Read", "view", "read_file"}   # + SWE-agent, Claude Code
SEARCH_PROGRAMS = {"grep", "rg", "ag", "ack", "egrep", "fgrep", "find", "ls", "tree", "locate", "fd",
                   "search_file", "search_dir", "find_file", "Grep", "Glob", "LS", "list_dir"}


# Commands that set up or test for the one that follows: `cd /testbed && cat x.py` is a view of x.py.
_SETUP = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true", ":", "test", "["})
TEST_RUNNERS = frozenset({"pytest", "py.test", "tox", "nox", "nosetests", "trial"})
TEST_MODULES = frozenset({"pytest", "unittest", "nose", "tox"})          # python -m …
TEST_VERBS = frozenset({"make", "npm", "yarn", "pnpm", "bun", "go", "cargo"})   # … test
_PYTHON = re.compile(r"python[\d.]*")


@functools.lru_cache(maxsize=1024)      # kind_of, program_of and file_origin each ask, once per form made
def _commands(command: str) -> tuple[tuple[str, ...], ...]:
    """The simple commands the line runs, in order, from the shell parse the permission rules use (heredoc
    bodies are text, not commands; `timeout 60 pytest` lists timeout and pytest); words unknown until the
    shell runs are dropped."""
    return tuple(tuple(w for w in words if w is not None) for words in parse_command(command).commands)


def _program(words: tuple[str, ...]) -> str:
    prog = command_name(words[0]) if words else ""
    if _PYTHON.fullmatch(prog) and "-m" in words[1:-1]:
        return words[words.index("-m") + 1]
    return prog


def program_of(command: str) -> str:
    """The program a shell command mostly is about: the first one run that is not a wrapper (sudo, timeout…)
    or a set-up step (cd, export…); `python -m X` is X."""
    for words in _commands(command):
        prog = _program(words)
        if prog and not _hands_on(prog) and prog not in _SETUP and words != ("cat",):   # bare cat: a heredoc's writer
            return prog
    return ""


def _hands_on(prog: str) -> bool:
    """A wrapper whose point is the command it runs (sudo, timeout, xargs, `bash -c`): the parse lists that command
    after it. A program that can also run one (git's aliases, find -exec, rg --pre) is what the line is about."""
    wrapper = WRAPPERS.get(prog)
    return wrapper is not None and (wrapper.runs_rest or wrapper.script_option is not None or wrapper.script_rest)


def runs_tests(words: tuple[str, ...]) -> bool:
    """Whether one simple command runs a test suite: a runner by name (pytest, tox, django's runtests.py, sympy's
    bin/test), `python -m pytest|unittest`, `make|npm|go|cargo … test`. A path or an import that merely says
    pytest (`cat src/_pytest/main.py`, `pip install pytest-xdist`) is not one."""
    if not words:
        return False
    prog, rest = _program(words), words[1:]
    name = command_name(words[0])
    if prog in TEST_RUNNERS or prog in TEST_MODULES and _PYTHON.fullmatch(name):
        return True
    if prog.startswith("runtests") or (name == "test" and "/" in words[0]):     # a bare `test` is the shell's
        return True
    if _PYTHON.fullmatch(name):
        script = next((w for w in rest if not w.startswith("-")), "")
        return command_name(script).startswith("runtests") or (script.endswith("setup.py") and "test" in rest)
    return name in TEST_VERBS and "test" in rest[:2]


def kind_of(command: str) -> str:
    if command.startswith("str_replace_editor ") and (command.split(None, 2)[1:2] == ["view"]
                                                      or '"view"' in command[:80]):
        return "view"                     # OpenHands' / SWE-agent's file viewer (its other commands edit)
    if any(runs_tests(words) for words in _commands(command)):
        return "test"
    prog = program_of(command)
    if prog in VIEW_PROGRAMS:
        return "view"
    if prog in SEARCH_PROGRAMS or (prog == "git" and " grep" in command):
        return "search"
    if prog == "git" and " diff" in command:
        return "diff"
    return "other"


_GREP_OPTION_ARGS = {"-A", "-B", "-C", "-m", "-f", "-g", "-t", "--include", "--exclude", "--exclude-dir", "--max-count",
                     "--glob", "--type"}   # options that take a value (grep and rg)


def grep_pattern(command: str) -> re.Pattern[str] | None:
    """The pattern of the command's grep stage (`grep -n -C 5 "def foo" x.py`, `nl x.py | grep foo`), as a
    regex: grep's `\\|` alternation read as `|`, and a pattern that is no valid regex taken literally."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    starts = [0] + [i + 1 for i, token in enumerate(tokens) if token in ("|", "||", "&&", ";")]
    for start in starts:
        words = tokens[start:]
        if words[:2] == ["git", "grep"]:
            words = words[1:]
        if not words or words[0] not in ("grep", "egrep", "fgrep", "rg"):
            continue
        args, i = words[1:], 0
        flags = 0
        while i < len(args):
            arg = args[i]
            if arg == "-e" and i + 1 < len(args):
                return _compiled(args[i + 1], flags)
            if arg in _GREP_OPTION_ARGS:
                i += 2
                continue
            if arg in ("|", "||", "&&", ";"):
                break
            if arg.startswith("-"):
                flags |= re.IGNORECASE if "i" in arg.lstrip("-") and not arg.startswith("--") else 0
                i += 1
                continue
            return _compiled(arg, flags)
    return None


def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    try:
        return re.compile(pattern.replace("\\|", "|"), flags)
    except re.error:
        return re.compile(re.escape(pattern), flags)


_SED_RANGE = re.compile(r"(\d+)(?:,(?:\d+|\$))?p")
_HEAD_COUNT = re.compile(r"-n?\d+|-n")


def file_origin(command: str) -> tuple[str, int] | None:
    """(path, the file line the output's first line is) when the command shows one range of one file and does
    nothing else (a `cd` before it aside): `sed -n '40,80p' f`, `cat f`, `cat -n f`, `nl f`, `head -n 20 f`."""
    parse = parse_command(command)
    run = [words for words in _commands(command) if _program(words) not in _SETUP]
    if len(run) != 1 or parse.writes_files or not parse.certain:
        return None
    prog, args = command_name(run[0][0]), list(run[0][1:])
    if prog == "sed" and len(args) == 3 and args[0] == "-n":
        match = _SED_RANGE.fullmatch(args[1])
        return (args[2], int(match.group(1))) if match else None
    if prog == "head" and args and _HEAD_COUNT.fullmatch(args[0]):
        args = args[2:] if args[0] == "-n" else args[1:]
    elif prog in ("cat", "nl") and args[:1] in (["-n"], ["-ba"], ["-b", "a"]):
        args = args[2:] if args[:2] == ["-b", "a"] else args[1:]
    elif prog not in ("cat", "nl", "head"):
        return None
    return (args[0], 1) if len(args) == 1 and not args[0].startswith("-") else None


_CONTEXT_OPTION = re.compile(r"-[ABC]\d*|--(?:after|before)?-?context(?:=\d+)?|-\d+")
_AWK_RANGE = re.compile(r"\bNR\s*(?:>=?|==)")
_SED_PRINT = re.compile(r"(?:(?:\d+|/[^/]*/),(?:\d+|\$|/[^/]*/)p;?)+")


# SWE-agent's windowed viewer: each command prints the window of at most 100 numbered lines the agent moved to.
_WINDOW_VIEWS = frozenset({"open", "goto", "scroll_up", "scroll_down", "edit"})


def chosen_range(command: str) -> bool:
    """Whether the output is a few lines the agent picked out itself: the last command of the line prints a range
    (`sed -n '120,140p'`, `head -n 30`, `tail -20`, `awk 'NR>=40 && NR<=60'`, a viewer's `--view_range`, SWE-agent's
    window after `goto 120`, `scroll_down` or `edit 12:14`) or a search's matches with their context (`grep -n -C
    3`). It asked for these lines, so a later step is about them."""
    if command.startswith("str_replace_editor ") and "--view_range" in command:
        return True
    if command.partition(" ")[0].partition("\n")[0] in _WINDOW_VIEWS:
        return True
    run = [words for words in _commands(command) if _program(words) not in _SETUP]
    if not run:
        return False
    words = run[-1]
    prog, args = command_name(words[0]), words[1:]
    if prog == "sed":          # `-n` and a range of lines or between patterns: '120,140p', '/def a/,/def b/p'
        return "-n" in args and any(_SED_PRINT.fullmatch(a) for a in args)
    if prog in ("head", "tail"):
        return any(_HEAD_COUNT.fullmatch(a) for a in args)
    if prog == "awk":
        return any(_AWK_RANGE.search(a) for a in args)
    if prog in ("grep", "egrep", "fgrep", "rg") or (prog == "git" and args[:1] == ("grep",)):
        return any(_CONTEXT_OPTION.fullmatch(a) for a in args)
    return False
