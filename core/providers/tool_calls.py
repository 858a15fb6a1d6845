"""Tool calls a chat-completions stream sends in their own field (``delta.tool_calls``), put together whatever the
server's dialect: arguments as string pieces or as one JSON object, the id and name only in a call's first delta,
an index missing, or every call at index 0 (each with its own id). Local servers parse a model's tool calls out of
its output even when the request offered no tools; the agent reads the first one as the step's Action. Anthropic's
`tool_use` blocks are fed here in the same shape (core/providers/anthropic.py: _tool_delta).

Only the first call is kept (one action runs per step); the others are counted, never held, so a reply of
thousands of calls costs no memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from contextual.core import bounded_json
from contextual.core.providers.base import ToolCallChunk


MAX_INDEXED = 4096     # calls remembered by index, to follow interleaved ones: past it a new index is a new call


@dataclass
class _Call:
    index: int | None
    id: str | None
    kept: bool                                   # the first call: its arguments are kept
    name: str = ""
    parts: list[str] = field(default_factory=list)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


class ToolCalls:
    """Feed each chunk's ``delta.tool_calls``; ``chunk()`` at the stream's end gives the first call, or None."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars       # the first call's arguments never grow past this (an endless stream)
        self.first: _Call | None = None
        self.current: _Call | None = None
        self.count = 0
        self.chars = 0
        self._by_index: dict[int, _Call] = {}    # calls begun, by index (discarded ones hold no arguments)

    def feed(self, deltas: Any) -> bool:
        """False once the first call's arguments passed ``max_chars``."""
        for delta in deltas if isinstance(deltas, list) else [deltas]:
            if not isinstance(delta, dict):
                continue
            function = delta.get("function")
            function = function if isinstance(function, dict) else {}
            index, ident, name = _int(delta.get("index")), _text(delta.get("id")), _text(function.get("name"))
            call = self._call_for(index, ident, name)
            if call.kept and not call.name and name:
                self.chars += len(name)          # the name is sent back as text too: a 900 kB one passed the cap
            call.name = call.name or name or ""
            call.id = call.id or ident
            arguments = function.get("arguments")
            if call.kept and arguments is not None and arguments != "":
                piece = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
                call.parts.append(piece)
                self.chars += len(piece)
        return self.chars <= self.max_chars

    def chunk(self) -> ToolCallChunk | None:
        if self.first is None:
            return None
        return ToolCallChunk(self.first.name, "".join(self.first.parts), self.count - 1)

    def _call_for(self, index: int | None, ident: str | None, name: str | None) -> _Call:
        current = self.current
        if current is not None and index is not None and index != current.index:
            begun = self._by_index.get(index)
            if begun is not None and ident in (None, begun.id):
                current = begun                  # calls streamed interleaved: back to one already begun
        if current is None or self._starts_new(current, index, ident, name):
            self.count += 1
            current = _Call(index, ident, kept=self.first is None)
            self.first = self.first or current
            if index is not None and len(self._by_index) < MAX_INDEXED:
                self._by_index[index] = current
        self.current = current
        return current

    def _starts_new(self, call: _Call, index: int | None, ident: str | None, name: str | None) -> bool:
        if index is not None and call.index is not None and index != call.index:
            return True
        if ident is not None and call.id is not None and ident != call.id:
            return True                          # another call at the same index (or with none)
        # no id to tell by: a name after a call whose arguments are whole begins the next call
        return ident is None and name is not None and bool(call.name) and self._whole(call)

    @staticmethod
    def _whole(call: _Call) -> bool:
        if not call.kept:
            return True
        try:
            return isinstance(bounded_json.loads("".join(call.parts)), dict)
        except ValueError:
            return False
