"""Who may run what: the permission mode (CONTRACT --permission-mode), the `[permissions]` allow/deny rules
and the tools' own flags (`needs_permission`, `edits_files`); the preview a user approves; "allow always".

The order: a deny rule refuses (in every mode); plan mode refuses file edits; an allow rule runs, and so does a
Bash line that runs nothing (`X=1`: permission_rules.runs_nothing); then plan mode
refuses anything else that needs permission (the model reads and proposes, the user carries out), bypass runs
everything, a tool that does not need permission runs, a tool allowed for the session runs, accept-edits runs
file edits; anything else asks the user (headless: refused with an observation)."""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
from pathlib import Path
from typing import Any, Iterable, Literal, Protocol

from contextual.core.config_files import PERMISSION_MODES
from contextual.core.events import AlwaysRules
from contextual.core.local_rules import change_local_rules
from contextual.core.permission_rules import PermissionRules, runs_nothing
from contextual.core.shell.parse import parse_command
from contextual.core.tools._regular import read_bounded
from contextual.core.tools.base import ToolError, path_of
from contextual.core.reminder import system_reminder

Verdict = Literal["allow", "deny", "ask", "plan"]


class Judged(Protocol):
    """What the policy reads of a tool: its name and flags (core/tools/base.Tool has them)."""
    name: str
    needs_permission: bool
    edits_files: bool


def decide(tool: Judged, args: Any, mode: str, rules: PermissionRules, root: Path,
           allowed_for_session: set[str]) -> Verdict:
    """`tool` is the Tool about to run (its name and flags are read, never a list of names);
    `allowed_for_session` holds rules too (a tool's name allows all its calls)."""
    if rules.denies(tool.name, args, str(root)):
        return "deny"
    if mode == "plan" and tool.edits_files:
        return "plan"
    session = PermissionRules.from_tables({"allow": sorted(allowed_for_session)}, source="this session")
    # One set: `a | b` is allowed when a config rule covers a and a session rule covers b.
    if PermissionRules(rules.allow + session.allow).allows(tool.name, args, str(root)):
        return "allow"
    if tool.name == "Bash" and isinstance(args, dict) and isinstance(args.get("command"), str) and \
            runs_nothing(args["command"]):
        return "allow"            # `X=1`: nothing to ask about (a `$(…)` in it is a command, judged as any)
    if mode == "plan":
        return "plan" if tool.needs_permission else "allow"
    if mode == "bypass" or not tool.needs_permission:
        return "allow"
    if mode == "accept-edits" and tool.edits_files:
        return "allow"
    return "ask"


def next_mode(current: str, started_in: str) -> str:
    """The mode after ``current`` in the cycle a user steps through (the app's shift+tab): every mode in order,
    bypass only when the run was started in it (a key press never widens permissions that far)."""
    cycle = [m for m in PERMISSION_MODES if m != "bypass" or started_in == "bypass"]
    return cycle[(cycle.index(current) + 1) % len(cycle)] if current in cycle else cycle[0]


SHOWN_COMMAND = 100      # a denial quotes at most this much of a command: its first line, the rest cut with "…"


def denied_by(rule: str) -> str:
    """The words naming the deny rule a call met, wherever it is said (the model's observation, the chat's trail,
    a `!cmd` line): `denied by Bash(rm:*)`; a rule naming a tool whole as `the rule Grep`."""
    return f"denied by {rule}" if "(" in rule else f"denied by the rule {rule}"


def _denied_call(tool: str, args: Any) -> str:
    """The call a denial names: a Bash command as written (its first line, cut), a file tool's path, else the tool
    (the call said first: "Bash is denied by …" read as if every Bash call were off)."""
    command = args.get("command") if tool == "Bash" and isinstance(args, dict) else None
    if isinstance(command, str) and command.strip():
        lines = command.strip().splitlines()
        shown = lines[0][:SHOWN_COMMAND].rstrip()
        return f"`{shown}{'…' if len(lines) > 1 or len(lines[0]) > SHOWN_COMMAND else ''}`"
    path = path_of(args)
    return f"{tool} on {path}" if path is not None else tool


def rule_denial(tool: str, args: Any, rules: PermissionRules, root: Path) -> dict[str, Any]:
    """The observation of a call a deny rule refused: the call, then the rule whole ("`rm -rf build` is denied by
    Bash(rm:*)"), then why or what to do. `error.rule` carries the rule for the chat's trail row, which says the
    words up to it (tui/result_line.py) and cuts the command, not the rule, where the row is too narrow."""
    rule = rules.denies(tool, args, str(root))
    named = rule.text if rule else tool
    said = f"{_denied_call(tool, args)} is {denied_by(named)}"
    message = f"{said}; do the task another way or tell the user."
    command = args.get("command") if tool == "Bash" and isinstance(args, dict) else None
    parsed = parse_command(command) if isinstance(command, str) else None
    if parsed is not None and parsed.syntax_error:
        message = (f"{said}: the command does not parse with certainty (a syntax error, or shell syntax the parser "
                   f"reads differently from bash), so the rule cannot be checked against it; write the command out "
                   f"plainly.")
    elif parsed is not None and parsed.opaque:
        message = (f"{said}: part of the command is only known when it runs (a $VARIABLE as the command, a script "
                   f"piped into a shell, a program left to read its commands from standard input such as `ssh host` "
                   f"or `su` without one, an option of a launcher the check does not know, eval or source of "
                   f"generated text, a command a program builds from its data or takes from a file: awk's "
                   f"`system($0)`, sed's `s///e`, vim's `-S`), so the rule cannot be checked against it; "
                   f"write the command out plainly (give ssh, su or docker the command itself; give awk, sed or vim "
                   f"the command as one string).")
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied", "message": message, "rule": named}}


def opaque(args: Any) -> bool:
    """Whether a Bash call runs text the parse cannot read (core/shell/parse.ShellParse.opaque)."""
    command = args.get("command") if isinstance(args, dict) else None
    return isinstance(command, str) and parse_command(command).opaque


_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")       # `git status`, `npm test`: a word naming what the tool does
_PRINTS_ITS_WORDS = frozenset({"echo", "printf"})   # writes nothing but standard output (a redirect is refused apart)


def always_rules(tool: str, args: Any, root: Path) -> AlwaysRules:
    """The narrowest rules that match this call and would match it again, checked with the same matcher that
    will read them (core/permission_rules.py): Bash gets one rule per simple command (`git status --short` →
    `Bash(git status:*)`, a command without a sub-command word is allowed exactly), an edit its file, any other
    tool its name."""
    args = args if isinstance(args, dict) else {}
    if tool == "Bash":
        rules, why = _bash_rules(args.get("command"))
    elif isinstance(args.get("file_path"), str) and args["file_path"] and not _GLOB_SPECIAL.search(args["file_path"]):
        rel = os.path.relpath(args["file_path"], root) if os.path.isabs(args["file_path"]) else args["file_path"]
        rules, why = (f"{'Edit' if tool == 'MultiEdit' else tool}({rel})",), ""
    elif tool in ("Write", "Edit", "MultiEdit"):
        rules, why = (), "its file name cannot be written as a rule"
    else:
        rules, why = (tool,), ""
    if rules and PermissionRules.from_tables({"allow": list(rules)}).allows(tool, args, str(root)) is None:
        return AlwaysRules((), why or "no rule would match this call again")
    return AlwaysRules(rules, why)


_GLOB_SPECIAL = re.compile(r"[*?\[\]{}()\\]")


def _bash_rules(command: Any) -> tuple[tuple[str, ...], str]:
    if not isinstance(command, str) or not command.strip():
        return (), "the command is empty"
    parsed = parse_command(command)
    if not parsed.certain:
        return (), ("the command cannot be read with certainty (a syntax error, a command known only when it runs, "
                    "or a program's commands taken from a file)")
    if parsed.writes_files:
        return (), "it writes a file through a redirection (>), which no rule allows"
    rules: list[str] = []
    for words in parsed.commands:
        if words[0] in _PRINTS_ITS_WORDS:
            rule = f"Bash({words[0]}:*)"     # `echo exit=$?`, `echo passed`: any echo is as harmless as this one
        elif len(words) >= 2 and isinstance(words[1], str) and _SUBCOMMAND.fullmatch(words[1]):
            rule = f"Bash({_join(w or '' for w in words[:2])}:*)"
        elif len(words) >= 3 and words[1] == "-m" and isinstance(words[2], str) and _SUBCOMMAND.fullmatch(words[2]):
            rule = f"Bash({_join(w or '' for w in words[:3])}:*)"          # python -m pytest
        elif None in words:
            return (), f"an argument of {words[0]} is only known when it runs"
        else:
            rule = f"Bash({_join(words)})"                # type: ignore[arg-type]
        if rule not in rules:
            rules.append(rule)
    return tuple(rules), ""


def _join(words: Iterable[str]) -> str:
    """A command line as a person writes it: a word holding a single quote goes in double quotes when nothing in
    it is special there (`python -c "import sys; f('src')"`), not shlex's `'"'"'`, which the dialog showed."""
    def quote(word: str) -> str:
        quoted = shlex.quote(word)
        if quoted == word or "'" not in word or _SPECIAL_IN_DOUBLE.search(word):
            return quoted
        return f'"{word}"'
    return " ".join(quote(w) for w in words)


_SPECIAL_IN_DOUBLE = re.compile(r'["$`\\!]')


def add_allow_rules(project_root: Path, rules: tuple[str, ...] | list[str], home: Path | None = None) -> Path:
    """"Allow always": add the rules to `allow` in the project's .contextual/config.local.toml, through the one
    writer of that file (core/local_rules.py); with `home`, approved as written. ValueError with one line."""
    return change_local_rules(Path(project_root), "allow", add=rules, home=home)


# The error codes of a call that did not run because it was not allowed (a rule, the mode, plan mode, the user, a
# hook): denied, which the app and the trail count apart from calls that ran and failed.
DENIED_CODES = frozenset({"permission_denied", "plan_mode", "blocked_by_hook"})


def refusal(tool: str, mode: str) -> dict[str, Any]:
    """The observation a headless run gives the model instead of asking a user who is not there."""
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied",
                      "message": (f"{tool} is not allowed in permission mode '{mode}' without a user to ask. "
                                  "Do the task with the read-only tools (Read, Grep, Glob, LS) or say in "
                                  "your final answer what the user should run; the user can rerun with "
                                  "--permission-mode accept-edits or bypass.")}}


def refused_by_mode(tool: str, result: Any, mode: str) -> bool:
    """Whether a call's result is ``refusal``'s: held back only because no user was there to ask, so a wider
    mode would have run it (a deny rule's or a hook's refusal would stand in any mode)."""
    return isinstance(result, dict) and result.get("error") == refusal(tool, mode)["error"]


def hook_refusal(tool: str, reason: str) -> dict[str, Any]:
    """A PreToolUse hook asked for the user's confirmation (Claude Code's permissionDecision "ask") in a run with
    no user to ask: the call does not run, whatever the mode."""
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied",
                      "message": (f"{tool} needs the user's confirmation (a PreToolUse hook asks for it"
                                  + (f": {reason}" if reason else "") + ") and there is no user to ask in this "
                                  "run. Do the task another way or say in your final answer what the user "
                                  "should run.")}}


def plan_refusal(tool: str) -> dict[str, Any]:
    """The observation for a call plan mode holds back: what to do instead."""
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "plan_mode",
                      "message": (f"{tool} does not run in plan mode: read and search (Read, Grep, Glob, LS) and "
                                  "answer with the plan (Finish: what you would change, where, and how you would "
                                  "check it). The user leaves plan mode to carry it out.")}}


# Sent with each input while plan mode is on (in the user message, so L1's cached prefix never changes).
PLAN_REMINDER = system_reminder("Plan mode is on: the user wants a plan before any change. Read and search as needed; "
                                "do not edit files or run commands. Answer with Finish: the plan (what you would "
                                "change, where, and how you would check it).")


def mode_reminder(mode: str) -> str:
    return PLAN_REMINDER if mode == "plan" else ""


def denial(tool: str, note: str = "") -> dict[str, Any]:
    """``note``: what the user said to do instead, passed on to the model word for word."""
    message = f"The user denied this {tool} call." + (f" The user says instead: {note}" if note else "")
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied", "message": message}}


PREVIEW_MAX_BYTES = 2 * 1024 * 1024


def _read(path: Path) -> str:
    """The file as it is now, for the diff; regular files only and size-capped (a FIFO would block)."""
    try:
        return read_bounded(path, path.name, PREVIEW_MAX_BYTES).decode("utf-8", errors="replace")
    except (OSError, ToolError):
        return ""


def preview(tool: str, args: dict[str, Any], root: Path) -> str:
    """A unified diff for edits, the command for Bash. Best effort: the tool itself validates."""
    if tool == "Bash":
        return str(args.get("command", ""))
    if tool.startswith("mcp__"):       # an MCP call shows its arguments
        return json.dumps(args, ensure_ascii=False, indent=2)
    rel = str(args.get("file_path", ""))
    path = Path(rel) if Path(rel).is_absolute() else root / rel
    before = _read(path) if path.is_file() else ""
    after = before
    if tool == "Write":
        after = str(args.get("content", ""))
    elif tool in ("Edit", "MultiEdit"):
        edits = args.get("edits") if tool == "MultiEdit" else [args]
        for e in edits or []:
            if not isinstance(e, dict):
                continue
            old, new = str(e.get("old_string", "")), str(e.get("new_string", ""))
            after = after.replace(old, new) if e.get("replace_all") else after.replace(old, new, 1)
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                fromfile=f"a/{rel}", tofile=f"b/{rel}")
    return "".join(diff) or f"(no textual change to {rel})"
