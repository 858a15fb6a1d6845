"""JSON from untrusted text (servers, model replies, MCP results, hooks, .mcp.json) with its nesting depth bounded.

Python's decoder recurses once per level: a few thousand nested brackets raise RecursionError (about 10,000 on
3.13, whose decoder counts C levels), and a value that decodes at depth 900 still breaks every recursive walk
after it (json.dumps, scrubbing, rendering).
The depth is measured first, without recursion, so deep input fails like any other bad JSON: ValueError.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
# A JSON string literal: its brackets are text, not nesting.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JSONDepthError(json.JSONDecodeError):
    """Nested deeper than allowed; a JSONDecodeError so existing `except ValueError` paths treat it as bad JSON."""


def nesting_depth(text: str, stop_after: int | None = None) -> int:
    """The deepest bracket nesting outside string literals (0 for a scalar), counted iteratively."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_after is not None and deepest > stop_after:
                    break
        else:
            depth = max(0, depth - 1)
    return deepest


def check_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    if text.count("[") + text.count("{") <= max_depth:     # cheap: too few brackets to nest that deep
        return
    if nesting_depth(text, stop_after=max_depth) > max_depth:
        raise JSONDepthError(f"JSON nested deeper than {max_depth} levels", text[:40], 0)


def loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads with the depth bounded; every failure is a ValueError (JSONDecodeError)."""
    check_depth(text, max_depth)
    try:
        return json.loads(text)
    except RecursionError:   # cannot happen below MAX_DEPTH; kept so no input can ever surface it
        raise JSONDepthError("JSON nested too deeply", text[:40], 0) from None


def raw_decode(text: str, max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """json.JSONDecoder().raw_decode with the depth bounded (the ReAct Action parser reads `Tool[{...}]...`)."""
    check_depth(text, max_depth)
    try:
        return json.JSONDecoder().raw_decode(text)
    except RecursionError:
        raise JSONDepthError("JSON nested too deeply", text[:40], 0) from None
