"""Permission rules from config `[permissions] allow = [...]`, `deny = [...]` (CONTRACT, Additions).

Forms: `Tool` matches every call of it; `Bash(prefix:*)` a command that is `prefix` or starts with
`prefix ` (a word boundary), `Bash(cmd)` exactly that command; `Edit(glob)`, `Write(glob)` (and any tool with
a `file_path` argument, e.g. `Read(glob)`) the project-relative path, with the Glob tool's glob language;
MultiEdit follows Edit rules; `mcp__NAME__TOOL` one MCP tool and `mcp__NAME` every tool of that server.

Shell commands are judged conservatively: an allow rule never matches a command with a shell operator
(`; & | < > $( \\``, newline), so `git status; rm -rf x` is not allowed by `Bash(git status:*)`, while a deny rule
matches when any of the command's parts does. A path rule sees both the path as written and the path with
symlinks resolved: allow needs both to match, deny either."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from contextual.core.tools._globs import compile_glob
from contextual.core.tools.base import ToolError

_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<spec>.*)\))?$", re.DOTALL)
_SHELL_OPERATOR = re.compile(r"[;&|<>`\n]|\$\(")
_SHELL_SPLIT = re.compile(r"\|\||&&|[;&|\n]")


class RuleError(ValueError):
    """A rule that cannot be parsed; the message names it."""


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    spec: str | None
    _glob: Any = field(default=None, compare=False, repr=False)

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
            return _command_matches(self.spec, args.get("command"), deny)
        path = args.get("file_path")
        if not isinstance(path, str) or self._glob is None:
            return False
        candidates = [p for p in _relative_paths(path, root) if p is not None]
        if not candidates:
            return False
        hits = [self._glob(p) for p in candidates]
        return any(hits) if deny else all(hits) and len(candidates) == 2


def parse_rule(text: object) -> Rule:
    if not isinstance(text, str) or not (found := _RULE.match(text.strip())):
        raise RuleError(f"invalid permission rule {text!r}: write Tool, Tool(specifier) or mcp__SERVER__TOOL")
    tool, spec = found.group("tool"), found.group("spec")
    if spec is not None:
        spec = spec.strip()
        if not spec:
            raise RuleError(f"invalid permission rule {text!r}: the part in parentheses is empty")
    glob = None
    if spec is not None and tool != "Bash":
        try:
            glob = compile_glob(spec.removeprefix("./"))
        except ToolError as exc:
            raise RuleError(f"invalid permission rule {text!r}: {exc}") from None
    return Rule(text.strip(), tool, spec, glob)


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
        return next((r for r in self.deny if r.matches(tool_name, args, root, deny=True)), None)

    def allows(self, tool_name: str, args: Any, root: str) -> Rule | None:
        return next((r for r in self.allow if r.matches(tool_name, args, root, deny=False)), None)


def _command_matches(spec: str, command: Any, deny: bool) -> bool:
    if not isinstance(command, str):
        return False
    if spec.endswith(":*"):
        prefix = spec[:-2].strip()
        test = lambda part: part == prefix or part.startswith(prefix + " ")   # noqa: E731
    else:
        test = lambda part: part == spec                                       # noqa: E731
    command = command.strip()
    if deny:
        return any(test(part.strip()) for part in _SHELL_SPLIT.split(command))
    return not _SHELL_OPERATOR.search(command) and test(command)


def _relative_paths(path: str, root: str) -> tuple[str | None, str | None]:
    """The path below the root as written (normalised) and with symlinks resolved; None when outside."""
    full = path if os.path.isabs(path) else os.path.join(root, path)
    out = []
    for candidate in (os.path.normpath(full), os.path.realpath(full)):
        rel = os.path.relpath(candidate, root)
        out.append(None if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel)
    return out[0], out[1]
