"""A plain-text progress bar on stderr: redrawn in place on a terminal; elsewhere one line per item when asked,
nothing otherwise (a log or a pipe gets no bar it did not ask for)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, width: int = 24, asked: bool = False) -> None:
        self.total = max(total, 0)
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.started = time.monotonic()
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self.shown = self.interactive or asked

    def _bar(self) -> str:
        filled = self.width * self.done // self.total if self.total else self.width
        return "#" * filled + "-" * (self.width - filled)

    def advance(self, label: str) -> None:
        self.done += 1
        if not self.shown:
            return
        elapsed = time.monotonic() - self.started
        line = f"[{self._bar()}] {self.done}/{self.total} {elapsed:5.1f}s {label}"
        if self.interactive:
            self.stream.write("\r\x1b[2K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.interactive and self.done:
            self.stream.write("\n")
            self.stream.flush()
