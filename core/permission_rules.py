"""Permission rules from config `[permissions] allow = [...]`, `deny = [...]` (CONTRACT, Additions).

Forms: `Tool` matches every call of it; `Bash(prefix:*)` a command that is `prefix` or starts with
`prefix ` (a word boundary), `Bash(cmd)` exactly that command; `Edit(glob)`, `Write(glob)` (and any tool with
a `file_path` argument, e.g. `Read(glob)`) the project-relative path, with the Glob tool's glob language;
MultiEdit follows Edit rules; `mcp__NAME__TOOL` one MCP tool and `mcp__NAME` every tool of that server.

Shell commands are judged on a real shell parse (core/shell_parse.py): every simple command the line would run
(inside `$(…)`, backticks, subshells, groups, pipelines, lists, and what wrappers such as `sudo`, `xargs`,
`bash -c` run) is compared word by word, quotes and escapes removed. A deny rule matches when any of them does
(the command word also without its folder: `/bin/rm`); an allow rule set allows a line only when each of its
simple commands is matched by one of its rules and nothing is written by an output redirection. A line that
cannot be read with certainty is matched by a deny rule whose command word appears anywhere in it as a word,
and by no allow rule. A path rule sees both the path as written and the path with symlinks resolved: allow
needs both to match, deny either."""

from __future__ import annotations

import filecmp
import os
import re
import shlex
import shutil
import stat
from dataclasses import dataclass, field
from typing import Any, Callable

from contextual.core.shell_nodes import Word, command_name
from contextual.core.shell_parse import parse_command
from contextual.core.tools._globs import compile_glob
from contextual.core.tools.base import ToolError

_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<spec>.*)\))?$", re.DOTALL)


class RuleError(ValueError):
    """A rule that cannot be parsed; the message names it."""


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    spec: str | None
    _glob: Callable[[str], bool] | None = field(default=None, compare=False, repr=False)
    _words: tuple[str, ...] = field(default=(), compare=False, repr=False)     # a Bash spec's words
    _prefix: bool = field(default=False, compare=False, repr=False)           # Bash(words:*)

    def applies_to(self, tool_name: str) -> bool:
        if self.tool == tool_name or (self.tool == "Edit" and tool_name == "MultiEdit"):
            return True
        # mcp__NAME (no tool part) covers every tool of that server.
        return self.tool.startswith("mcp__") and "__" not in self.tool[5:] and tool_name.startswith(self.tool + "__")

    def matches(self, tool_name: str, args: Any, root: str, *, deny: bool) -> bool:
        if not self.applies_to(tool_name):
            return False
        if self.spec is None:
            return True
        args = args if isinstance(args, dict) else {}
        if tool_name == "Bash":
            command = args.get("command")
            if not isinstance(command, str):
                return False
            if deny:
                return self.denies_command(command)
            parsed = parse_command(command)
            return (parsed.certain and not parsed.writes_files and bool(parsed.commands)
                    and all(self.matches_words(words, deny=False) for words in parsed.commands))
        path = args.get("file_path")
        if not isinstance(path, str) or self._glob is None:
            return False
        candidates = [p for p in _relative_paths(path, root) if p is not None]
        if not candidates:
            return False
        hits = [self._glob(p) for p in candidates]
        return any(hits) if deny else all(hits) and len(candidates) == 2

    def denies_command(self, command: str) -> bool:
        parsed = parse_command(command)
        # latent: commands in quoted text bash may evaluate later (`x='a[$(rm f)]'; (( x ))`)
        return parsed.opaque or any(self.matches_words(words, deny=True)
                                    for words in parsed.commands + parsed.latent)

    @property
    def command_word(self) -> str:
        """A Bash rule's program (`rm` of `Bash(rm:*)`), "" for any other rule."""
        return command_name(self._words[0]) if self._words else ""

    def matches_words(self, words: tuple[Word, ...], *, deny: bool) -> bool:
        """One simple command against this Bash rule. A word only known when the shell runs (None) matches
        anything for deny and nothing for allow; deny compares command words without their folders, and
        skips options between the command word and the rule's next word (`git -C repo push` is a `git push`)."""
        pattern = self._words
        if not pattern or not words:
            return False
        if deny and command_name(pattern[0]) != command_name(str(words[0])):
            return False
        if not deny and pattern[0] != words[0]:
            return False
        starts = _after_options(words) if deny and len(pattern) > 1 else {1}
        return any(self._rest_matches(words[start:], deny) for start in starts)

    def _rest_matches(self, rest: tuple[Word, ...], deny: bool) -> bool:
        want = self._words[1:]
        if len(rest) < len(want) or (not self._prefix and len(rest) != len(want)):
            return False
        return all(word == w or (deny and word is None) for w, word in zip(want, rest))


def _after_options(words: tuple[Word, ...]) -> set[int]:
    """Where a sub-command may start after the command word's own options: each option alone, or with the
    value after it (`-C repo`, `-c k=v`: which options take one is the command's business, so both are tried)."""
    starts, frontier = {1}, [1]
    while frontier:
        i = frontier.pop()
        word = words[i] if i < len(words) else None
        if isinstance(word, str) and word.startswith("-") and len(word) > 1 and word != "--":
            for nxt in (i + 1, i + 2) if "=" not in word else (i + 1,):
                if nxt <= len(words) and nxt not in starts:
                    starts.add(nxt)
                    frontier.append(nxt)
    return starts


def parse_rule(text: object) -> Rule:
    if not isinstance(text, str) or not (found := _RULE.match(text.strip())):
        raise RuleError(f"invalid permission rule {text!r}: write Tool, Tool(specifier) or mcp__SERVER__TOOL")
    tool, spec = found.group("tool"), found.group("spec")
    if spec is not None:
        spec = spec.strip()
        if not spec:
            raise RuleError(f"invalid permission rule {text!r}: the part in parentheses is empty")
    glob: Callable[[str], bool] | None = None
    words: tuple[str, ...] = ()
    prefix = False
    if spec is not None and tool == "Bash":
        prefix = spec.endswith(":*")
        body = spec[:-2].strip() if prefix else spec
        try:
            words = tuple(shlex.split(body))
        except ValueError:                    # an unbalanced quote: the words as written
            words = tuple(body.split())
        if not words:
            raise RuleError(f"invalid permission rule {text!r}: no command before ':*'")
    if spec is not None and tool != "Bash":
        try:
            glob = compile_glob(spec.removeprefix("./"))
        except ToolError as exc:
            raise RuleError(f"invalid permission rule {text!r}: {exc}") from None
    return Rule(text.strip(), tool, spec, glob, words, prefix)


@dataclass(frozen=True)
class PermissionRules:
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def from_tables(cls, *tables: Any, source: str = "config") -> "PermissionRules":
        """Union of `[permissions]` tables (user file, then project file); RuleError names a bad one."""
        allow: list[Rule] = []
        deny: list[Rule] = []
        for table in tables:
            if table is None:
                continue
            if not isinstance(table, dict):
                raise RuleError(f"[permissions] in {source} must be a table with allow and deny lists")
            unknown = sorted(set(table) - {"allow", "deny"})
            if unknown:
                raise RuleError(f"unknown key(s) in [permissions] of {source}: {', '.join(unknown)}")
            for kind, out in (("allow", allow), ("deny", deny)):
                rules = table.get(kind, [])
                if not isinstance(rules, list):
                    raise RuleError(f"permissions.{kind} in {source} must be a list of strings")
                out.extend(parse_rule(rule) for rule in rules)
        return cls(tuple(dict.fromkeys(allow)), tuple(dict.fromkeys(deny)))

    def denies(self, tool_name: str, args: Any, root: str) -> Rule | None:
        found = next((r for r in self.deny if r.matches(tool_name, args, root, deny=True)), None)
        if found is None and tool_name == "Bash" and isinstance(args, dict) and isinstance(args.get("command"), str):
            found = self._withheld_in(args["command"], root) or self._run_from_disk(args["command"], root)
        return found

    def _run_from_disk(self, command: str, root: str, depth: int = 0) -> Rule | None:
        """What the line runs from files: a script a shell or `source` reads (`bash s.sh`, written by an earlier
        step), a program named by a path (`./y`, a link to /bin/rm) and a shell script it is. Each is read as it
        is now; one that is not there yet (made by this very line) or cannot be read holds every Bash deny rule."""
        bash = [r for r in self.deny if r.tool == "Bash" and r.spec is not None]
        if not bash or depth > MAX_SCRIPT_DEPTH:
            return bash[0] if bash else None
        parsed = parse_command(command)
        texts: list[str | None] = [_script_text(path, root) for path in parsed.scripts]
        for words in parsed.commands + parsed.latent:
            if not isinstance(words[0], str) or "/" not in words[0]:
                continue
            full = os.path.join(root, words[0])
            if not os.path.exists(full):
                if full.startswith(_SYSTEM_FOLDERS):
                    continue              # not there: `command not found` (writing there needs root)
                return bash[0]
            program = os.path.realpath(full)                 # `ln -s /bin/rm y; ./y f` runs rm
            found = next((r for r in bash if r.matches_words((program, *words[1:]), deny=True)
                          or r.matches_words((_copy_of(program, r), *words[1:]), deny=True)), None)
            if found is not None:
                return found
            if _shell_shebang(full) and not program.startswith(_SYSTEM_FOLDERS):    # the system's own: programs
                texts.append(_script_text(full, root))
        for text in texts:
            if text is None:
                return bash[0]
            found = next((r for r in bash if r.denies_command(text)), None) or \
                self._run_from_disk(text, root, depth + 1)
            if found is not None:
                return found
        return None

    def _withheld_in(self, command: str, root: str) -> Rule | None:
        """The Read deny rule covering a file the command line names (`cat .env`, `head -n 3 secrets/k`,
        `< .env`, `--config=.env`); a glob or a variable that expands to it only the shell knows."""
        reads = [r for r in self.deny if r.tool == "Read" and r.spec is not None]
        if not reads:
            return None
        parsed = parse_command(command)
        named = [w.partition("=")[2] if w.startswith("-") else w
                 for words in parsed.commands for w in words[1:] if isinstance(w, str)]
        for path in dict.fromkeys(p for p in [*named, *parsed.redirected] if p and not p.startswith("-")):
            rule = next((r for r in reads if r.matches("Read", {"file_path": path}, root, deny=True)), None)
            if rule is not None:
                return rule
        return None

    def withholds(self, rel: str, root: str) -> bool:
        """Whether a Read deny rule covers this project-relative path: its contents and name are not shown by
        Grep and Glob, and LS marks it."""
        return any(r.tool == "Read" for r in self.deny) and self.denies("Read", {"file_path": rel}, root) is not None

    def allows(self, tool_name: str, args: Any, root: str) -> Rule | None:
        """The allow rule that covers the call; for a Bash line with several simple commands each must be
        matched by one of the rules (the first is returned)."""
        found = next((r for r in self.allow if r.matches(tool_name, args, root, deny=False)), None)
        command = args.get("command") if isinstance(args, dict) else None
        if found is not None or tool_name != "Bash" or not isinstance(command, str):
            return found
        cover = bash_cover(self.allow, command)
        return cover[0] if cover else None


def bash_cover(rules: tuple[Rule, ...], command: str) -> list[Rule]:
    """For each simple command of the line, the first Bash allow rule matching it; [] when one is uncovered,
    the line is uncertain or it writes through a redirection."""
    parsed = parse_command(command)
    if not parsed.certain or parsed.writes_files or not parsed.commands:
        return []
    bash = [r for r in rules if r.tool == "Bash" and r.spec is not None]
    cover = [next((r for r in bash if r.matches_words(words, deny=False)), None) for words in parsed.commands]
    return [] if None in cover else cover                                       # type: ignore[return-value]


MAX_SCRIPT_DEPTH = 3              # a script that runs a script that runs …: deeper than this holds every rule
MAX_SCRIPT_BYTES = 256 * 1024
_SYSTEM_FOLDERS = ("/usr/", "/bin/", "/sbin/", "/lib", "/etc/")
_SHELL_SHEBANG = re.compile(rb"#!\s*\S*/(?:env\s+)?(?:ba|da|a)?sh\b")


def _read_regular(full: str, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file; None for anything else. A FIFO named as the script (`mkfifo s.sh`,
    then `bash s.sh`) would block the check for good: it is opened without waiting and not read."""
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _script_text(path: str, root: str) -> str | None:
    """A script's text as the shell would read it now; None when it is missing, too long, not a file or not
    text."""
    data = _read_regular(os.path.join(root, path), MAX_SCRIPT_BYTES + 1)
    if data is None or len(data) > MAX_SCRIPT_BYTES or b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def _copy_of(path: str, rule: Rule) -> str:
    """The rule's program when the file is a byte-for-byte copy of it (`cp /bin/rm y`, then `./y f`), else the
    path."""
    program = shutil.which(rule.command_word) if rule.command_word else None
    try:
        if program and filecmp.cmp(path, program, shallow=False):
            return program
    except OSError:
        pass
    return path


def _shell_shebang(full: str) -> bool:
    """Whether the file is a script for bash or a POSIX sh (its first line), which the kernel runs in one."""
    head = _read_regular(full, 128)
    return head is not None and _SHELL_SHEBANG.match(head) is not None


def _relative_paths(path: str, root: str) -> tuple[str | None, str | None]:
    """The path below the root as written (normalised) and with symlinks resolved; None when outside."""
    full = path if os.path.isabs(path) else os.path.join(root, path)
    out = []
    for candidate in (os.path.normpath(full), os.path.realpath(full)):
        rel = os.path.relpath(candidate, root)
        out.append(None if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel)
    return out[0], out[1]
