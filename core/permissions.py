"""Who may run what: the permission mode (CONTRACT --permission-mode), the `[permissions]` allow/deny rules
and the tools' own flags (`needs_permission`, `edits_files`); the preview a user approves; "allow always".

The order: a deny rule refuses (in every mode); an allow rule runs; then bypass runs everything, a tool that
does not need permission runs, a tool allowed for the session runs, accept-edits runs file edits; anything else
asks the user (headless: refused with an observation)."""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from contextual.core.permission_rules import PermissionRules, parse_rule
from contextual.core.tools._regular import read_bounded
from contextual.core.tools.base import ToolError

Verdict = Literal["allow", "deny", "ask"]


def decide(tool: Any, args: Any, mode: str, rules: PermissionRules, root: Path,
           allowed_for_session: set[str]) -> Verdict:
    """`tool` is the Tool about to run (its name and flags are read, never a list of names);
    `allowed_for_session` holds rules too (a tool's name allows all its calls)."""
    if rules.denies(tool.name, args, str(root)):
        return "deny"
    session = PermissionRules.from_tables({"allow": sorted(allowed_for_session)}, source="this session")
    # One set: `a | b` is allowed when a config rule covers a and a session rule covers b.
    if PermissionRules(rules.allow + session.allow).allows(tool.name, args, str(root)):
        return "allow"
    if mode == "bypass" or not tool.needs_permission:
        return "allow"
    if mode == "accept-edits" and tool.edits_files:
        return "allow"
    return "ask"


def rule_denial(tool: str, args: Any, rules: PermissionRules, root: Path) -> dict:
    rule = rules.denies(tool, args, str(root))
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied",
                      "message": f"{tool} is denied by the permission rule {rule.text if rule else '?'!r} "
                                 "in the configuration; do the task another way or tell the user."}}


def suggest_rule(tool: str, args: Any) -> str:
    """The rule "allow always" writes: the command's program for Bash, the file for edits, else the tool."""
    args = args if isinstance(args, dict) else {}
    words = args.get("command").split() if tool == "Bash" and isinstance(args.get("command"), str) else []
    if words:
        return f"Bash({words[0]}:*)"             # shown on the button, so the user sees how wide it is
    if isinstance(args.get("file_path"), str) and args["file_path"] and ")" not in args["file_path"]:
        return f"{'Edit' if tool == 'MultiEdit' else tool}({args['file_path']})"
    return tool


def add_allow_rule(project_root: Path, rule: str) -> Path:
    """Add `rule` to `allow` in the project's .contextual/config.toml, keeping everything else in the file
    (comments and layout included); returns the file. ValueError with one line when it cannot."""
    import tomlkit                      # here: only writing a rule needs it (the app's launch does not)
    from tomlkit.exceptions import TOMLKitError
    parsed = parse_rule(rule)
    path = Path(project_root) / ".contextual" / "config.toml"
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    table = doc.get("permissions")
    if table is None:
        table = tomlkit.table()
        doc["permissions"] = table
    allow = table.get("allow") if isinstance(table, dict) else None
    if allow is None and isinstance(table, dict):
        allow = tomlkit.array()
        table["allow"] = allow
    if not isinstance(table, dict) or not isinstance(allow, list):
        raise ValueError(f"cannot add a rule to {path}: permissions.allow there is not a list")
    if parsed.text not in [str(item) for item in allow]:
        allow.append(parsed.text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(tomlkit.dumps(doc))
        os.replace(tmp, path)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def refusal(tool: str, mode: str) -> dict:
    """The observation a headless run gives the model instead of asking a user who is not there."""
    return {"status": "error", "data": None, "text": "", "stats": {}, "context": {},
            "error": {"code": "permission_denied",
                      "message": (f"{tool} is not allowed in permission mode '{mode}' without a user to ask. "
                                  "Do the task with the read-only tools (Read, Grep, Glob, LS) or say in "
                                  "your final answer what the user should run; the user can rerun with "
                                  "--permission-mode accept-edits or bypass.")}}


def denial(tool: str, note: str = "") -> dict:
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


def preview(tool: str, args: dict, root: Path) -> str:
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
