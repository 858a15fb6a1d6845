"""The shape of a session entry read back from disk (core/session/schema.py builds them, entries.py the messages):
``problem(entry)`` says, in a few words, why a line cannot be used — valid JSON of the wrong shape (``usage: "x"``,
``todos: [1, 2]``) is skipped with a warning like a corrupt line, never a crash. Unknown kinds pass.
"""

from __future__ import annotations

from typing import Any, Callable

from contextual.core.events import PermissionDecision
from contextual.core.session.meta_check import meta_problem

TODO_STATUSES = ("pending", "in_progress", "completed")
PERMISSION_DECISIONS: tuple[PermissionDecision, ...] = ("allow_once", "allow_session", "allow_always", "accept_edits",
                                                         "deny")
SNAPSHOT_MODES = ("git", "copy")


def is_count(value: Any) -> bool:
    """A whole number, not negative (a bool is none)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def are_strings(value: Any) -> bool:
    """A list of text."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _message_problem(entry: dict[str, Any]) -> str | None:
    message = entry.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), str):
        return "message.content is not text"
    return meta_problem(entry.get("meta") or {})


def _common_problem(entry: dict[str, Any]) -> str | None:
    if "uuid" in entry and not isinstance(entry["uuid"], str):
        return "uuid is not text"
    if entry.get("meta") is not None and not isinstance(entry["meta"], dict):
        return "meta is not an object"
    return None


def _tool_result_problem(entry: dict[str, Any]) -> str | None:
    result = entry.get("toolResult")
    if not isinstance(result, dict):
        return "toolResult is not an object"
    if not isinstance(result.get("stored"), str) or not _str_or_none(result.get("callId")):
        return "toolResult.stored/callId have the wrong type"
    return meta_problem(entry.get("meta") or {})


def _tool_use_problem(entry: dict[str, Any]) -> str | None:
    tool = entry.get("tool")
    if not isinstance(tool, dict) or not isinstance(tool.get("callId"), str) or not _str_or_none(tool.get("name")):
        return "tool is not {name, input, callId}"
    return None


def _usage_problem(entry: dict[str, Any]) -> str | None:
    usage = entry.get("usage")
    if not isinstance(usage, dict):
        return "usage is not an object"
    if not (is_count(usage.get("input_tokens")) and is_count(usage.get("output_tokens"))):
        return "usage token counts are not whole numbers"
    if not all(is_count(usage.get(k, 0)) for k in ("cached_tokens", "cache_creation_tokens")):
        return "usage cache counts are not whole numbers"
    return None


def _todos_problem(entry: dict[str, Any]) -> str | None:
    todos = entry.get("todos")
    if not isinstance(todos, list) or not all(
            isinstance(t, dict) and isinstance(t.get("content"), str) and t.get("status") in TODO_STATUSES
            for t in todos):
        return "todos is not a list of {content, status}"
    return None


def _boundary_problem(entry: dict[str, Any]) -> str | None:
    meta = entry.get("compactMetadata", {})
    if not isinstance(meta, dict):
        return "compactMetadata is not an object"
    if not all(meta.get(k) is None or is_count(meta.get(k)) for k in ("preTokens", "postTokens")):
        return "compactMetadata token counts are not whole numbers"
    if meta.get("filesIncluded") is not None and not are_strings(meta["filesIncluded"]):
        return "compactMetadata.filesIncluded is not a list of paths"
    if not _str_or_none(entry.get("keptFromUuid")) or not _str_or_none(entry.get("fallback")):
        return "keptFromUuid/fallback are not text"
    if entry.get("pinnedUuids") is not None and not are_strings(entry["pinnedUuids"]):
        return "pinnedUuids is not a list of ids"
    return None


def _shell_problem(entry: dict[str, Any]) -> str | None:
    shell = entry.get("shell")
    if not isinstance(shell, dict) or not all(isinstance(shell.get(k), str) for k in ("command", "sent", "whole")):
        return "shell is not {command, sent, whole}"
    return None


def _pins_problem(entry: dict[str, Any]) -> str | None:
    return None if are_strings(entry.get("pinned")) else "pinned is not a list of ids"


def _permission_problem(entry: dict[str, Any]) -> str | None:
    permission = entry.get("permission")
    if not isinstance(permission, dict) or not isinstance(permission.get("tool"), str) \
            or permission.get("decision") not in PERMISSION_DECISIONS:
        return "permission is not {tool, decision}"
    if permission.get("rules") is not None and not are_strings(permission["rules"]):
        return "permission.rules is not a list of rules"
    if not all(isinstance(permission.get(k, ""), str) for k in ("onceOnly", "note")):
        return "permission.onceOnly/note are not text"
    return None


def _turn_end_problem(entry: dict[str, Any]) -> str | None:
    if not _str_or_none(entry.get("turnId")):
        return "turnId is not text"
    if entry.get("subtype") == "turn_failed" and not (isinstance(entry.get("turnId"), str)
                                                      and isinstance(entry.get("kind"), str)
                                                      and isinstance(entry.get("reason"), str)):
        return "turn_failed is not {turnId, kind, reason}"
    return None


def _fitted_problem(entry: dict[str, Any]) -> str | None:
    if not (isinstance(entry.get("summary"), str) and isinstance(entry.get("headline"), str)):
        return "summary/headline are not text"
    adjustments = entry.get("adjustments")
    if not isinstance(adjustments, list) or not all(
            isinstance(a, dict) and isinstance(a.get("action"), str) and isinstance(a.get("detail"), str)
            and is_count(a.get("tokensBefore")) and is_count(a.get("tokensAfter")) for a in adjustments):
        return "adjustments is not a list of {action, detail, tokensBefore, tokensAfter}"
    return None


def _snapshot_problem(entry: dict[str, Any]) -> str | None:
    if not isinstance(entry.get("turnId"), str):
        return "turnId is not text"
    if entry.get("subtype") == "ghost_snapshot" and entry.get("mode") not in SNAPSHOT_MODES:
        return "mode is not git or copy"
    files = entry.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, dict) and isinstance(f.get("path"), str) for f in files):
        return "files is not a list of {path, ...}"
    if not are_strings(entry.get("notUndoable", [])):
        return "notUndoable is not a list of text"
    return None


_SYSTEM_CHECKS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "usage": _usage_problem, "todos": _todos_problem, "compact_boundary": _boundary_problem,
    "pins": _pins_problem, "permission": _permission_problem, "ghost_snapshot": _snapshot_problem,
    "ghost_snapshot_after": _snapshot_problem, "undo": _snapshot_problem,
    "interrupted": _turn_end_problem, "turn_failed": _turn_end_problem, "context_adjusted": _fitted_problem,
    "user_shell": _shell_problem,
}


def problem(entry: dict[str, Any]) -> str | None:
    """Why this entry cannot be used (a few words), or None when its shape is right. Unknown kinds pass."""
    kind = entry.get("type")
    found = _common_problem(entry)
    if found:
        return found
    if kind in ("user", "assistant"):
        return _message_problem(entry)
    if kind == "tool_result":
        return _tool_result_problem(entry)
    if kind == "tool_use":
        return _tool_use_problem(entry)
    if kind == "system":
        if entry.get("isCompactSummary") is True:
            return _message_problem(entry)
        check = _SYSTEM_CHECKS.get(str(entry.get("subtype")))
        return check(entry) if check else None
    return None
