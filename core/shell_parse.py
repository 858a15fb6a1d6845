"""The simple commands a Bash command line would run, read from a real shell parse (tree-sitter-bash), for the
permission rules (core/permission_rules.py).

Every `command` node of the tree counts, wherever it sits: in `$(…)` and backticks, subshells, groups, pipelines,
lists, if/while bodies, functions, here-documents. A word is its value after quote and escape removal; a word
whose value is only known when the shell runs (an expansion, a substitution, a glob or brace pattern) is None.
Leading assignments (`X=1 rm`) are not words. A command word that runs another command (WRAPPERS: sudo, env,
xargs, find -exec, bash -c, eval …) is unwrapped: both the wrapper and what it runs are listed.

The parse is *uncertain* when it cannot be read with confidence: a syntax error, a command word that is None,
a shell fed its script on standard input, nesting deeper than MAX_NESTING. The caller then falls back to a
word search over the whole text (`text_words`)."""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

Word = str | None
MAX_NESTING = 8          # bash -c "eval 'sh -c …'": deeper than this is uncertain
MAX_UNWRAP = 16          # sudo env nice timeout … in a row


@dataclass(frozen=True)
class Wrapper:
    """How a command word that runs another command hands it on."""
    value_options: frozenset[str] = frozenset()   # options followed by a value, which is skipped
    positional: int = 0                           # words before the command (timeout's duration)
    script_option: str | None = None              # the value of this option is shell text (bash -c)
    script_rest: bool = False                     # the remaining words, joined, are shell text (eval)
    assignments: bool = False                     # NAME=VALUE words before the command (env)
    default: tuple[str, ...] = ()                 # the command when none is given (xargs runs echo)
    runs_rest: bool = True                        # False for a shell: `bash file` runs a file, not a command
    exec_options: frozenset[str] = frozenset()    # find: -exec WORDS ; (or +)
    alias_values: bool = False                    # alias: each NAME=VALUE's value is shell text
    setting_option: str | None = None             # ssh -o NAME=VALUE: the settings named in command_settings
    command_settings: frozenset[str] = frozenset()  # … whose value is a command line (lower case, fnmatch)
    bang_settings: frozenset[str] = frozenset()   # … whose value is a command line after a leading "!" (git alias)
    command_options: frozenset[str] = frozenset()  # options whose value is a command line it runs (rsync -e)
    until: frozenset[str] = frozenset()           # the command ends before one of these words (parallel's :::)


def _opts(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SHELL = Wrapper(value_options=_opts("-o +o -O +O --rcfile --init-file"), script_option="-c", runs_rest=False)

# The one list of commands that run another command (issue 26). A name not here is an ordinary command.
WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(value_options=_opts("-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt "
                                        "--chdir --role --type --other-user --command-timeout")),
    "doas": Wrapper(value_options=_opts("-u -C")),
    "env": Wrapper(value_options=_opts("-u --unset -C --chdir"), assignments=True, script_option="-S"),
    "timeout": Wrapper(value_options=_opts("-s -k --signal --kill-after"), positional=1),
    "nice": Wrapper(value_options=_opts("-n --adjustment")),
    "ionice": Wrapper(value_options=_opts("-c -n -p --class --classdata --pid")),
    "stdbuf": Wrapper(value_options=_opts("-i -o -e --input --output --error")),
    "chroot": Wrapper(value_options=_opts("--userspec --groups"), positional=1),
    "xargs": Wrapper(value_options=_opts("-a -d -E -e -I -L -l -n -P -s --arg-file --delimiter --eof "
                                         "--replace --max-lines --max-args --max-procs --max-chars"),
                     default=("echo",)),
    "nohup": Wrapper(), "time": Wrapper(value_options=_opts("-f -o --format --output")),
    "command": Wrapper(), "builtin": Wrapper(), "exec": Wrapper(value_options=_opts("-a")),
    "setsid": Wrapper(), "unbuffer": Wrapper(), "busybox": Wrapper(), "coproc": Wrapper(),
    "eval": Wrapper(script_rest=True),
    "watch": Wrapper(value_options=_opts("-n -d --interval --differences"), script_rest=True),
    "trap": Wrapper(script_rest=True),
    "su": Wrapper(value_options=_opts("-s -g -G --shell --group"), script_option="-c", runs_rest=False),
    "runuser": Wrapper(value_options=_opts("-u -s -g -G --user --shell --group --supp-group"), script_option="-c"),
    # The remote shell reads the words after the host as one line: `ssh host 'rm -rf x'` runs rm.
    "ssh": Wrapper(value_options=_opts("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w"),
                   positional=1, script_rest=True, setting_option="-o",
                   command_settings=frozenset({"proxycommand", "localcommand", "knownhostscommand"})),
    "flock": Wrapper(value_options=_opts("-w -E --timeout --conflict-exit-code"), positional=1,
                     script_option="-c"),
    "script": Wrapper(value_options=_opts("-E -I -O -B -T -t --echo --log-in --log-out --log-io "
                                          "--log-timing"), script_option="-c", runs_rest=False),
    "find": Wrapper(runs_rest=False, exec_options=_opts("-exec -execdir -ok -okdir")),
    # Run a command as someone else, in a namespace or under a tracer: options with a value skipped.
    "pkexec": Wrapper(value_options=_opts("--user")), "fakeroot": Wrapper(value_options=_opts("-l -s -i --lib --faked")),
    "unshare": Wrapper(value_options=_opts("-S -G -R -w --setuid --setgid --root --wd --map-user --map-group")),
    "nsenter": Wrapper(value_options=_opts("-t -S -G -r -w --target --setuid --setgid --root --wd")),
    "strace": Wrapper(value_options=_opts("-o -e -p -s -u -E -a -b -I -O -P -S -X -U")),
    "ltrace": Wrapper(value_options=_opts("-o -e -p -s -u -a -n -l -L -x -X -A -D -F -w")),
    "valgrind": Wrapper(), "firejail": Wrapper(), "torsocks": Wrapper(value_options=_opts("-u -p -a -P")),
    "proxychains": Wrapper(value_options=_opts("-f")), "proxychains4": Wrapper(value_options=_opts("-f")),
    "systemd-run": Wrapper(value_options=_opts("-u -p -E -M -H --unit --property --setenv --machine --host "
                                               "--uid --gid --nice --slice --description --working-directory")),
    "toybox": Wrapper(), "catchsegv": Wrapper(),
    # GNU parallel hands the words before ::: to a shell; with none it runs the lines it reads as commands.
    "parallel": Wrapper(value_options=_opts("-j -N -n -S -a -d -E -I -L -l -P -s --jobs --sshlogin --arg-file "
                                            "--delimiter --colsep --replace --joblog --results --tmpdir --workdir "
                                            "--timeout --delay --retries --env --basefile --return --halt"),
                        script_rest=True, until=_opts("::: :::+ :::: ::::+")),
    # Programs that run a command line given in one of their options or settings.
    "rsync": Wrapper(value_options=_opts("-e --rsh --rsync-path -f --filter"), runs_rest=False,
                     command_options=_opts("-e --rsh")),
    "tar": Wrapper(value_options=_opts("-f -C -I -F -T -X -b -g -H -K -L -N -V --file --directory "
                                       "--use-compress-program --to-command --rsh-command --info-script "
                                       "--new-volume-script"),
                   runs_rest=False, command_options=_opts("-I -F --use-compress-program --to-command "
                                                          "--rsh-command --info-script --new-volume-script")),
    "git": Wrapper(value_options=_opts("-C -c --git-dir --work-tree --namespace --exec-path --config-env"),
                   runs_rest=False, setting_option="-c",
                   command_settings=_opts("core.sshcommand core.pager core.editor core.fsmonitor core.askpass "
                                          "sequence.editor diff.external gpg.program pager.*"),
                   bang_settings=_opts("alias.* credential.helper")),
    # `alias x='rm -rf'`: the value is shell text a later `x` runs (scripts can turn expand_aliases on).
    "alias": Wrapper(runs_rest=False, alias_values=True),
    **{shell: _SHELL for shell in ("bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish")},
}

# Environment variables whose value a program runs as a command line (`GIT_PAGER='rm f' git log`).
COMMAND_VARIABLES = frozenset({
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS", "SSH_ASKPASS", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "RSYNC_RSH",
    "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE"})
_SOURCES = {"source", "."}            # run a file's text in this shell: a file on disk is not read here
_WRITE_OPERATORS = {">", ">>", ">|", "&>", "&>>", "<>"}
_PATTERN = re.compile(r"[*?\[{]")            # glob or brace expansion in an unquoted word
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_TEXT_WORD = re.compile(r"[^\s;&|()<>`${},=]+")


@dataclass(frozen=True)
class ShellParse:
    commands: tuple[tuple[Word, ...], ...]   # every simple command, wrappers and what they run; words[0] is a str
    certain: bool
    writes_files: bool                       # an output redirection to a file (not /dev/null, not 2>&1)
    # Code runs whose text is only known when the shell runs it: `$CMD f`, `… | sh`, `eval "$X"`,
    # `source <(…)`, nesting past MAX_NESTING. No rule can be checked against it, so every Bash deny rule holds.
    opaque: bool = False
    redirected: tuple[str, ...] = ()         # the files redirections read or write (`< .env`, `> out`), when known


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


@functools.lru_cache(maxsize=128)
def parse_command(text: str) -> ShellParse:
    collector = _Collector()
    collector.script(text, 0)
    return ShellParse(tuple(collector.commands), collector.certain, collector.writes_files, collector.opaque,
                      tuple(collector.redirected))


def command_name(word: str) -> str:
    """The command word without its folder: `/bin/rm` is `rm`."""
    return word.rstrip("/").rpartition("/")[2] or word


def mentions(text: str, name: str) -> bool:
    """Whether `name` appears in the text as a word (quotes and backslashes removed, folders dropped, a glob
    such as `r?` counting when it would match): the fallback when the parse is uncertain."""
    plain = re.sub(r"[\\'\"]", "", text)
    for word in _TEXT_WORD.findall(plain):
        word = command_name(word)
        if word == name or (_PATTERN.search(word) and fnmatch.fnmatchcase(name, word)):
            return True
    return False


@dataclass
class _Collector:
    commands: list[tuple[Word, ...]] = field(default_factory=list)
    certain: bool = True
    writes_files: bool = False
    opaque: bool = False
    redirected: list[str] = field(default_factory=list)
    stdin_text: dict[int, Word] = field(default_factory=dict)    # a command's here-document or here-string

    def unreadable(self) -> None:
        self.certain, self.opaque = False, True

    def script(self, text: str, depth: int) -> None:
        if depth > MAX_NESTING:
            self.unreadable()
            return
        root = _parser().parse(text.encode("utf-8", errors="replace")).root_node
        if root.has_error:
            self.certain = False
        stack = [root]
        while stack:                      # iterative: a deeply nested line must not exhaust Python's stack
            node = stack.pop()
            if node.type == "command":
                self._command(node, depth)
            elif node.type == "redirected_statement":
                self._note_stdin(node)
            elif node.type == "file_redirect":
                self._redirect(node)
            elif node.type == "variable_assignment":
                self._assignment(node, depth)
            stack.extend(reversed(node.children))

    def _redirect(self, node: Node) -> None:
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = node.child_by_field_name("destination")
        if operator in (">&", "<&", ">&-", "<&-") and (target is None or target.type == "number"
                                                      or _value(target) == "-"):
            return                        # a descriptor copied or closed: 2>&1
        named = _value(target) if target is not None else None
        if named:
            self.redirected.append(named)
        if operator in _WRITE_OPERATORS or operator == ">&":
            if target is None or _value(target) != "/dev/null":
                self.writes_files = True

    def _note_stdin(self, node: Node) -> None:
        """`bash <<'EOF' … EOF`, `sh <<< 'rm f'`: the text a command reads on standard input, when it is known
        (a quoted here-document's body, or an unquoted one without expansions; a here-string's word)."""
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            return
        for child in node.children:
            if child.type == "heredoc_redirect":
                self.stdin_text[body.id] = _heredoc_text(child)
            elif child.type == "herestring_redirect":
                self.stdin_text[body.id] = _herestring_text(child)

    def _assignment(self, node: Node, depth: int) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and (name.text or b"").decode("utf-8", errors="replace") in COMMAND_VARIABLES:
            self._script_word(_value(value) if value is not None else "", depth)

    def _command(self, node: Node, depth: int) -> None:
        name = node.child_by_field_name("name")
        if name is None:                  # assignments only
            return
        words = [_value(name)] + [_value(arg) for arg in node.children_by_field_name("argument")]
        here = next((c for c in node.children if c.type == "herestring_redirect"), None)   # the parser puts it here
        stdin = _herestring_text(here) if here is not None else self.stdin_text.get(node.id, "")
        self._add(words, depth, stdin)

    def _add(self, words: list[Word], depth: int, stdin: Word = "") -> None:
        for _ in range(MAX_UNWRAP):
            if not words or words[0] is None:
                self.unreadable()         # the command is only known when it runs
                return
            self.commands.append(tuple(words))
            if command_name(words[0]) in _SOURCES and (len(words) < 2 or words[1] is None):
                self.unreadable()         # `source <(…)`, `. "$X"`: a script made when it runs
                return
            wrapper = WRAPPERS.get(command_name(words[0]))
            if wrapper is None:
                return
            inner = self._unwrap(wrapper, words[1:], depth, stdin)
            if inner is None:
                return
            words = inner
        self.unreadable()

    def _unwrap(self, wrapper: Wrapper, rest: list[Word], depth: int, stdin: Word = "") -> list[Word] | None:
        """The command the wrapper runs (None when it runs none or it was handed on as shell text). `stdin`: the
        text the line hands it on standard input ("" when none is known to, None when it is made when it runs)."""
        if wrapper.exec_options:
            self._find_exec(wrapper, rest, depth)
            return None
        if wrapper.alias_values:
            for word in rest:
                if word is None or "=" in word:
                    self._script_word(None if word is None else word.partition("=")[2], depth)
            return None
        reads_stdin = False             # a shell's -s: the script is standard input, the words its arguments
        i = 0
        while i < len(rest):
            word = rest[i]
            if word is None:
                self.unreadable()         # `sudo $OPTS rm`: what the wrapper runs is only known then
                return None
            if word == "--":
                i += 1
                break
            option, _, attached = word.partition("=")
            if wrapper.script_option and (word == wrapper.script_option or _short_flags_hold(word, wrapper)):
                self._script_word(rest[i + 1] if i + 1 < len(rest) else None, depth)
                return None
            if word.startswith(("-", "+")) and len(word) > 1:
                if wrapper.command_options:
                    self._command_option(word, option, attached, rest[i + 1] if i + 1 < len(rest) else None,
                                         wrapper, depth)
                reads_stdin |= wrapper is _SHELL and word.startswith("-") and not word.startswith("--") and "s" in word
                takes_next = _takes_next_word(word, option, attached, wrapper)
                if wrapper.setting_option and word.startswith(wrapper.setting_option):
                    # `ssh -o ProxyCommand='rm f' host`: a setting whose value is a command line the program runs
                    setting = (rest[i + 1] if takes_next and i + 1 < len(rest) else word[len(wrapper.setting_option):])
                    self._setting(setting, wrapper, depth)
                i += 2 if takes_next else 1
                continue
            if wrapper.assignments and _ASSIGNMENT.match(word):
                if word.partition("=")[0] in COMMAND_VARIABLES:
                    self._script_word(word.partition("=")[2], depth)
                i += 1
                continue
            break
        rest = rest[i + wrapper.positional:]
        if wrapper.until:
            end = next((j for j, w in enumerate(rest) if w in wrapper.until), len(rest))
            rest = rest[:end]
            if not rest:
                self.unreadable()         # `… | parallel`: the commands are the lines it reads
                return None
        if wrapper.positional and rest and rest[0] is not None and wrapper.script_option and (
                rest[0] == wrapper.script_option or _short_flags_hold(rest[0], wrapper)):
            self._script_word(rest[1] if len(rest) > 1 else None, depth)     # `flock LOCK -c 'rm f'`
            return None
        if wrapper.script_rest:
            if rest:
                self._script_word(None if None in rest else " ".join(rest), depth)   # type: ignore[arg-type]
            return None
        if not wrapper.runs_rest:
            if wrapper is _SHELL and (reads_stdin or not rest):
                # its script is standard input: a here-document read here, anything else (`echo rm f | sh`) unknown
                self._script_word(stdin or None, depth)
            return None
        return list(rest) if rest else (list(wrapper.default) or None)

    def _setting(self, setting: Word, wrapper: Wrapper, depth: int) -> None:
        if setting is None:
            self.unreadable()             # `ssh -o "$OPT" host`: which setting is only known when it runs
            return
        name, sep, value = setting.partition("=")
        if not sep:
            name, _, value = setting.strip().partition(" ")
        name, value = name.strip().lower(), value.strip()
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.command_settings):
            self._script_word(value, depth)
        elif value.startswith("!") and any(fnmatch.fnmatchcase(name, p) for p in wrapper.bang_settings):
            self._script_word(value[1:], depth)

    def _command_option(self, word: str, option: str, attached: str, following: Word, wrapper: Wrapper,
                        depth: int) -> None:
        """`rsync -e 'ssh -p 2'`, `-avze ssh`, `-essh`, `tar --to-command='sh x'`: an option whose value is a
        command line the program runs."""
        if word.startswith("--"):
            if option in wrapper.command_options:
                self._script_word(attached if "=" in word else following, depth)
            return
        for position, letter in enumerate(word[1:], start=1):
            if "-" + letter in wrapper.value_options:         # getopt: the first letter taking a value ends it
                if "-" + letter in wrapper.command_options:
                    self._script_word(word[position + 1:] or following, depth)
                return

    def _find_exec(self, wrapper: Wrapper, rest: list[Word], depth: int) -> None:
        i = 0
        while i < len(rest):
            if rest[i] in wrapper.exec_options:
                end = i + 1
                while end < len(rest) and rest[end] not in (";", "+"):
                    end += 1
                self._add(list(rest[i + 1:end]), depth)
                i = end
            i += 1

    def _script_word(self, text: Word, depth: int) -> None:
        if text is None:
            self.unreadable()
        else:
            self.script(text, depth + 1)


def _takes_next_word(word: str, option: str, attached: str, wrapper: Wrapper) -> bool:
    """Whether the option's value is the next word: `-u me`, and in a bundle of short flags (getopt) when the
    first letter that takes a value is the last one (`ssh -tp 22 host`; `-tp22` holds its value)."""
    if option in wrapper.value_options:
        return not attached
    if word.startswith("--") or not word.startswith("-"):
        return False
    for position, letter in enumerate(word[1:], start=1):
        if "-" + letter in wrapper.value_options:
            return position == len(word) - 1
    return False


def _herestring_text(node: Node) -> Word:
    word = next((c for c in node.children if c.is_named), None)
    return _value(word) if word is not None else None


def _heredoc_text(node: Node) -> Word:
    """A here-document's body as the command reads it, or None when the shell expands something in it."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    text = (body.text or b"").decode("utf-8", errors="replace")
    delimiter = (start.text or b"").decode("utf-8", errors="replace") if start is not None else ""
    quoted = any(mark in delimiter for mark in ("'", '"', "\\"))          # 'EOF', "EOF", \EOF, E"OF"
    if quoted:
        return text
    if any(c.type not in ("heredoc_content",) for c in body.children):
        return None                       # $X, $(…), `…` inside: known only when it runs
    return _unescape(text)


def _short_flags_hold(word: str, wrapper: Wrapper) -> bool:
    """`bash -lc 'rm f'`: the script option among bundled short flags."""
    letter = (wrapper.script_option or "")[1:]
    return len(letter) == 1 and word.startswith("-") and not word.startswith("--") and letter in word[1:]


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def _value(node: Node) -> Word:
    """The word's value after quote removal, or None when only the running shell knows it."""
    kind, text = node.type, (node.text or b"").decode("utf-8", errors="replace")
    if kind in ("word", "number"):
        return None if _PATTERN.search(re.sub(r"\\.", "", text)) else _unescape(text)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "ansi_c_string":
        return None if "\\" in text else text[2:-1]
    if kind == "string":
        parts: list[str] = []
        for child in node.children:
            if child.type == "string_content":
                parts.append(re.sub(r"\\([\\$`\"\n])", r"\1", (child.text or b"").decode("utf-8", errors="replace")))
            elif child.type != '"':
                return None
        return "".join(parts)
    if kind == "concatenation":
        words = [_value(child) for child in node.children]
        return None if any(w is None for w in words) else "".join(w for w in words if w is not None)
    if kind == "command_name":
        return _value(node.children[0]) if len(node.children) == 1 else None
    return None
