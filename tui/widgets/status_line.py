"""The sign of life above the input while a turn runs: "Thinking… 12s · esc to interrupt", "Answering…" once the
final answer streams into the chat, the running tool with its elapsed time and the tail of its output, or a call
tried again ("retrying 2/5 in 3s: connection refused", counting down); blank when idle."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from contextual.tui.format import one_line

if TYPE_CHECKING:
    from contextual.core.events import Retrying

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None, animate: bool = True) -> None:
        super().__init__("", id=id)
        self.animated = animate       # not `animate`: that is Textual's own method
        self.state: str = "idle"          # idle | thinking | answering | tool | retrying
        self.retry: Retrying | None = None   # while retrying: the attempt, why, and its wait
        self.tool: str = ""
        self.tail: str = ""
        self._since = 0.0
        self._frame = 0

    def on_mount(self) -> None:
        self._paint()
        if self.animated:
            self.set_interval(0.5, self._tick)

    def on_resize(self) -> None:
        """Shown again (hidden when idle) or resized: the line is fitted to its width now (a retry's hint)."""
        if self.state != "idle":
            self._paint()

    def thinking(self) -> None:
        self._set("thinking")

    def answering(self) -> None:
        """The final answer streams into the chat (said once: its clock runs from the first words)."""
        if self.state != "answering":
            self._set("answering")

    def running_tool(self, tool: str, label: str = "") -> None:
        self.tool, self.tail = tool + (f" {label}" if label else ""), ""
        self._set("tool")

    def output(self, text: str) -> None:
        """The last line a running tool printed."""
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            self.tail = lines[-1]
            self._paint()

    def retrying(self, retry: Retrying) -> None:
        """A call failed and is tried again: which attempt, why, and the wait counted down."""
        self.retry = retry
        self._set("retrying")

    def retried(self) -> None:
        """The retried call answers: back to thinking (the answer's own events set the rest)."""
        if self.state == "retrying":
            self._set("thinking")

    def idle(self) -> None:
        self._set("idle")

    def _set(self, state: str) -> None:
        self.state, self._since = state, time.monotonic()
        self._paint()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._since

    def _tick(self) -> None:
        if self.state != "idle":
            self._frame += 1
            self._paint()

    def _paint(self) -> None:
        self.display = self.state != "idle"        # no blank row when nothing runs
        if self.state == "idle":
            self.update("", layout=False)
            return
        spin = SPINNER[self._frame % len(SPINNER)] if self.animated else "…"
        seconds = f"{self.elapsed:.0f}s" if self.animated else ""
        line = Text()
        if self.state == "retrying" and self.retry is not None:
            line.append(f"{spin} ", style="bold #af87af")
            line.append(one_line(self.retry.words(self.retry.wait - self.elapsed), 100), style="bold #d7875f")
            line.append(" ")
            seconds = ""        # the wait counts down in the words
        elif self.state in ("thinking", "answering"):
            line.append(f"{spin} {'Thinking' if self.state == 'thinking' else 'Answering'}… ", style="bold #af87af")
        else:
            line.append(f"{spin} Running ", style="bold #af87af")
            line.append(one_line(self.tool, 60), style="bold")
            line.append(" ")
        if seconds:
            line.append(seconds + " ", style="bold")
        hint, width = "· esc to interrupt", self.content_region.width
        # a retry's words come first: at 80 columns a 429's Retry-After line leaves the hint no room (tmux)
        if self.state != "retrying" or not width or line.cell_len + len(hint) <= width:
            line.append(hint, style="dim")
        if self.state == "tool" and self.tail:
            line.append("  │ " + one_line(self.tail, 80), style="dim italic")
        self.update(line, layout=False)     # one row whatever it says: no layout of the whole screen for a tick
