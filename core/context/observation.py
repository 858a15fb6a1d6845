"""The full observation as the model reads it this step: one status line, then the result as plain text.

C1 says `text` already holds what `data` holds, rendered for reading; sending `data` as escaped JSON instead
costs every newline, tab and quote of a multi-line output twice over (issue 14 measured our framing at 1.41x
what mini-swe-agent sends for the same work). So the model gets the text, under a one-line header with
what the text does not say: the status, the exit code, the error code and message, what was dropped.
History keeps the compact JSON stored form (core/context/compressor.py), unchanged.

A Bash result is rendered from its data without the `$ command` echo: the paired action already says it.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def is_bash(data: Any) -> TypeGuard[dict[str, Any]]:
    """A Bash result's data, whole or in its stored form (C1: `exit_code` beside `stdout_summary`/`stderr_tail`)."""
    return isinstance(data, dict) and "exit_code" in data and (
        "stdout" in data or "stdout_summary" in data or "stderr_tail" in data or set(data) <= {"exit_code", "timed_out"})


def header(result: dict[str, Any]) -> str:
    """`[ok]`, `[exit 1]`, `[error not_found: no such file: x.py]`, with dropped bytes when any; empty when
    nothing is known (a recorded command without its exit code)."""
    data = result.get("data")
    error = result.get("error") or {}
    parts: list[str] = []
    if is_bash(data):
        if data.get("timed_out"):
            parts.append("timed out")
        elif data.get("exit_code") is not None:   # a replayed log may not record the code: say nothing, not "exit None"
            parts.append(f"exit {data.get('exit_code')}")
        for stream in ("stdout", "stderr"):
            dropped = data.get(f"{stream}_dropped_bytes") or 0
            if dropped:
                parts.append(f"{dropped} bytes of {stream} dropped")
    elif result.get("status", "error") == "success":
        parts.append("ok")
    if error:
        code = error.get("code", "error") if isinstance(error, dict) else "error"
        message = error.get("message", "") if isinstance(error, dict) else str(error)
        parts.append(f"error {code}: {message}".rstrip(": ") if message else f"error {code}")
    elif result.get("status", "error") != "success" and not is_bash(data):
        parts.append(str(result.get("status", "error")))
    return "[" + "; ".join(parts) + "]" if parts else ""


# The parts `header` joins ([ok], [exit 1], [timed out; error timeout: …], [exit 0; 3 bytes of stdout dropped]); an
# error part comes last and its message may hold anything. There is no header when the result knew nothing to say
# (a replayed log without exit codes).
_HEADER_PART = re.compile(r"ok|exit -?\d+|timed out|\d+ bytes of std(?:out|err) dropped")


def _is_header(line: str) -> bool:
    if len(line) < 3 or line[0] != "[" or line[-1] != "]":
        return False
    for part in line[1:-1].split("; "):
        if part.startswith("error "):
            return True
        if not _HEADER_PART.fullmatch(part):
            return False
    return True


def split_header(text: str) -> tuple[str, str]:
    """An observation's (header, output) as `render_full` joined them; the header is "" when the text starts with
    the output itself (output whose first line merely looks bracketed, `[File: a.py …]`, is output)."""
    first, _, rest = text.partition("\n")
    return (first, rest) if _is_header(first) else ("", text)


def body(result: dict[str, Any]) -> str:
    data = result.get("data")
    if is_bash(data):
        out = (data.get("stdout") or "").rstrip("\n")
        err = (data.get("stderr") or "").rstrip("\n")
        return out + (("\n" if out else "") + "[stderr]\n" + err if err else "")
    text = result.get("text")
    if isinstance(text, str) and (text or data is None):
        return text
    if data is None:
        return ""
    return data if isinstance(data, str) else _dumps(data)


def render_full(result: dict[str, Any]) -> str:
    """Header line (when there is something to say), then the body when there is one."""
    text, head = body(result), header(result)
    return "\n".join(part for part in (head, text) if part)
