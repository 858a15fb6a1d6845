"""JSON from untrusted text (servers, model replies, MCP results, hooks, .mcp.json) with its nesting depth bounded.

Python's decoder recurses once per level: a few thousand nested brackets raise RecursionError (about 10,000 on
3.13, whose decoder counts C levels), and a value that decodes at depth 900 still breaks every recursive walk
after it (json.dumps, scrubbing, rendering).
The depth is measured first, without recursion, so deep input fails like any other bad JSON: ValueError.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, AnyStr, Iterator

MAX_DEPTH = 64
# A JSON string literal (its brackets are text, not nesting), or an unterminated one, which runs to the end. It
# matches at every quote and never backtracks: a pattern that could fail there was tried again from each quote
# inside an unterminated string, quadratic — 80 kB of escaped quotes took 13 s, a 1 MB stream line about half an
# hour, with the event loop held.
_STRING = r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)'


@functools.lru_cache(maxsize=8)
def _through_next(marks: str, binary: bool) -> re.Pattern[Any]:
    """Everything up to and including the next of `marks` outside a string (the mark captured), strings skipped
    whole; one match per mark, so a text of many strings costs no Python step per string."""
    chars = re.escape(marks)
    source = rf'(?:[^"{chars}]++|{_STRING})*+([{chars}])?'
    return re.compile(source.encode() if binary else source, re.DOTALL)


def outside_strings(text: AnyStr, marks: str) -> Iterator[AnyStr]:
    """Each of `marks` (characters) that `text` holds outside its JSON string literals, in order: one linear pass
    that copies nothing (removing the strings first held 1.3 GB for a 45 MB message of 6 million of them); also for
    bytes (core/mcp/stdio.py counts a message's objects this way)."""
    for match in _through_next(marks, isinstance(text, bytes)).finditer(text):
        if match.lastindex:
            yield match.group(1)


class JSONDepthError(json.JSONDecodeError):
    """Nested deeper than allowed; a JSONDecodeError so existing `except ValueError` paths treat it as bad JSON."""


def nesting_depth(text: str, stop_after: int | None = None) -> int:
    """The deepest bracket nesting outside string literals (0 for a scalar), counted iteratively."""
    depth = deepest = 0
    for bracket in outside_strings(text, "[]{}"):
        if bracket in "[{":
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
