"""The chat's compact trail of one turn's tool calls: a collapsed line ("3 tool calls · Read ×2 · Bash"),
one line per call when expanded. It lives in the chat, so it stays when the scratchpad clears."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.widgets import Collapsible, Static

from contextual.tui.format import call_label, times, unparsed

STATUS_MARK = {"success": ("✓", "#87af5f"), "error": ("✗", "#d75f5f"), "running": ("…", "#af87af")}


def trail_title(calls: list[tuple[str, str, str]]) -> str:
    counts = Counter(tool for tool, _label, _status in calls)
    parts = [times(tool, n) for tool, n in counts.items()]
    failed = sum(1 for _t, _l, status in calls if status == "error")
    noun = "tool call" if len(calls) == 1 else "tool calls"
    # a title is markup, and tool names come from the model
    return unparsed(f"{len(calls)} {noun} · " + ", ".join(parts) + (f" · {failed} failed" if failed else ""))


def call_line(tool: str, label: str, status: str) -> Text:
    mark, colour = STATUS_MARK.get(status, ("✗", "#d75f5f"))
    return Text.assemble((f"{mark} ", colour), (tool, "bold"), " ", label, no_wrap=True, overflow="ellipsis")


class ToolTrail(Collapsible):
    DEFAULT_CSS = """
    ToolTrail { padding: 0; margin: 0 0 0 1; border-top: none; background: transparent; }
    /* Textual's Collapsible draws a blue rule in the ansi themes, and its :ansi rule outranks the one above */
    ToolTrail:ansi { border-top: none; background: transparent; }
    ToolTrail > Contents { padding: 0 0 0 2; }
    ToolTrail Static { height: auto; }
    /* a title wider than the chat ends in an ellipsis, never cut mid-name ("Read ×3, T"). It spans the row: sized
       to its text, it kept the width Textual cached for its first text when it changed as it was first laid out
       (a denied call ends as it starts), cut to "1 tool call · Bas…" until the chat's next layout */
    ToolTrail CollapsibleTitle { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []        # (tool, label, status)
        self._lines = Static("", classes="trail-lines")
        super().__init__(self._lines, title="tool calls", collapsed=True)

    def started(self, tool: str, args: object) -> None:
        self.calls.append((tool, call_label(args), "running"))
        self._paint()

    def finished(self, tool: str, status: str) -> None:
        for index in range(len(self.calls) - 1, -1, -1):
            name, label, state = self.calls[index]
            if name == tool and state == "running":
                self.calls[index] = (name, label, "success" if status == "success" else "error")
                break
        self._paint()

    def _paint(self) -> None:
        self.title = trail_title(self.calls)
        self._lines.update(Text("\n").join(call_line(*call) for call in self.calls))
