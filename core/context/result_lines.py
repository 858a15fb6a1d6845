"""A stored message read as lines (issue 30): a tool result's JSON decoded into its strings, each line with its
place in a file when it has one (a Read's numbered line, a grep or pytest `path:12:`, a traceback's `File "…",
line 12`), and whether a result failed. What the fact extractor (core/context/facts.py) and the ledger read."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from contextual.core.messages import Message

_READ_GUTTER = re.compile(r"^\s*(\d+)\t")                        # the Read tool's "    12\tcode"
REF_PATH = r"[^\s:]+\.[A-Za-z0-9]+|[^\s:]+/[^\s:]+"       # a file (an extension) or a path, before `:12:`
FILE_REF = re.compile(rf"^({REF_PATH}):(\d+)[:-]")              # grep/pytest "path:12:"
_TRACE_REF = re.compile(r'File "([^"]+)", line (\d+)')


def strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def decoded(content: str) -> Any:
    if content[:1] in "{[":
        try:
            return json.loads(content)
        except ValueError:
            return None
    return None


def plain_text(message: Message) -> str:
    """The message's text as a reader sees it: a tool result's JSON decoded into its strings."""
    obj = decoded(message.content)
    return message.content if obj is None else "\n".join(strings(obj))


def located_lines(message: Message) -> Iterator[tuple[str, str | None, bool]]:
    """(line, path:line or None, is file content) for every line a tool result holds."""
    obj = decoded(message.content)
    if obj is None:
        for line in message.content.splitlines():
            yield line, _ref(line), False
        return
    data = obj.get("data") if isinstance(obj, dict) else None
    read_path = data.get("path") if isinstance(data, dict) and "start_line" in data else None
    for text in strings(obj):
        for line in text.splitlines():
            gutter = _READ_GUTTER.match(line) if read_path else None
            if gutter:
                yield line[gutter.end():], f"{read_path}:{gutter.group(1)}", True
            else:
                yield line, _ref(line), False


def _ref(line: str) -> str | None:
    m = FILE_REF.match(line.strip()) or _TRACE_REF.search(line)
    return f"{m.group(1)}:{m.group(2)}" if m else None


def failed(message: Message) -> bool:
    """Whether a tool result reports a failure: an error status, or a command's non-zero exit."""
    obj = decoded(message.content)
    data = obj.get("data") if isinstance(obj, dict) else None
    code = data.get("exit_code") if isinstance(data, dict) else None
    return isinstance(obj, dict) and (obj.get("status") == "error" or (isinstance(code, int) and code != 0))
