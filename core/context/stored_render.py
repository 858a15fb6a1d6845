"""A stored form as the model reads it in the prompt: the same fields (C1: status, data, error) written as text.

History keeps each tool result's stored form as C1's JSON: the session file, `/context --json` and the readers of
its fields (superseded lines, nested rules, the facts and file analysers) read it. Sent as JSON, a multi-line
field pays for every newline, tab, quote and backslash twice over: a Bash summary's JSON is 1.23× the same text in
tokens, a Read's 1.14× (tune/ trajectories and this repository's files). So the prompt gets a stored form the way
it gets a full observation (core/context/observation.py): the status line, then each field of `data` by name in
its own order, a multi-line one under its name as written, and what the turn added to it (a sub-folder's
instructions, a hook's reason) after a blank line. Nothing is dropped: the rendering holds every field's value."""

from __future__ import annotations

import json
from typing import Any

from contextual.core.context.observation import header

_C1 = ("status", "data", "error")
_IN_HEADER = ("exit_code", "timed_out")      # a Bash result's, said by its status line


def _one_line(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and "\n" not in str(value)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _field(key: str, value: Any) -> str:
    if _one_line(value):
        return f"{key}: {_scalar(value)}"
    if isinstance(value, str):
        return f"{key}:\n{value}"
    if isinstance(value, list) and value and all(_one_line(item) for item in value):
        return f"{key}:\n" + "\n".join(_scalar(item) for item in value)
    return f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}"


def _data(data: Any, bash: bool) -> list[str]:
    if isinstance(data, dict):
        return [_field(str(k), v) for k, v in data.items() if not (bash and k in _IN_HEADER)]
    if data is None:
        return []
    return [data if isinstance(data, str) else _field("data", data).removeprefix("data: ")]


def sent_text(stored: str) -> str:
    """The stored form's text for the prompt; anything that is not a C1 JSON object is sent as it is."""
    try:
        form = json.loads(stored)
    except ValueError:
        return stored
    if not isinstance(form, dict) or "status" not in form:
        return stored
    data = form.get("data")
    bash = isinstance(data, dict) and "exit_code" in data
    head = header(form)
    lines = ([head] if head else []) + _data(data, bash)
    extras = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in form.items() if k not in _C1]
    return "\n\n".join(["\n".join(lines)] + extras) if extras else "\n".join(lines)
