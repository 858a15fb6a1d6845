"""Head + tail truncation with a marker (seed 003 4.4): the last line of defence for any text."""

from __future__ import annotations


def head_tail(text: str, max_chars: int) -> str:
    """Keep the start and the end, say how much of the middle went."""
    if len(text) <= max_chars:
        return text
    budget = max(0, max_chars - 40)
    left = budget // 2
    right = budget - left
    removed = len(text) - left - right
    return f"{text[:left]}…[{removed} chars truncated]…{text[len(text) - right:] if right else ''}"


def head_tail_lines(lines: list[str], head: int, tail: int) -> tuple[list[str], int]:
    """Keep `head` first and `tail` last lines; return them with the count of dropped lines."""
    if len(lines) <= head + tail:
        return list(lines), 0
    dropped = len(lines) - head - tail
    return [*lines[:head], f"…[{dropped} lines omitted]…", *(lines[-tail:] if tail else [])], dropped
