"""What a tool call returned, in a few words, as the chat's tool trail shows it under the call ("Read 24 lines",
"exit 1" and the output's last lines, "+2 −1 lines"). Read from the result's stored form (core/context/compressor.py):
the live chat has it in ToolFinished.stored and a resumed chat in the tool message's content, so both say the same."""

from __future__ import annotations

import json
from typing import Any

from contextual.core.plural import plural
from contextual.tui.format import one_line, status_of

OUTPUT_LINES = 3        # a command's last non-blank output lines shown under it
WIDTH = 300             # the trail clips a row to the chat's width; this only bounds the work


def result_lines(tool: str, stored: str) -> tuple[str, ...]:
    """The rows under a call: a summary first, then (Bash) its last output lines. () when the stored form is not
    a result (a call still running, an old record's plain text)."""
    try:
        result = json.loads(stored)
    except (TypeError, ValueError):
        return ()
    if not isinstance(result, dict):
        return ()
    data = result.get("data")
    if result.get("status") == "error":
        error = result.get("error") or {}
        if isinstance(error, dict) and isinstance(error.get("rule"), str):
            # a deny rule's refusal: the row after the call names the rule whole; the command is the call's label,
            # which gives way first where the row is narrow (the model's sentence cut the rule: "…rule 'Bas…")
            from contextual.core.permissions import denied_by
            return (one_line(denied_by(error["rule"]), WIDTH),)
        message = _first(str(error.get("message") or "")) if isinstance(error, dict) else ""
        return (one_line(message or status_of(stored) or "error", WIDTH),)
    if tool == "Bash" and isinstance(data, dict):
        return _bash(data, stored)
    if tool.startswith("mcp__"):
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        return (one_line("ok · " + _first(text) if _first(text) else "ok", WIDTH),)
    line = _summary(tool, data) if isinstance(data, dict) else ""
    return (one_line(line, WIDTH),) if line else ()


def _summary(tool: str, data: dict[str, Any]) -> str:
    match tool:
        case "Read":
            start, end, total = data.get("start_line"), data.get("end_line"), data.get("total_lines")
            if not isinstance(start, int) or not isinstance(end, int) or end < start or start < 1:
                return "empty file" if total == 0 else ""
            whole = start == 1 and end == total
            return f"Read {plural(end - start + 1, 'line')}" + ("" if whole else f" ({start}–{end} of {total})")
        case "Grep":
            matches: Any = data.get("match_count")      # the tool's JSON, shown as it came
            files = data.get("file_count")
            found = f"Found {plural(matches, 'match', 'matches')}"
            return found + (f" in {plural(files, 'file')}" if isinstance(files, int) and matches else "")
        case "Glob":
            return f"Found {plural(data['count'], 'file')}" if "count" in data else ""
        case "LS":
            count = data.get("count")
            return plural(count, 'entry', 'entries') if isinstance(count, int) else ""
        case "Edit" | "MultiEdit":
            if "lines_added" not in data:
                return ""
            return f"+{data.get('lines_added')} −{data.get('lines_removed', 0)} lines"
        case "Write":
            lines = data.get("lines")
            verb = "Created" if data.get("created") else "Wrote"
            return f"{verb} {plural(lines, 'line')}" if isinstance(lines, int) else ""
        case "TodoWrite":
            return _first(str(data.get("recap") or ""))
    return ""


def _bash(data: dict[str, Any], stored: str) -> tuple[str, ...]:
    """'exit 1' (status_of's words; 'exit 0' for a success) and the output's last non-blank lines: stderr's tail
    after stdout's (the stored summary keeps a long output's last lines)."""
    output = "\n".join(str(data.get(key) or "") for key in ("stdout_summary", "stderr_tail"))
    tail = [line for line in output.splitlines() if line.strip()][-OUTPUT_LINES:]
    status = "timed out" if data.get("timed_out") else status_of(stored) or f"exit {data.get('exit_code', 0)}"
    return (status if tail else f"{status} · no output", *(one_line(line, WIDTH) for line in tail))


def _first(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
