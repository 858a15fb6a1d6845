"""Session entries: Message <-> JSONL entry (CONTRACT "Session files", seed 001 8.3 / 8.10).

One entry per line. Common fields: uuid, parentUuid, sessionId, timestamp, type, cwd, gitBranch?, version.
- user / assistant:  ``message {role, content}``, ``meta``, ``full`` when set.
- tool_use:          ``tool {name, input, callId}`` (the invocation; parentUuid = its assistant message).
- tool_result:       ``toolResult {callId, name, output (full), stored, status}``, ``meta``.
- system:            ``subtype`` usage | permission | interrupted | turn_failed | todos | compact_boundary |
                     ghost_snapshot ..., or ``isCompactSummary: true`` for a summary message. ``interrupted``
                     (``reason``, ``turnId``) and ``turn_failed`` (``turnId``, ``kind``, ``reason``: the error's kind
                     and one line) say why that turn ended without an answer (schema.TurnEnd); ``turnId`` is the
                     turn's user message's ``meta.turn``. A reader ignores a subtype it does not know.
"""

from __future__ import annotations

import json
from typing import Any

from contextual.core.messages import Message, MessageMeta, Role
from contextual.core.session.meta_check import is_message_meta, meta_problem
from contextual.core.textsafe import valid_json_value


def message_body(msg: Message) -> dict[str, Any]:
    """The type-specific part of a message entry."""
    if msg.role == "tool":
        return {
            "type": "tool_result",
            "toolResult": {
                "callId": msg.meta.get("call_id"),
                "name": msg.meta.get("tool_name"),
                "output": msg.full,
                "stored": msg.content,
                "status": _tool_status(msg),
            },
            "meta": msg.meta,
        }
    if msg.role == "summary":
        body: dict[str, Any] = {
            "type": "system",
            "isCompactSummary": True,
            "message": {"role": "system", "content": msg.content},
            "meta": msg.meta,
        }
    else:
        body = {"type": msg.role, "message": {"role": msg.role, "content": msg.content}, "meta": msg.meta}
    if msg.full is not None:
        body["full"] = msg.full
    return body


def _tool_status(msg: Message) -> str:
    status = msg.meta.get("status")
    if isinstance(status, str):
        return status
    text = msg.content.lstrip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            return "unknown"
        status = parsed.get("status") if isinstance(parsed, dict) else None
        if isinstance(status, str):
            return status
    return "unknown"


def is_summary_entry(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "system" and entry.get("isCompactSummary") is True


def message_from_entry(entry: dict[str, Any]) -> Message | None:
    """The Message an entry records, or None when it records something else. Raises on a malformed entry."""
    kind = entry.get("type")
    if kind == "tool_result":
        result = entry["toolResult"]
        return Message(role="tool", content=_text(result["stored"]), full=result.get("output"),
                       meta=_meta(entry), id=_text(entry["uuid"]))
    if kind in ("user", "assistant") or is_summary_entry(entry):
        role: Role = "summary" if kind == "system" else "user" if kind == "user" else "assistant"
        return Message(role=role, content=_text(entry["message"]["content"]), full=entry.get("full"),
                       meta=_meta(entry), id=_text(entry["uuid"]))
    return None


def _meta(entry: dict[str, Any]) -> MessageMeta:
    meta = entry.get("meta") or {}
    if not isinstance(meta, dict):
        raise ValueError("meta is not an object")
    if not is_message_meta(meta):
        raise ValueError(meta_problem(meta))
    return meta


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _fallback(value: Any) -> Any:
    # A non-JSON value in meta/args (a tuple is fine, a set or a Path is not) is kept as text
    # rather than losing the whole entry.
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return str(value)


def dumps_line(entry: dict[str, Any]) -> bytes:
    """One JSONL line of readable UTF-8. A lone surrogate (undecodable bytes, a broken escape from a model) is made
    visible text first: written as an escape it would come back on load and break every later request."""
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=_fallback, allow_nan=True)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:     # rare: pay for the walk only then
        data = json.dumps(valid_json_value(entry), ensure_ascii=False, separators=(",", ":"),
                          default=_fallback).encode("utf-8", errors="replace")
    return data + b"\n"
