"""A stored form as the model reads it in the prompt: the same fields (C1: status, data, error) written as text.

History keeps each tool result's stored form as C1's JSON: the session file, `/context --json` and the readers of
its fields (superseded lines, nested rules, the facts and file analysers) read it. Sent as JSON, a multi-line
field pays for every newline, tab, quote and backslash twice over: a Bash summary's JSON is 1.23× the same text in
tokens, a Read's 1.14× (tune/ trajectories and this repository's files). So the prompt gets a stored form the way
it gets a full observation (core/context/observation.py): the status line, then each field of `data` by name in
its own order, a multi-line one under its name as written, and what the turn added to it (a sub-folder's
instructions, a hook's reason, the engine's note) after a blank line, by its value whatever its key. Nothing is
dropped: the rendering holds every field's value."""

from __future__ import annotations

import json
from typing import Any

from contextual.core.context.observation import header, is_bash

_C1 = ("status", "data", "error")
_IN_HEADER = ("exit_code", "timed_out")      # a Bash result's, said by its status line


def _one_line(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and "\n" not in str(value)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _text_block(item: Any) -> bool:
    """An MCP content block of text ({"type": "text", "text": …}): sent as its text."""
    return isinstance(item, dict) and item.get("type") == "text" and set(item) <= {"type", "text"} and \
        isinstance(item.get("text"), str)


def _lines(key: str, value: Any, depth: int = 0) -> list[str]:
    """`key: value` for a one-line value; a multi-line string or a list under `key:`, as written, one item a line;
    a nested object's fields as `key.field`; a list item that is an object starts with `- `."""
    label = f"{key}: " if key else ""
    if _one_line(value):
        return [f"{label}{_scalar(value)}"]
    if isinstance(value, str):
        return ([f"{key}:"] if key else []) + [value]
    if depth > 8:                                   # bounded: a deeper value is sent as compact JSON
        return [f"{label}{json.dumps(value, ensure_ascii=False, default=str)}"]
    if isinstance(value, dict):
        if not value:
            return [f"{label}{{}}"]
        return [line for k, v in value.items() for line in _lines(f"{key}.{k}" if key else str(k), v, depth + 1)]
    if not value:
        return [f"{label}[]"]
    out = [f"{key}:"] if key else []
    for item in value:
        if _text_block(item):
            out.append(item["text"])
        elif isinstance(item, dict):
            fields = _lines("", item, depth + 1)
            out += [f"- {fields[0]}"] + fields[1:]
        else:
            out += _lines("", item, depth + 1)
    return out


def _data(data: Any, bash: bool) -> list[str]:
    if isinstance(data, dict):
        return [line for k, v in data.items() if not (bash and k in _IN_HEADER) for line in _lines(str(k), v)]
    return [] if data is None else _lines("", data)


def sent_text(stored: str) -> str:
    """The stored form's text for the prompt; anything that is not a C1 JSON object is sent as it is."""
    try:
        form = json.loads(stored)
    except ValueError:
        return stored
    if not isinstance(form, dict) or "status" not in form:
        return stored
    data = form.get("data")
    head = header(form)
    lines = ([head] if head else []) + _data(data, is_bash(data))     # the status line says its exit code
    extras = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in form.items() if k not in _C1]
    return "\n\n".join(["\n".join(lines)] + extras) if extras else "\n".join(lines)
