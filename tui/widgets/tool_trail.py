"""The chat's compact trail of one turn's tool calls: a collapsed line ("3 tool calls · Read ×2 · Bash", or one call
and its result: "Read src/cart.py · Read 24 lines"),
expanded one line per call with what it returned under it ("⎿ Read 24 lines") and the permission answer it was
run on ("· allowed once"). It lives in the chat, so it stays when the scratchpad clears."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle

from contextual.core.mcp.describe import shown_name
from contextual.core.plural import times
from contextual.tui.format import call_label, unparsed
from contextual.tui.result_line import result_lines
from contextual.tui.widgets.fit_row import FitRow
from contextual.tui.widgets.hanging_text import HangingStatic, hanging
from contextual.tui.widgets.in_place import resized, update_in_place

STATUS_MARK = {"success": ("✓", "#87af5f"), "error": ("✗", "#d75f5f"), "denied": ("✗", "#d7af5f"),
               "running": ("…", "#af87af")}


class TrailCall(NamedTuple):
    """One call as its trail row shows it, the same live and resumed."""
    tool: str
    label: str
    status: str                         # "running", "success", "error" or "denied" (format.trail_status)
    result: tuple[str, ...] = ()        # result_line.result_lines of its stored result
    permission: str = ""                # format.permission_mark of the answer it ran on


def trail_title(calls: list[TrailCall]) -> str:
    if len(calls) == 1:         # one call says what it was and what it gave, as its row would: nothing to expand for
        call = calls[0]
        said = f" · {call.result[0]}" if call.result else ""
        return unparsed(("✗ " if call.status in ("error", "denied") else "")
                        + f"{shown_name(call.tool)} {call.label}".strip() + said)
    counts = Counter(shown_name(call.tool) for call in calls)
    parts = [times(tool, n) for tool, n in counts.items()]
    ended = Counter(call.status for call in calls)
    said = "".join(f" · {ended[status]} {word}" for status, word in (("error", "failed"), ("denied", "denied"))
                   if ended[status])
    # a title is markup, and tool names come from the model
    return unparsed(f"{len(calls)} tool calls · " + ", ".join(parts) + said)


def label_span(calls: list[TrailCall]) -> tuple[int, int] | None:
    """Where one call's arguments stand in its title: they give way at the chat's width, its result stays."""
    if len(calls) != 1 or not calls[0].label.strip():
        return None
    label = calls[0].label.strip()
    start = str(trail_title(calls)).find(label, len(shown_name(calls[0].tool)))
    return (start, start + len(label)) if start >= 0 else None


def call_line(call: TrailCall) -> Text:
    """The call's row, then its result's rows ("⎿ " under the tool's name)."""
    mark, colour = STATUS_MARK.get(call.status, ("✗", "#d75f5f"))
    row = Text.assemble((f"{mark} ", colour), (shown_name(call.tool), "bold"), " ", call.label,
                        (f" · {call.permission}" if call.permission else "", "dim"))
    rows = [row] + [Text.assemble(("  ⎿ " if n == 0 else "    ", "dim"), (line, "dim" if n else ""))
                    for n, line in enumerate(call.result)]
    return Text("\n").join(rows)


class ChatRowTitle(CollapsibleTitle):
    """A "▶" row of the chat (a turn's tool calls, its "context adjusted" line): ↑ ↓ walk to the older and newer
    rows (shift+tab is the permission mode's, so the older ones had no key once tab went to the newest first), tab
    on to the chat itself."""
    BINDINGS = [Binding("up", "walk(-1)", "older", show=False), Binding("down", "walk(1)", "newer", show=False),
                Binding("tab", "to_chat", "chat", show=False)]     # named, it ran under the palette's key at 70

    def action_to_chat(self) -> None:
        """tab: the chat holding the rows, a focus stop of its own (its arrows scroll it)."""
        holder = next((node for node in self.ancestors if isinstance(node, Widget) and node.focusable), None)
        if holder is not None:
            self.screen.set_focus(holder)       # at once, as the walk: the ↑ sent with tab scrolls the chat

    def action_walk(self, by: int) -> None:
        titles = list(self.screen.query(ChatRowTitle))
        at = titles.index(self) + by if self in titles else -1
        if 0 <= at < len(titles):
            # at once: focus() waits for the app's queue, behind the rest of a burst of ↑, and each of those keys
            # walked from the row this one left (ten ↑ sent together moved one row)
            self.screen.set_focus(titles[at])


def with_row_title(collapsible: Collapsible, kind: type[ChatRowTitle]) -> None:
    """Give a collapsible row of the chat its walking title. Collapsible composes its `_title` (Textual 8); another
    Textual keeps its own title, without the keys."""
    made = getattr(collapsible, "_title", None)
    if isinstance(made, CollapsibleTitle):
        setattr(collapsible, "_title", kind(label=made.label, collapsed_symbol=made.collapsed_symbol,
                                            expanded_symbol=made.expanded_symbol, collapsed=collapsible.collapsed))


class AdjustedTitle(ChatRowTitle):
    """The "context adjusted" row's title: its key in the footer, as a tool-call row has."""
    BINDINGS = [Binding("enter", "toggle_collapsible", "show/hide what was fitted")]


class TrailTitle(ChatRowTitle):
    """The trail's title with its key in the footer when it has the focus (tab from the input reaches the newest):
    Textual's own binding is hidden, so nothing said how to see the calls."""
    BINDINGS = [Binding("enter", "toggle_collapsible", "show/hide calls")]
    # One call's title, wider than the chat, cuts its arguments and keeps its result: "Bash pytest -q … · exit 0"
    # (cut at its end, the exit went and the line read "Bash python -m pytest -q tests/test_prices.py 2>&1 | t…")
    fit_span: tuple[int, int] | None = None

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        if self.fit_span is not None and isinstance(content, Content) and isinstance(self.label, Content):
            shift = len(content.plain) - len(self.label.plain)          # the ▶ / ▼ before the label
            row = FitRow(content.plain, no_wrap=True, overflow="ellipsis")
            row.label_span = (self.fit_span[0] + shift, self.fit_span[1] + shift)
            content = row
        # one row, whatever it says (nowrap): a layout of the screen only if that ever changes
        super().update(content, layout=False)
        if layout and resized(self):
            self.refresh(layout=True)


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
        self.calls: list[TrailCall] = []
        self._lines = HangingStatic("", classes="trail-lines")
        # collapsed by default: a turn of 40 calls is one line until asked for (enter on the title, or a click)
        super().__init__(self._lines, title="tool calls", collapsed=True)
        with_row_title(self, TrailTitle)

    def show(self, calls: list[TrailCall]) -> None:
        """A past turn's calls at once (a resumed chat)."""
        self.calls = calls
        self._paint()

    def started(self, tool: str, args: object, permission: str = "") -> None:
        self.calls.append(TrailCall(tool, call_label(args), "running", permission=permission))
        self._paint()

    def finished(self, tool: str, status: str, stored: str = "") -> None:
        for index in range(len(self.calls) - 1, -1, -1):
            call = self.calls[index]
            if call.tool == tool and call.status == "running":
                self.calls[index] = call._replace(status=status if status in ("success", "denied") else "error",
                                                  result=result_lines(tool, stored))
                break
        self._paint()

    def stopped(self, stored: str) -> None:
        """The turn was stopped: every call still running ends with ``stored`` (the aborted result)."""
        self.calls = [call._replace(status="error", result=result_lines(call.tool, stored))
                      if call.status == "running" else call for call in self.calls]
        self._paint()

    def _paint(self) -> None:
        made = getattr(self, "_title", None)
        if isinstance(made, TrailTitle):
            made.fit_span = label_span(self.calls)
        self.title = trail_title(self.calls)
        # a long row wraps under its own text: a result's under "⎿ ", a call's under its tool's name
        update_in_place(self._lines, hanging(Text("\n").join(call_line(call) for call in self.calls)))
