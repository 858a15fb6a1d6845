"""The simple commands a Bash command line would run, read from a real shell parse (tree-sitter-bash), for the
permission rules (core/permission_rules.py).

Every `command` node of the tree counts, and every declaration (`export X=1`, `unset X`), wherever it sits: in
`$(…)` and backticks, subshells, groups, pipelines, lists, if/while bodies, functions, here-documents. A word is
its value after quote and escape removal; a word whose value is only known when the shell runs (an expansion, a
substitution, a glob or brace pattern) is None.
Leading assignments (`X=1 rm`) are not words. A command word that runs another command (core/shell/wrappers.py:
sudo, env, xargs, find -exec, bash -c, eval, rsync -e, git -c alias …) is unwrapped: both the wrapper and what it
runs are listed. What a program's own language runs (awk's `system()`, sed's `e`, vim's `:!`;
core/shell/languages.py) is read as a nested line, and the files it names as a redirection's. Line continuations are
joined first, as bash joins them.

The line is *opaque* (no rule can be checked against it, so every Bash deny rule holds) when some of what it runs
is only known when it runs, or when the parse cannot be trusted: a syntax error (tree-sitter and bash then
disagree about the words), a backtick the tree does not read as a substitution, a command word that is None, a
shell fed an unknown script on standard input, nesting deeper than MAX_NESTING.

Text in quotes that bash may still evaluate later (`x='a[$(rm f)]'; (( x ))`, `PS4='$(rm f)'`, `${x@P}`) is
read too: its commands are *latent*, matched by deny rules and to be covered by allow rules
(core/permission_rules.py).

The reading is composed of parts, each holding its own state, owned by one `_Reading` per line (and one more for
each text read apart as latent): the tree walk (core/shell/walk.py), each simple command
(core/shell/command.py), the wrappers unwrapped (core/shell/unwrap.py, their options:
core/shell/wrapper_options.py), variables (core/shell/variables.py), aliases (core/shell/aliases.py), latent
text (core/shell/latent.py), and what was found with its verdicts (core/shell/findings.py)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from contextual.core.shell.aliases import Aliases
from contextual.core.shell.command import SimpleCommands
from contextual.core.shell.findings import MAX_NESTING, NO_INPUT, Findings, Input
from contextual.core.shell.latent import LatentText, expanded_substitutions
from contextual.core.shell.nodes import Word
from contextual.core.shell.said import ProgramFile
from contextual.core.shell.unwrap import Unwrapper
from contextual.core.shell.variables import Variables
from contextual.core.shell.walk import TreeWalk
from contextual.core.shell.wrapper_options import WrapperOptions

# `\`+newline is removed before anything else (an even run of backslashes escapes itself, not the newline)
_CONTINUATION = re.compile(r"(?<!\\)((?:\\\\)*)\\\n")
# Characters tree-sitter takes for blanks (or line ends) and bash for ordinary ones (or the reverse): a line
# holding one is not read the way bash reads it (`x=\vecho rm f` runs rm), so it is not read at all.
_MISREAD_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f"
                                 "\u205f\u3000\ufeff]")


@dataclass(frozen=True)
class ShellParse:
    commands: tuple[tuple[Word, ...], ...]   # every simple command, wrappers and what they run; words[0] is a str
    certain: bool
    writes_files: bool                       # an output redirection to a file (not /dev/null, not 2>&1)
    # Code runs whose text is only known when the shell runs it (`$CMD f`, `… | sh`, `eval "$X"`, `source
    # <(…)`), or the parse cannot be trusted (a syntax error). No rule can be checked against it, so every Bash
    # deny rule holds.
    opaque: bool = False
    # the files redirections read or write (`< .env`, `> out`), and a program's language (`sed 'r F'`), when known
    redirected: tuple[str, ...] = ()
    latent: tuple[tuple[Word, ...], ...] = ()  # commands in quoted text bash may evaluate later
    syntax_error: bool = False               # opaque because tree-sitter found a syntax error
    scripts: tuple[str, ...] = ()            # files a shell or `source` reads as its script (`bash s.sh`)
    # opaque because the parse cannot be trusted (a syntax error, characters bash reads otherwise, a token across
    # a line end, a command word that cannot be one), not only because a value is known when it runs
    misread: bool = False
    # an output redirection (or awk's `> $1`) to a file known only when it runs (`> $F`, `> s.s?`): it may be a
    # file the line runs
    writes_unknown: bool = False
    defined: tuple[str, ...] = ()            # functions and aliases the line defines: bash runs them, not a program
    # the files output redirections write (`> out`, `>> log`), and a program's language (awk's `> "F"`), when known
    written: tuple[str, ...] = ()
    inputs: tuple[Input, ...] = ()           # what each of `commands` reads on standard input (in its order)
    # a declaration of a variable whose name is known only when it runs (`export ${V}F=…`): any variable, so opaque
    exports_unknown: bool = False
    # the variables the line sets to a known value, as (name, value): a program may open the file it names
    # (`BASH_ENV=secrets/k bash`, `GIT_TRACE=/p/.env git status`; core/bash_files/)
    assigned: tuple[tuple[str, str], ...] = ()
    # the files a program takes its own commands from (`awk -f F`, `sed -f F`, `ed < F`), read from disk by the
    # permission rules (core/files_run.py); a line with one is not certain: no allow rule allows it
    program_files: tuple[ProgramFile, ...] = ()
    # the variables set on the line that make a program load code from files (`LD_LIBRARY_PATH`, `PYTHONPATH`:
    # core/shell/wrappers.py's LOADING_VARIABLES), whatever their value
    loading: tuple[str, ...] = ()


@functools.lru_cache(maxsize=128)
def parse_command(text: str) -> ShellParse:
    reading = _Reading()
    reading.script(text, 0)
    reading.latent.resolve(0)
    found = reading.findings
    found.rebinding_settled()
    return ShellParse(tuple(found.commands), found.certain, found.writes_files, found.opaque,
                      tuple(found.redirected), tuple(found.latent), found.syntax_error,
                      tuple(dict.fromkeys(found.scripts)), found.misread, found.writes_unknown,
                      tuple(dict.fromkeys([*found.functions, *reading.aliases.names()])),
                      tuple(dict.fromkeys(found.written)), tuple(found.inputs), found.exports_unknown,
                      tuple(dict.fromkeys(found.assigned)), tuple(dict.fromkeys(found.program_files)),
                      tuple(dict.fromkeys(found.loading)))


class _Reading:
    """The reading of one line: its parts, composed. Each part holds its own state and calls back through this
    one (core/shell/findings.py: Reader) for text it reads as a line of its own."""

    def __init__(self) -> None:
        self.findings = Findings()
        self.latent = LatentText(self)
        self.aliases = Aliases(self)
        variables = Variables(self)
        unwrapper = Unwrapper(self, WrapperOptions(self, variables, self.aliases), self.aliases)
        self.simple_commands = SimpleCommands(self, variables, self.aliases, self.latent, unwrapper)
        self.tree = TreeWalk(self, self.latent, variables)

    def script(self, text: str, depth: int) -> None:
        if depth > MAX_NESTING or _MISREAD_CHARACTERS.search(text):
            self.findings.misparsed()
            return
        joined = _CONTINUATION.sub(r"\1", text)
        self.tree.walk(joined, depth)
        if joined != text:                # a comment's `\`+newline ends the comment: read it as written too
            first = len(self.findings.commands)
            self.tree.walk(text, depth)
            self.findings.drop_repeats(first)

    def script_word(self, text: Word, depth: int) -> None:
        if text is None:
            self.findings.unreadable()
        else:
            self.script(text, depth + 1)

    def add(self, words: list[Word], depth: int, stdin: Word = "", given: Input = NO_INPUT) -> None:
        self.simple_commands.add(words, depth, stdin, given)

    def substitutions(self, text: str, depth: int) -> None:
        found = expanded_substitutions(text)
        if found is None:
            self.findings.unreadable()
            return
        for inner in found:
            self.script(inner, depth + 1)

    def latent_substitutions(self, text: str, depth: int) -> None:
        found = expanded_substitutions(text)
        if found is None:
            self.findings.unreadable()
            return
        apart = _Reading()                # read apart, as a line of its own
        for inner in found:
            apart.script(inner, depth + 1)
        apart.latent.resolve(depth + 1)
        self.findings.latent.extend(apart.findings.commands + apart.findings.latent)
        self.findings.rebinds |= apart.findings.rebinds        # settled with the whole line's commands
        if apart.findings.opaque:
            self.findings.unreadable()
