"""/context: the next prompt exactly as it would be sent, layer by layer, with token counts."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Collapsible, Footer, Static

from core.prompt import PromptMessage
from core.tokens import PER_MESSAGE_OVERHEAD, shared_cache
from tui.format import one_line, tokens

LAYER_ORDER = ("L1", "L2", "L3", "input", "scratchpad", "todo")


def layer_totals(messages: list[PromptMessage]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for m in messages:
        totals[m.layer] = totals.get(m.layer, 0) + shared_cache.count(m.content) + PER_MESSAGE_OVERHEAD
    return totals


class ContextScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape,q", "app.pop_screen", "back"), Binding("e", "expand_all", "expand all"),
                Binding("c", "collapse_all", "collapse all")]

    def __init__(self, messages: list[PromptMessage], window: int) -> None:
        super().__init__()
        self.messages = messages
        self.window = window

    def compose(self) -> ComposeResult:
        totals = layer_totals(self.messages)
        total = sum(totals.values())
        summary = Text.assemble((f" next prompt · {len(self.messages)} messages · {tokens(total)} tok", "bold"),
                                f" of {tokens(self.window)}  ·  ")
        for layer in LAYER_ORDER:
            if layer in totals:
                summary.append(f"{layer} {tokens(totals[layer])}  ")
        yield Static(summary, id="context-summary")
        with VerticalScroll(id="context-layers"):
            for layer in LAYER_ORDER:
                members = [m for m in self.messages if m.layer == layer]
                if not members:
                    continue
                yield Static(Text(f"── {layer} · {len(members)} message{'s' if len(members) != 1 else ''} · "
                                  f"{tokens(totals[layer])} tok", style="bold #5fafaf"), classes="layer-title")
                for m in members:
                    size = shared_cache.count(m.content) + PER_MESSAGE_OVERHEAD
                    title = f"{m.role} · {tokens(size)} tok · {one_line(m.content, 70)}"
                    with Collapsible(title=title, collapsed=True):
                        yield Static(Text(m.content), classes="content")
        yield Footer()

    def action_expand_all(self) -> None:
        for c in self.query(Collapsible):
            c.collapsed = False

    def action_collapse_all(self) -> None:
        for c in self.query(Collapsible):
            c.collapsed = True
