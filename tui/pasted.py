"""A long paste stands in the input as one short tag ("[pasted #1 · 420 lines]") and is sent whole, as Claude Code
does: a megabyte in Textual's TextArea re-wrapped on every key. The tag is text like any other: delete it and the
paste goes with it; change it and it is sent as typed."""

from __future__ import annotations

import re

INLINE_CHARS = 2_000          # a paste up to this size, and this many lines, goes into the input as it is
INLINE_LINES = 40
TAG = re.compile(r"\[pasted #\d+ · [^\]\n]*\]")


def too_long(text: str) -> bool:
    return len(text) > INLINE_CHARS or len(text.splitlines()) > INLINE_LINES     # a terminal may paste \r ends


class Pastes:
    """The pastes held behind their tags until the input is sent."""

    def __init__(self) -> None:
        self._held: dict[str, str] = {}

    def hold(self, text: str) -> str:
        text = text.replace("\r\n", "\n").replace("\r", "\n")      # as TextArea keeps a paste it holds itself
        lines = len(text.splitlines())
        size = f"{lines:,} lines" if lines > 1 else f"{len(text):,} characters"
        tag = f"[pasted #{len(self._held) + 1} · {size}]"
        self._held[tag] = text
        return tag

    def expand(self, text: str) -> str:
        # one pass: a paste that holds a tag's words is sent as pasted, not expanded again
        return TAG.sub(lambda match: self._held.get(match.group(0), match.group(0)), text)

    def clear(self) -> None:
        self._held.clear()
