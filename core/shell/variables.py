"""What setting a variable runs (for core/shell/parse.py): a command line (`GIT_PAGER='rm f' git log`), a
program's options (TAR_OPTIONS), a startup file (BASH_ENV), a prompt bash expands (PS4); a new meaning for a name
(`BASH_ALIASES[x]=rm`) makes the line opaque, and so does a new meaning for what later commands run (PATH,
GIT_CONFIG_COUNT) or such a value from elsewhere (`read GIT_PAGER`, `export PAGER=$P`) once the line runs more than
declarations (core/shell/findings.py: Findings.rebinding_settled). The variables are core/shell/wrappers.py's."""

from __future__ import annotations

import re
import shlex

from contextual.core.shell.findings import Reader
from contextual.core.shell.latent import QUOTED_LATER
from contextual.core.shell.nodes import Word
from contextual.core.shell.options import is_stdin_path
from contextual.core.shell.wrappers import (COMMAND_VARIABLES, LOADING_VARIABLES, OPTION_VARIABLES,
                                           PROGRAM_VARIABLES, PROMPT_VARIABLES, REBINDING_VARIABLES,
                                           STARTUP_VARIABLES)

_SENSITIVE_VARIABLES = (COMMAND_VARIABLES | PROMPT_VARIABLES | STARTUP_VARIABLES | REBINDING_VARIABLES
                        | PROGRAM_VARIABLES | frozenset(OPTION_VARIABLES))
# A new meaning for a name (`BASH_ALIASES=([y]=rm)`, `BASH_CMDS[ls]=/bin/rm`) is not followed: opaque wherever set
_NEW_MEANINGS = frozenset({"BASH_CMDS", "BASH_ALIASES"})
_ASSIGNING = frozenset({"export", "declare", "typeset", "local", "readonly"})
# those whose -n makes a name for another variable (`export -n X` only stops exporting X)
_NAMING = _ASSIGNING - {"export"}
_DECLARERS = _ASSIGNING | frozenset({"read", "printf", "mapfile", "readarray", "unset"})
_ASSIGNING_EXPANSION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?=")
_SETS_VARIABLE = frozenset({"printf", "read", "mapfile", "readarray"})     # -vNAME: the name attached


class Variables:
    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.findings = reader.findings

    def assign(self, name: str, value: Word, depth: int) -> None:
        """What setting a variable runs: a command line (GIT_PAGER), a program's options (TAR_OPTIONS), a startup
        file (BASH_ENV); a new meaning for a name (BASH_ALIASES[x]=rm) makes the line opaque, one for what later
        commands run (PATH, GIT_CONFIG_COUNT, GIT_PAGER=$X) once the line runs more than declarations."""
        if value:
            self.findings.assigned.append((name, value))
        if name in LOADING_VARIABLES:
            self.findings.loading.append(name)
        if name in PROMPT_VARIABLES:                 # expanded, not run: only its substitutions run
            if value is None:
                self.findings.rebinding()
            elif any(mark in value for mark in QUOTED_LATER):
                self.reader.latent_substitutions(value, depth)
        elif value is None and (name in COMMAND_VARIABLES or name in OPTION_VARIABLES or name in PROGRAM_VARIABLES):
            self.findings.rebinding()
        elif name in COMMAND_VARIABLES and value is not None:
            # LESSOPEN='| lesspipe %s': a leading | or - says how less reads the command's output
            self.reader.script_word(value.lstrip("|-").strip(), depth)
        elif name in OPTION_VARIABLES:
            self.reader.script_word(f"{OPTION_VARIABLES[name]} {value}", depth)
        elif name in PROGRAM_VARIABLES:
            self.reader.script_word(f"{shlex.quote(str(value))} -c :", depth)
        elif name in _NEW_MEANINGS or name.startswith("BASH_FUNC_"):
            self.findings.unreadable()
        elif name in REBINDING_VARIABLES or name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            self.findings.rebinding()
        elif name in STARTUP_VARIABLES and (value is None or is_stdin_path(value)):
            self.findings.rebinding()
        elif name in STARTUP_VARIABLES and value:
            self.findings.scripts.append(value)    # `BASH_ENV=s.sh bash -c :` runs s.sh first: read from disk

    def command(self, words: list[Word], depth: int) -> None:
        """A simple command that may set a variable (as bash runs it, after `builtin`, `command` …): `export`,
        `read`, `printf -v`, `mapfile`, `unset` …"""
        if words[0] in _DECLARERS:
            self.declared(words, depth)

    def declared(self, words: list[Word], depth: int) -> None:
        """`export 'GIT_PAGER=rm f'`, `declare -x …`: the same as an assignment; `read GIT_PAGER`, `printf -v
        PAGER …`, `declare -n v=PAGER`: the value comes from elsewhere, so the line is opaque."""
        if words[0] in _NAMING and any(w is not None and w.startswith("-") and "n" in w for w in words[1:]):
            self.findings.unreadable()    # `declare -n r=BASH_CMDS`: a name for another variable
            return
        for word in words[1:]:
            if word is None:
                if words[0] in _ASSIGNING:      # `export ${V}F='rm f'`: the name is known only when it runs
                    self.findings.unreadable()
                    self.findings.exports_unknown = True
                continue
            name, sep, value = word.partition("=")
            names = _variable_names(words[0], name)
            if words[0] in _DECLARERS and words[0] != "unset":     # `export PYTHONPATH=$PYTHONPATH:.`, `read …`
                self.findings.loading += sorted(names & set(LOADING_VARIABLES))
            sensitive = names & _SENSITIVE_VARIABLES
            if sensitive and sep and words[0] in _ASSIGNING:
                self.assign(min(sensitive), value, depth)
            elif sep and value and words[0] in _ASSIGNING:
                self.findings.assigned.append((name, value))      # `export GIT_TRACE=/p/.env`
            elif (sensitive | _variable_names(words[0], value)) & _NEW_MEANINGS:
                self.findings.unreadable()
            elif sensitive or _variable_names(words[0], value) & _SENSITIVE_VARIABLES:
                self.findings.rebinding()       # `export PATH=$PATH:/x`, `read PAGER`: the value is not known

    def expansion(self, text: str) -> None:
        """`: ${GIT_PAGER:=rm f}` sets the variable it names."""
        assigned = _ASSIGNING_EXPANSION.match(text)
        if assigned and assigned.group(1) in _SENSITIVE_VARIABLES:
            self.findings.unreadable()

    def loop(self, name: str) -> None:
        """`for GIT_PAGER in 'rm f'; do export GIT_PAGER …`: each word is the variable's value in turn."""
        if name in _SENSITIVE_VARIABLES:
            self.findings.unreadable()


def _variable_names(command: Word, word: str) -> set[str]:
    """The variable a declaring word names: `BASH_CMDS[x]` is BASH_CMDS, `printf -vPS4` names PS4."""
    names = {word, word.partition("[")[0]}
    if command in _SETS_VARIABLE and word.startswith("-v") and len(word) > 2:
        names |= {word[2:], word[2:].partition("[")[0]}
    return names
