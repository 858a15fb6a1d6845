"""The always-visible token budget meter: layers as coloured segments, the trigger line, last usage."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tui.format import tokens

# (budget field, label, colour) in prompt order.
SEGMENTS = (
    ("l1", "L1", "#5f87d7"),
    ("l2", "L2", "#8787d7"),
    ("l3", "L3", "#5fafaf"),
    ("input", "input", "#d7af5f"),
    ("scratchpad", "scratchpad", "#af87af"),
)
OK_COLOUR = "#87af5f"
WARN_COLOUR = "#d7875f"
OVER_COLOUR = "#d75f5f"


def _field(budget: Any, name: str) -> int:
    return int(getattr(budget, name, 0) or 0)


def meter_text(budget: Any, width: int) -> Text:
    """Two lines: the bar with used/window and trigger; the layer split with the last API usage."""
    window = max(1, _field(budget, "window"))
    used = _field(budget, "total")
    threshold = _field(budget, "threshold") or int(window * 0.8)
    warn_at = _field(budget, "warn_at") or int(window * 0.7)
    ratio = used / window
    colour = OVER_COLOUR if used >= threshold else WARN_COLOUR if used >= warn_at else OK_COLOUR
    summary = f" {tokens(used)} / {tokens(window)}  {ratio:4.0%}  trigger at {tokens(threshold)} ({threshold / window:.0%})"
    bar_width = max(10, width - len(summary) - 10)
    trigger_cell = min(bar_width - 1, int(bar_width * threshold / window))
    cells: list[tuple[str, str]] = []
    for name, _label, seg_colour in SEGMENTS:
        n = round(bar_width * _field(budget, name) / window)
        cells.extend([("█", seg_colour)] * n)
    cells = cells[:bar_width]
    cells.extend([("░", "#4e4e4e")] * (bar_width - len(cells)))
    bar = Text(" tokens ▕", style="bold")
    for index, (char, style) in enumerate(cells):
        if index == trigger_cell:
            bar.append("│", style=f"bold {OVER_COLOUR}")
        else:
            bar.append(char, style=style)
    bar.append("▏")
    bar.append(summary, style=f"bold {colour}")
    line2 = Text("        ")
    for name, label, seg_colour in SEGMENTS:
        line2.append("■ ", style=seg_colour)
        line2.append(f"{label} {tokens(_field(budget, name))}  ")
    last = getattr(budget, "last_usage", None)
    line2.append("  last usage ", style="dim")
    line2.append(tokens(last) if last is not None else "–", style="bold")
    line2.append("  estimate ", style="dim")
    line2.append(tokens(_field(budget, "estimate")), style="bold")
    bar.append("\n")
    bar.append_text(line2)
    return bar


class TokenMeter(Widget):
    """Re-rendered whenever the app hands it a fresh Budget."""

    DEFAULT_CSS = """
    TokenMeter { height: 2; }
    """

    budget: reactive[Any] = reactive(None, always_update=True)

    def render(self) -> Text:
        if self.budget is None:
            return Text(" tokens  no engine: configure a model to start", style="dim")
        return meter_text(self.budget, self.size.width)

    @property
    def level(self) -> str:
        """'ok' | 'warn' | 'over' — for tests and the header."""
        if self.budget is None:
            return "ok"
        used = _field(self.budget, "total")
        if used >= (_field(self.budget, "threshold") or 1 << 62):
            return "over"
        if used >= (_field(self.budget, "warn_at") or 1 << 62):
            return "warn"
        return "ok"
