"""The simple commands a Bash command line would run, read from a real shell parse (tree-sitter-bash), for the
permission rules (core/permission_rules.py).

Every `command` node of the tree counts, wherever it sits: in `$(…)` and backticks, subshells, groups, pipelines,
lists, if/while bodies, functions, here-documents. A word is its value after quote and escape removal; a word
whose value is only known when the shell runs (an expansion, a substitution, a glob or brace pattern) is None.
Leading assignments (`X=1 rm`) are not words. A command word that runs another command (core/shell_wrappers.py:
sudo, env, xargs, find -exec, bash -c, eval, rsync -e, git -c alias …) is unwrapped: both the wrapper and what it
runs are listed. Line continuations are joined first, as bash joins them.

The line is *opaque* (no rule can be checked against it, so every Bash deny rule holds) when some of what it runs
is only known when it runs, or when the parse cannot be trusted: a syntax error (tree-sitter and bash then
disagree about the words), a backtick the tree does not read as a substitution, a command word that is None, a
shell fed an unknown script on standard input, nesting deeper than MAX_NESTING.

Text in quotes that bash may still evaluate later (`x='a[$(rm f)]'; (( x ))`, `PS4='$(rm f)'`, `${x@P}`) is
read too: its commands are *latent*, matched by deny rules and to be covered by allow rules
(core/permission_rules.py)."""

from __future__ import annotations

import fnmatch
import functools
import re
import shlex
import threading
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from contextual.core.shell_nodes import (Word, ansi_c_value, backticks, command_name, declaration_words,
                                        escaped_string, evaluates, evaluating, heredoc_quoted, heredoc_read_as_bash,
                                        heredoc_text, herestring_text, inside, standard_input, substitution_texts,
                                        word_value)
from contextual.core.shell_options import (is_script_option, is_stdin_path, long_option, old_style, replace_string,
                                          replaced, setting_value, takes_next_word)
from contextual.core.shell_wrappers import (COMMAND_VARIABLES, OPTION_VARIABLES, PROMPT_VARIABLES,
                                           REBINDING_VARIABLES, SHELL, STARTUP_VARIABLES, WRAPPERS,
                                           Wrapper)

MAX_NESTING = 8          # bash -c "eval 'sh -c …'": deeper than this is uncertain
MAX_UNWRAP = 16          # sudo env nice timeout … in a row
MAX_ALIAS_READS = 64     # a command word read again with an alias' text in its place, per line


_SOURCES = {"source", "."}            # run a file's text in this shell: a file on disk is not read here
_WRITE_OPERATORS = {">", ">>", ">|", "&>", "&>>", "<>"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NAMED_FD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")     # `exec {fd}>file`: the shell picks a descriptor
# `\`+newline is removed before anything else (an even run of backslashes escapes itself, not the newline)
_CONTINUATION = re.compile(r"(?<!\\)((?:\\\\)*)\\\n")
_QUOTED_LATER = ("$(", "`")                  # quoted text that runs a command if bash evaluates it later
_LITERAL_SPANS = ("raw_string", "ansi_c_string", "comment")     # where a backtick is only a character
# Characters tree-sitter takes for blanks (or line ends) and bash for ordinary ones (or the reverse): a line
# holding one is not read the way bash reads it (`x=\vecho rm f` runs rm), so it is not read at all.
_MISREAD_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f"
                                 "\u205f\u3000\ufeff]")
# Nodes whose own text is one token for bash: a line end in it, or between two of their parts, means tree-sitter
# joined what bash splits (`echo\n\\rm f`, `echo =~\nrm f`, `: <\nrm f`).
_ONE_LINE_NODES = frozenset({"command", "command_name", "word", "regex", "number", "concatenation",
                             "file_redirect", "herestring_redirect", "variable_assignment", "extglob_pattern"})
# Leaves tree-sitter keeps whole where bash still expands a `$(`: `${x#$(rm f)}`
_OPAQUE_LEAVES = frozenset({"regex", "extglob_pattern"})
_NUMBER_LIKE = re.compile(r"[-+]\S*|[\d.,:]*\d[\d.,:]*")        # an option or a value, never a program
_LOADER = re.compile(r"ld(-linux[-\w.]*|-musl[-\w.]*)?\.so(\.\d+)*")   # runs the program it is given
# Builtins that run text later or elsewhere: `fc -s` replays history, `compgen -C CMD` and `complete -C CMD` run
# CMD, `set -k` makes every NAME=VALUE word an assignment (GIT_SSH_COMMAND=… after `git`).
_RUNS_LATER = frozenset({"fc", "compgen", "complete"})
_OTHER_GRAMMARS = frozenset({"zsh", "ksh", "mksh", "tcsh", "csh", "yash", "fish"})   # not bash's quoting
_POSIX_SHELLS = frozenset({"sh", "dash", "ash"})          # no $'…' quoting: `\$'\\'` ends differently


@dataclass(frozen=True)
class ShellParse:
    commands: tuple[tuple[Word, ...], ...]   # every simple command, wrappers and what they run; words[0] is a str
    certain: bool
    writes_files: bool                       # an output redirection to a file (not /dev/null, not 2>&1)
    # Code runs whose text is only known when the shell runs it (`$CMD f`, `… | sh`, `eval "$X"`, `source
    # <(…)`), or the parse cannot be trusted (a syntax error). No rule can be checked against it, so every Bash
    # deny rule holds.
    opaque: bool = False
    redirected: tuple[str, ...] = ()         # the files redirections read or write (`< .env`, `> out`), when known
    latent: tuple[tuple[Word, ...], ...] = ()  # commands in quoted text bash may evaluate later
    syntax_error: bool = False               # opaque because tree-sitter found a syntax error
    scripts: tuple[str, ...] = ()            # files a shell or `source` reads as its script (`bash s.sh`)
    # opaque because the parse cannot be trusted (a syntax error, characters bash reads otherwise, a token across
    # a line end, a command word that cannot be one), not only because a value is known when it runs
    misread: bool = False
    # an output redirection to a file known only when it runs (`> $F`, `> s.s?`): it may be a file the line runs
    writes_unknown: bool = False
    defined: tuple[str, ...] = ()            # functions and aliases the line defines: bash runs them, not a program


_thread = threading.local()


def _parser() -> Parser:
    """This thread's parser: a tree-sitter Parser is not to be shared between threads, and the permission check
    runs in a worker thread (core/engine/permission_gate.py) while the screen may parse a line for a preview."""
    parser: Parser | None = getattr(_thread, "parser", None)
    if parser is None:
        parser = _thread.parser = Parser(_language())
    return parser


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


@functools.lru_cache(maxsize=128)
def parse_command(text: str) -> ShellParse:
    collector = _Collector()
    collector.script(text, 0)
    collector.resolve_quoted(0)
    return ShellParse(tuple(collector.commands), collector.certain, collector.writes_files, collector.opaque,
                      tuple(collector.redirected), tuple(collector.latent), collector.syntax_error,
                      tuple(dict.fromkeys(collector.scripts)), collector.parse_failed, collector.writes_unknown,
                      tuple(dict.fromkeys([*collector.functions, *collector.shell_aliases])))


@dataclass
class _Collector:
    commands: list[tuple[Word, ...]] = field(default_factory=list)
    certain: bool = True
    writes_files: bool = False
    opaque: bool = False
    syntax_error: bool = False
    redirected: list[str] = field(default_factory=list)
    latent: list[tuple[Word, ...]] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)   # git -c alias.NAME=VALUE on this line
    shell_aliases: dict[str, list[str]] = field(default_factory=dict)   # `alias NAME=VALUE` on this line
    expanding: set[str] = field(default_factory=set)      # the aliases being read in their place
    alias_reads: int = 0
    quoted: list[str] = field(default_factory=list)       # quoted text holding `$(`, read if the line evaluates
    evaluates: bool = False                                # an arithmetic, `${x@P}`, `read`, `printf -v` …
    scripts: list[str] = field(default_factory=list)
    parse_failed: bool = False
    writes_unknown: bool = False
    functions: list[str] = field(default_factory=list)

    def unreadable(self) -> None:
        self.certain, self.opaque = False, True

    def misread(self) -> None:
        """Unreadable because the parse itself cannot be trusted (not only a value known when it runs)."""
        self.unreadable()
        self.parse_failed = True

    def script(self, text: str, depth: int) -> None:
        if depth > MAX_NESTING or _MISREAD_CHARACTERS.search(text):
            self.misread()
            return
        joined = _CONTINUATION.sub(r"\1", text)
        self._walk(joined, depth)
        if joined != text:                # a comment's `\`+newline ends the comment: read it as written too
            first = len(self.commands)
            self._walk(text, depth)
            known = set(self.commands[:first])
            self.commands[first:] = [c for c in self.commands[first:] if c not in known]   # the same line twice

    def resolve_quoted(self, depth: int) -> None:
        """Once the whole line is read (a nested `bash -c` is part of it): if anything on it evaluates text, the
        quoted `$(…)` it holds are read as latent commands."""
        if self.evaluates and depth < MAX_NESTING:
            for quoted in self.quoted:
                self._substitutions(quoted, depth, _Collector())
        self.quoted.clear()

    def _walk(self, text: str, depth: int) -> None:
        source = text.encode("utf-8", errors="replace")
        root = _parser().parse(source).root_node
        if root.has_error:
            self.syntax_error = True
            self.misread()
        literal: list[tuple[int, int]] = []       # byte spans where a backtick is a character or was read
        stack = [root]
        while stack:                      # iterative: a deeply nested line must not exhaust Python's stack
            node = stack.pop()
            kind = node.type
            if kind == "command":
                self._command(node, depth)
            elif kind == "redirected_statement":
                self._note_stdin(node, literal)
            elif kind == "heredoc_redirect" and not heredoc_read_as_bash(node):
                self.misread()            # `cat <<E"F"`: bash ends it at `EF`, tree-sitter at `E"F"`
            elif kind == "file_redirect":
                self._redirect(node)
            elif kind == "variable_assignment":
                self._assignment(node, depth)
            elif kind == "command_substitution":
                literal.append((node.start_byte, node.end_byte))
                self._nested_backticks(node, depth)
            elif kind == "raw_string" and inside(node, "string"):
                # "${x:-'$(rm f)'}": inside double quotes a ' is a character, and the $( ) runs now
                self._substitutions((node.text or b"").decode("utf-8", errors="replace")[1:-1], depth, self)
                literal.append((node.start_byte, node.end_byte))
            elif kind in _LITERAL_SPANS:
                literal.append((node.start_byte, node.end_byte))
            elif kind == "declaration_command":
                self._declared(declaration_words(node), depth)
            elif kind == "function_definition" and (named := node.child_by_field_name("name")) is not None:
                self.functions.append((named.text or b"").decode("utf-8", errors="replace"))
            elif kind == "expansion" and (assigned := _ASSIGNING_EXPANSION.match(
                    (node.text or b"").decode("utf-8", "replace"))):
                if assigned.group(1) in _SENSITIVE_VARIABLES:
                    self.unreadable()     # `: ${GIT_PAGER:=rm f}` sets it
            elif kind == "for_statement":
                variable = node.child_by_field_name("variable")
                if variable is not None and (variable.text or b"").decode() in _SENSITIVE_VARIABLES:
                    self.unreadable()     # `for GIT_PAGER in 'rm f'; do export GIT_PAGER …`
            if kind in ("raw_string", "string", "ansi_c_string", "concatenation", "word"):
                self._quoted_later(node)
            if kind in _ONE_LINE_NODES and _spans_a_line_end(node, source):
                self.misread()
            if kind in _OPAQUE_LEAVES and b"$(" in (node.text or b""):
                self.misread()
            self.evaluates |= evaluates(node)
            stack.extend(reversed(node.children))
        if any(not any(a <= at < b for a, b in literal) for at in backticks(source)):
            self.misread()                # `${x:-`rm f`}`, an unquoted here-document's `…`: not read as code

    def _nested_backticks(self, node: Node, depth: int) -> None:
        """Inside `…`, bash turns \\` into a backtick and reads the text again: `echo \\`rm f\\``."""
        text = (node.text or b"").decode("utf-8", errors="replace")
        if text.startswith("`") and "\\`" in text:
            self.script(re.sub(r"\\([\\`$])", r"\1", text[1:-1]), depth + 1)

    def _quoted_later(self, node: Node) -> None:
        """Quoted text holding `$(` or a backtick (escaped, in double quotes): it runs only if bash evaluates the
        text later, which the line may do (an arithmetic subscript, `${x@P}`, `read`, `printf -v`); kept to read
        then. A commit message's `rm -rf build` in backticks is text."""
        if node.type == "word" and "\\" not in (node.text or b"").decode("utf-8", errors="replace"):
            return
        value = word_value(node) if node.type != "string" else escaped_string(node)
        if node.type == "ansi_c_string" and value is None:
            # `$'a[\x24(rm f)]'` is `a[$(rm f)]`; a `\c` escape is read as unsure
            inner = (node.text or b"").decode("utf-8", errors="replace")[2:-1]
            value = ansi_c_value(inner)
            if value is None:
                value = "$(("
        if value and (any(mark in value for mark in _QUOTED_LATER) or _UNSURE_EXPANSION.search(value)):
            self.quoted.append(value)

    def _substitutions(self, text: str, depth: int, into: "_Collector") -> None:
        """The `$(…)` and backtick substitutions of text bash expands (a prompt, an evaluated string): each one's
        inside is read as a line; text around them is only text. One that does not close is unreadable."""
        found = substitution_texts(text)
        # `$((rm f) )` is a substitution once it fails as arithmetic; a prompt's `\044(` is `$(`; a `#` in one
        # may hide its `)`: text bash expands later is read only when nothing like that is in it
        if found is None or _UNSURE_EXPANSION.search(text) or any("#" in inner for inner in found):
            self.unreadable()
            return
        for inner in found:
            into.script(inner, depth + 1)
        if into is not self:
            into.resolve_quoted(depth + 1)
            self.latent.extend(into.commands + into.latent)
            if into.opaque:
                self.unreadable()

    def _redirect(self, node: Node) -> None:
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = node.child_by_field_name("destination")
        if operator in (">&", "<&", ">&-", "<&-") and (target is None or target.type == "number"
                                                      or word_value(target) == "-"):
            return                        # a descriptor copied or closed: 2>&1
        named = word_value(target) if target is not None else None
        if named:
            self.redirected.append(named)
        if operator in _WRITE_OPERATORS or operator == ">&":
            if target is None or word_value(target) != "/dev/null":
                self.writes_files = True
            if named is None:
                self.writes_unknown = True

    def _note_stdin(self, node: Node, literal: list[tuple[int, int]]) -> None:
        """A quoted here-document's body is text, not code; a here-document or here-string holding `$(` is kept
        in case the line evaluates what `read` stores from it. What a command reads: `standard_input`."""
        for child in node.children:
            if child.type == "heredoc_redirect" and heredoc_quoted(child):
                literal.extend((c.start_byte, c.end_byte) for c in child.children if c.type == "heredoc_body")
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            return
        for child in node.children:
            text = heredoc_text(child) if child.type == "heredoc_redirect" else \
                herestring_text(child) if child.type == "herestring_redirect" else None
            if text and any(mark in text for mark in _QUOTED_LATER):
                self.quoted.append(text)  # `read x <<'E'` … `a[$(rm f)]`: what read stores, (( x )) may evaluate

    def _assignment(self, node: Node, depth: int) -> None:
        name_node, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        name = (name_node.text or b"").decode("utf-8", errors="replace") if name_node is not None else ""
        self._variable(name.partition("[")[0], word_value(value) if value is not None else "", depth)

    def _variable(self, name: str, value: Word, depth: int) -> None:
        """What setting a variable runs: a command line (GIT_PAGER), a program's options (TAR_OPTIONS), a startup
        file (BASH_ENV); a new meaning for a name (BASH_ALIASES[x]=rm, GIT_CONFIG_COUNT) makes the line opaque."""
        if name in PROMPT_VARIABLES:                 # expanded, not run: only its substitutions run
            if value is None:
                self.unreadable()
            elif any(mark in value for mark in _QUOTED_LATER):
                self._substitutions(value, depth, _Collector())
        elif name in COMMAND_VARIABLES:
            # LESSOPEN='| lesspipe %s': a leading | or - says how less reads the command's output
            self._script_word(None if value is None else value.lstrip("|-").strip(), depth)
        elif name in OPTION_VARIABLES:
            self._script_word(None if value is None else f"{OPTION_VARIABLES[name]} {value}", depth)
        elif name in REBINDING_VARIABLES or name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "BASH_FUNC_")):
            self.unreadable()
        elif name in STARTUP_VARIABLES and (value is None or is_stdin_path(value)):
            self.unreadable()
        elif name in STARTUP_VARIABLES and value:
            self.scripts.append(value)    # `BASH_ENV=s.sh bash -c :` runs s.sh first: read from disk

    def _command(self, node: Node, depth: int) -> None:
        name = node.child_by_field_name("name")
        if name is None:                  # assignments only
            return
        arguments = node.children_by_field_name("argument")
        if arguments and _NAMED_FD.fullmatch((arguments[-1].text or b"").decode("utf-8", errors="replace")) \
                and node.parent is not None and node.parent.type == "redirected_statement":
            arguments = arguments[:-1]    # `exec {fd}>lock`: the descriptor's name, not an argument
        words = [word_value(name)] + [word_value(arg) for arg in arguments]
        self._add(words, depth, standard_input(node))

    def _alias_used(self, words: list[Word], depth: int) -> None:
        """`alias A=''`, `alias A=command`, `alias A='X=1 '`, then `A rm f`: bash puts the alias' text in the word's
        place and reads the line on, so the words after it may be the command (`rm f`). Each value the line gave
        the name is read with the words after it; an unknown word stays unknown."""
        name = str(words[0])
        values = list(dict.fromkeys(self.shell_aliases[name]))
        self.alias_reads += len(values)
        if depth >= MAX_NESTING or self.alias_reads > MAX_ALIAS_READS:
            self.unreadable()             # aliases naming aliases, each with many values: k**depth readings
            return
        rest = " ".join('"$_"' if w is None else shlex.quote(w) for w in words[1:])
        self.expanding.add(name)          # bash does not expand an alias in its own text (`alias ls='ls -l'`)
        for value in values:
            self.script(f"{value} {rest}", depth + 1)
        self.expanding.discard(name)

    def _plausible(self, words: list[Word], name: str) -> bool:
        """Whether the words can be read as the command bash runs: a program's name, not an option or a value a
        wrapper's unknown option left in its place (`numactl -C 0 rm f`), a placeholder another program fills in
        (`find … -exec '{}' f ';'`), a descriptor or /proc path, another shell's grammar, a builtin that runs
        text later. `exec -a rm busybox f` and a loader's --argv0 run under a name of their choosing: that name
        is listed too."""
        word = str(words[0])
        if _NUMBER_LIKE.fullmatch(word) or "{" in word or "}" in word or word.startswith(("/dev/", "/proc/")):
            return False
        if name in _RUNS_LATER or (name == "set" and any(w is None or (w.startswith("-") and "k" in w)
                                                         or w == "keyword" for w in words[1:])):
            return False
        if name in _OTHER_GRAMMARS and any(w not in ("--version", "--help") for w in words[1:]):
            return False
        if name in _POSIX_SHELLS and any(w is None or "$'" in w for w in words[1:]):
            return False
        for option in ("-a", "--argv0"):
            if (name == "exec" or _LOADER.fullmatch(name)) and option in words[1:-1]:
                self.commands.append(tuple(words[words.index(option) + 1:]))
        return True

    def _declared(self, words: list[Word], depth: int) -> None:
        """`export 'GIT_PAGER=rm f'`, `declare -x …`: the same as an assignment; `read GIT_PAGER`, `printf -v
        PAGER …`, `declare -n v=PAGER`: the value comes from elsewhere, so the line is opaque."""
        if words[0] in _ASSIGNING and any(w is not None and w.startswith("-") and "n" in w for w in words[1:]):
            self.unreadable()             # `declare -n r=BASH_CMDS`: a name for another variable
            return
        for word in words[1:]:
            if word is None:
                continue
            name, sep, value = word.partition("=")
            names = _variable_names(words[0], name)
            sensitive = names & _SENSITIVE_VARIABLES
            if sensitive and sep and words[0] in _ASSIGNING:
                self._variable(min(sensitive), value, depth)
            elif sensitive or _variable_names(words[0], value) & _SENSITIVE_VARIABLES:
                self.unreadable()

    def _add(self, words: list[Word], depth: int, stdin: Word = "") -> None:
        open_tail = False
        for _ in range(MAX_UNWRAP):
            if not words or words[0] is None:
                self.unreadable()         # the command is only known when it runs
                return
            self.commands.append(tuple(words))
            # each command a wrapper runs too: `builtin export GIT_SSH_COMMAND=…`, `command unset 'a[$(…)]'`
            if words[0] in _DECLARERS:
                self._declared(words, depth)
            self.evaluates |= evaluating(words)
            if words[0] in self.shell_aliases and words[0] not in self.expanding:
                self._alias_used(words, depth)
            name = command_name(words[0])
            if not self._plausible(words, name):
                self.misread()
                return
            if name in _SOURCES:
                if len(words) < 2 or words[1] is None:
                    self.unreadable()     # `source <(…)`, `. "$X"`: a script made when it runs
                elif is_stdin_path(words[1]):
                    self._script_word(stdin or None, depth)     # `source /dev/stdin <<< 'rm f'`
                else:
                    self.scripts.append(words[1])    # read from disk by the permission rules
                return
            if name == "hash" and any(w is None or (w.startswith("-") and "p" in w) for w in words[1:]):
                self.unreadable()         # `hash -p /bin/rm ls`: a name now runs another program
                return
            wrapper = WRAPPERS.get(name) or (_LOADER_WRAPPER if _LOADER.fullmatch(name) else None)
            if wrapper is None:
                return
            # open_tail: xargs' command, whose last (unknown) word stands for the words it reads
            inner = self._unwrap(wrapper, words[1:], depth, stdin, open_tail)
            if inner is None:
                return
            words, open_tail = inner, wrapper.appends_input
        self.unreadable()

    def _unwrap(self, wrapper: Wrapper, rest: list[Word], depth: int, stdin: Word = "",
                open_tail: bool = False) -> list[Word] | None:
        """The command the wrapper runs (None when it runs none or it was handed on as shell text). `stdin`: the
        text the line hands it on standard input ("" when none is known to, None when it is made when it runs)."""
        if self._handed_elsewhere(wrapper, rest, depth):
            return None
        if wrapper.old_style and rest and rest[0] and rest[0].isalpha():
            rest = old_style(rest, wrapper)       # `tar xIf CMD a.tar` is `tar -x -I CMD -f a.tar`
        if wrapper.dashdash_shell and "--" in rest:
            after = rest[rest.index("--") + 1:]
            shell = next((w.partition("=")[2] for w in rest if w is not None and w.startswith("--shell=")), None)
            if shell is not None:
                return [shell, *after]    # `capsh --shell=/bin/rm -- f` runs that program with the words after --
            return self._unwrap(SHELL, after, depth, stdin)   # `capsh -- -c 'rm f'`
        if wrapper.permute and self._permuted(wrapper, rest, depth):
            return None
        original = rest
        i = self._options(wrapper, rest, depth)
        if i is None:
            return None
        reads_stdin = i < 0             # a shell's -s: the script is standard input, the words its arguments
        if reads_stdin:
            i = -i - 1
        if any(w in wrapper.runs_nothing for w in rest[:i] if w is not None):
            return None                   # `command -v rm`: a lookup
        if wrapper.config_pair:
            self._config_pair(wrapper, rest[i:], depth)
            return None
        sub = rest[i] if i < len(rest) else None
        if sub is not None and sub in self.aliases and depth < MAX_NESTING:
            self._git_alias(sub, rest[i + 1:], depth, stdin)
            return None
        if sub is not None and sub in wrapper.subcommands:
            return self._unwrap(wrapper.subcommands[sub], rest[i + 1:], depth, stdin)   # `git rebase -x …`
        command = self._command_words(wrapper, rest, i, depth, open_tail)
        if command is None:
            return None
        return self._what_runs(wrapper, command, original, reads_stdin, depth, stdin, open_tail)

    def _handed_elsewhere(self, wrapper: Wrapper, rest: list[Word], depth: int) -> bool:
        """A wrapper whose words name no command it runs next: commands from elsewhere, find's -exec lists,
        alias definitions, a transport that runs a command named in a URL. True when so (what they run is read)."""
        if wrapper.opaque:
            self.unreadable()             # tmux run-shell, source-file …: commands from elsewhere
            return True
        if wrapper.exec_options:
            self._find_exec(wrapper, rest, depth)
            return True
        if wrapper.alias_values:
            for word in rest:
                if word is None or "=" in word:
                    self._script_word(None if word is None else word.partition("=")[2], depth)
                if word is not None and "=" in word:
                    name, _, value = word.partition("=")
                    self.shell_aliases.setdefault(name, []).append(value)
            return True
        if any(w is not None and (any(mark in w for mark in wrapper.opaque_markers) or w in wrapper.opaque_words)
               for w in rest):
            self.unreadable()             # git's `ext::` transport runs a command named in a URL
            return True
        return False

    def _config_pair(self, wrapper: Wrapper, words: list[Word], depth: int) -> None:
        """`git config alias.e '!rm f'`: a setting that later runs a command."""
        plain = [w for w in words if w is None or not w.startswith("-")]
        if plain[:1] == ["set"]:
            plain = plain[1:]         # git 2.46's `git config set NAME VALUE`
        if len(plain) >= 2:
            self._setting(None if None in plain[:2] else f"{plain[0]}={plain[1]}", wrapper, depth)

    def _git_alias(self, name: str, after: list[Word], depth: int, stdin: Word) -> None:
        """`git -c alias.r=rebase r -x 'rm f'`: the alias, then the words after it."""
        value = self.aliases.pop(name)
        if value.startswith("!"):
            self._script_word(None if None in after else " ".join([value[1:], *after]), depth)  # type: ignore[list-item]
        else:
            self._add(["git", *value.split(), *after], depth + 1, stdin)     # `git -c alias.p=push p` is `git push`

    def _command_words(self, wrapper: Wrapper, rest: list[Word], i: int, depth: int, open_tail: bool
                       ) -> list[Word] | None:
        """The words from the command the wrapper runs on (``i``: the first word after its options): past its
        positional words and the options after them, up to the word that ends them. None when unreadable."""
        if wrapper.named_compound and len(rest) > i + 1 and rest[i + 1] in ("{", "(", None):
            self.unreadable()             # `coproc NAME { rm f; }`: the parser splits the body off the command
            return None
        if wrapper.positional and (len(rest) <= i + wrapper.positional or None in rest[i:i + wrapper.positional]):
            if open_tail or len(rest) > i + wrapper.positional:
                self.unreadable()         # `timeout $T 5 rm`, `… | xargs timeout`: which word is the command is unknown
                return None
        rest = rest[i + wrapper.positional:]
        if wrapper.options_after_positional:
            j = self._options(wrapper, rest, depth)
            if j is None:
                return None
            rest = rest[abs(j) - 1 if j < 0 else j:]
        if wrapper.until:
            end = next((j for j, w in enumerate(rest) if w in wrapper.until), len(rest))
            rest = rest[:end]
            if not rest:
                self.unreadable()         # `… | parallel`: the commands are the lines it reads
                return None
        return rest

    def _what_runs(self, wrapper: Wrapper, rest: list[Word], original: list[Word], reads_stdin: bool, depth: int,
                   stdin: Word, open_tail: bool) -> list[Word] | None:
        """What the command words run: shell text read here (a script, standard input, each word its own line),
        a script on disk, or the command itself (its words returned). ``original``: all the wrapper's words."""
        if wrapper.default_shell and not (rest and wrapper.runs_rest) and not any(
                w in wrapper.runs_nothing | wrapper.nothing_alone for w in original if w is not None):
            self._script_word(stdin or None, depth)    # `su <<< 'rm f'`: a shell reading standard input
            return None
        if wrapper.each_word_script:
            for word in rest:
                self._script_word(word, depth)     # pee, mispipe: each word its own command line
            return None
        if wrapper.script_rest:
            if rest:
                # parallel adds its arguments after the command: words only known then
                tail = ' "$ARGUMENT"' if wrapper.until else ""
                self._script_word(None if None in rest else " ".join(rest) + tail, depth)   # type: ignore[arg-type]
            return None
        if not wrapper.runs_rest:
            if wrapper is SHELL and (reads_stdin or not rest or is_stdin_path(rest[0] or "")):
                # its script is standard input: a here-document read here, anything else (`echo rm f | sh`) unknown
                self._script_word(stdin or None, depth)
            elif wrapper is SHELL and rest[0] is not None:
                self.scripts.append(rest[0])      # `bash s.sh`: read from disk by the permission rules
            elif wrapper is SHELL:
                self.unreadable()         # `bash "$F"`
            return None
        if not rest and open_tail:
            self.unreadable()             # `… | xargs sudo`: the command is what it reads
            return None
        if not rest:
            return list(wrapper.default) or None
        if wrapper.replace_options:
            rest = replaced(rest, replace_string(original))
        # xargs: the words it reads follow the command (`xargs env` runs what it reads)
        return list(rest) + [None] if wrapper.appends_input else list(rest)

    def _options(self, wrapper: Wrapper, rest: list[Word], depth: int) -> int | None:
        """Read the wrapper's leading options: the index of the first other word (-(index + 1) when a shell's -s
        was among them), or None when the wrapper was handed on as shell text or cannot be read."""
        reads_stdin = False
        i = 0
        while i < len(rest):
            word = rest[i]
            if word is None and wrapper.positional and i + 1 >= len(rest):
                break                     # `flock $FD`: the positional word, and nothing after it runs
            if word is None:
                self.unreadable()         # `sudo $OPTS rm`: what the wrapper runs is only known then
                return None
            if word == "--":
                i += 1
                while wrapper.assignments and i < len(rest) and rest[i] is not None and "=" in (rest[i] or ""):
                    self._variable(*(rest[i] or "").partition("=")[::2], depth)      # `env -- X=1 rm f`
                    i += 1
                break
            option, _, attached = word.partition("=")
            option = long_option(option, wrapper) if word.startswith("--") else option
            if is_script_option(word, wrapper):
                # bash -c [options] TEXT: the first word after -c that is not an option (nor an option's value:
                # `bash -co errexit TEXT`, `bash -c -O extglob TEXT`)
                self._script_word(attached if "=" in word and word.startswith("--") else
                                  _script_after(wrapper, word, list(rest[i + 1:])), depth)
                return None
            if word.startswith(("-", "+")) and len(word) > 1:
                following = rest[i + 1] if i + 1 < len(rest) else None
                if wrapper.command_options and not wrapper.permute:      # permuted ones were read already
                    self._command_option(word, option, attached, following, wrapper, depth)
                reads_stdin |= wrapper is SHELL and word.startswith("-") and not word.startswith("--") and "s" in word
                bundled = _bundled_value(word, following, wrapper)
                if bundled is not None:
                    option, value = bundled
                    # `ssh -F cfg`, `-qFcfg`: a config file, whose ProxyCommand or LocalCommand ssh runs
                    if value is None or is_stdin_path(value) or value != "/dev/null":
                        self.unreadable()
                        return None
                if option in wrapper.opaque_options or (wrapper is SHELL and option in ("--rcfile", "--init-file")):
                    value = attached if "=" in word else following
                    if value is None or is_stdin_path(value) or option == "--config-env":
                        self.unreadable()         # `bash --rcfile <(echo rm f) -ic :`, `ssh -F /dev/stdin`
                        return None
                    if wrapper is SHELL:
                        self.scripts.append(value)    # `bash --rcfile s.sh -ic :` runs s.sh: read from disk
                takes_next = takes_next_word(word, option, attached, wrapper)
                setting = setting_value(word, following, wrapper)
                if setting != "":
                    # `ssh -o ProxyCommand='rm f' host`, `-qo…`: a setting whose value is a command line it runs
                    self._setting(setting, wrapper, depth)
                i += 2 if takes_next else 1
                continue
            if wrapper.assignments and "=" in word and not word.startswith("-"):   # `env 1=1 rm f` runs rm
                name, _, value = word.partition("=")
                self._variable(name, value, depth)
                i += 1
                continue
            break
        return -(i + 1) if reads_stdin else i

    def _permuted(self, wrapper: Wrapper, rest: list[Word], depth: int) -> bool:
        """GNU getopt reads options anywhere (`su root -c 'rm f'`, `rsync a b -e 'rm f'`): the script option
        and the command options among all the words. True when the script option handed the rest on."""
        for i, word in enumerate(rest):
            if word is None or not word.startswith("-") or word == "-":
                continue
            if word == "--" and not wrapper.script_option:
                return False              # su and runuser hand what follows `--` to the shell: read on
            following = rest[i + 1] if i + 1 < len(rest) else None
            if is_script_option(word, wrapper):
                self._script_word(following, depth)
                return True
            option, _, attached = word.partition("=")
            self._command_option(word, option, attached, following, wrapper, depth)
        return False

    def _setting(self, setting: Word, wrapper: Wrapper, depth: int) -> None:
        if setting is None:
            self.unreadable()             # `ssh -o "$OPT" host`: which setting is only known when it runs
            return
        found = re.match(r"\s*([^=\s]*)\s*(?:=|\s)\s*(.*)\Z", setting, re.S)    # NAME=VALUE, NAME VALUE, a tab
        name, value = (found.group(1), found.group(2)) if found else (setting, "")
        name, value = name.strip().lower(), value.strip()
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.opaque_settings):
            self.unreadable()             # git include.path: more settings, from a file
        elif any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.command_settings):
            self._script_word(value[1:] if value.startswith("!") else value, depth)     # git runs `!cmd` in sh
        elif any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.bang_settings):
            self.aliases[name.partition(".")[2]] = value
            if value.startswith("!"):
                self._script_word(value[1:], depth)     # git: `alias.x='!rm f'` is shell text, used or not

    def _command_option(self, word: str, option: str, attached: str, following: Word, wrapper: Wrapper,
                        depth: int) -> None:
        """`rsync -e 'ssh -p 2'`, `-avze ssh`, `-essh`, `tar --to-command='sh x'` (or `--to-c=`, as getopt takes
        a long option's unique start): an option whose value is a command line the program runs."""
        if option in wrapper.command_options and len(option) > 2 and not word.startswith("--"):
            self._script_word(attached if "=" in word else following, depth)     # zip's `-TT CMD`: two letters
            return
        if word.startswith("--"):
            option = long_option(option, wrapper)
            if option == "--checkpoint-action":
                action = attached if "=" in word else (following or "")
                if action.startswith("exec="):
                    self._script_word(action[len("exec="):], depth)      # tar --checkpoint-action=exec=CMD
                return
            if option in wrapper.command_options:
                self._script_word(_split_string(option, attached if "=" in word else following), depth)
            return
        for position, letter in enumerate(word[1:], start=1):
            if "-" + letter in wrapper.value_options:         # getopt: the first letter taking a value ends it
                if "-" + letter in wrapper.command_options:
                    self._script_word(_split_string("-" + letter, word[position + 1:] or following), depth)
                return

    def _find_exec(self, wrapper: Wrapper, rest: list[Word], depth: int) -> None:
        i = 0
        while i < len(rest):
            word = rest[i]
            bundled = word is not None and re.fullmatch(r"-[A-Za-z]+", word) is not None and \
                "-" + word[-1] in wrapper.exec_options        # fd's `-Hx rm`: the last letter of a bundle
            if word in wrapper.exec_options or bundled:
                end = i + 1
                while end < len(rest) and not (rest[end] == ";" or (rest[end] == "+" and rest[end - 1] == "{}")):
                    end += 1
                self._add(list(rest[i + 1:end]), depth)
                i = end
            i += 1

    def _script_word(self, text: Word, depth: int) -> None:
        if text is None:
            self.unreadable()
        else:
            self.script(text, depth + 1)


_LOADER_WRAPPER = Wrapper(value_options=frozenset({"--library-path", "--preload", "--audit", "--argv0"}))
_SENSITIVE_VARIABLES = (COMMAND_VARIABLES | PROMPT_VARIABLES | STARTUP_VARIABLES | REBINDING_VARIABLES
                        | frozenset(OPTION_VARIABLES))
_ASSIGNING = frozenset({"export", "declare", "typeset", "local", "readonly"})
_DECLARERS = _ASSIGNING | frozenset({"read", "printf", "mapfile", "readarray", "unset"})
_ASSIGNING_EXPANSION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?=")
_UNSURE_EXPANSION = re.compile(r"\$\(\(|\\[0-7xuU]")
_SETS_VARIABLE = frozenset({"printf", "read", "mapfile", "readarray"})     # -vNAME: the name attached


def _script_after(wrapper: Wrapper, word: str, after: list[Word]) -> Word:
    """The text a shell's `-c` runs: the first word after the options, each option's value skipped (`-o errexit`,
    `+O extglob`, `-co errexit`, `--rcfile F`); None when it cannot be told (an unknown word among them)."""
    if wrapper is not SHELL:              # getopt programs (flock, sg …): as before, the first non-option word
        while after and after[0] is not None and after[0].startswith(("-", "+")) and len(after[0]) > 1:
            after = after[1:]
        return after[0] if after else None
    pending = _values_taken(word, wrapper) if not word.startswith("--") else 0
    i = 0
    while i < len(after):
        current = after[i]
        if current is None:
            return None                   # an unknown option, value or text: which word runs is not known
        if pending:
            pending, i = pending - 1, i + 1
            continue
        if current in ("--", "-"):        # bash reads a lone `-` as the end of its options too
            i += 1
            break
        if not current.startswith(("-", "+")) or len(current) == 1:
            break
        if current.startswith("--"):
            pending = 1 if current in wrapper.value_options else 0
        else:
            pending = _values_taken(current, wrapper)
        i += 1
    if pending:
        return None
    return after[i] if i < len(after) else None


def _bundled_value(word: str, following: Word, wrapper: Wrapper) -> tuple[str, Word] | None:
    """A short option of `opaque_options` and its value, alone or in a bundle as getopt reads it (`-F cfg`,
    `-Fcfg`, `-qF cfg`); None when the word holds none."""
    if not word.startswith("-") or word.startswith("--"):
        return None
    for position, letter in enumerate(word[1:], start=1):
        if "-" + letter in wrapper.opaque_options:
            return "-" + letter, word[position + 1:] or following
        if "-" + letter in wrapper.value_options:
            return None                   # an earlier letter takes the rest as its value
    return None


def _values_taken(word: str, wrapper: Wrapper) -> int:
    """How many of the next words a bundle of a shell's short options takes as values (`-co`: one, for -o)."""
    sign = word[0]
    return sum(1 for letter in word[1:] if sign + letter in wrapper.value_options)


def _split_string(option: str, text: Word) -> Word:
    """env -S reads a backslash-underscore as a blank between words; bash would read it as an escaped `_`."""
    if option in ("-S", "--split-string") and text is not None:
        return text.replace("\\_", " ")
    return text


def _spans_a_line_end(node: Node, source: bytes) -> bool:
    """A leaf with a line end in it, or one between two of the node's parts (strings and here-documents, which
    hold line ends, are not such nodes)."""
    if node.child_count == 0:
        return b"\n" in (node.text or b"")
    children = node.children
    return any(b"\n" in source[a.end_byte:b.start_byte] for a, b in zip(children, children[1:]))


def _variable_names(command: Word, word: str) -> set[str]:
    """The variable a declaring word names: `BASH_CMDS[x]` is BASH_CMDS, `printf -vPS4` names PS4."""
    names = {word, word.partition("[")[0]}
    if command in _SETS_VARIABLE and word.startswith("-v") and len(word) > 2:
        names |= {word[2:], word[2:].partition("[")[0]}
    return names
