"""The chat's first lines on an empty session: the model and its window, and the keys that matter."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from contextual.tui.format import tokens
from contextual.tui.screen_safe import screen_text

# The app's own bindings (tui/app.py, the input's enter, the palette): what a new user needs before anything else.
# tab: from the input, on to the chat's "▶ N tool calls" rows (enter opens one); nothing said so (user review)
KEYS = (("enter", "send"), ("esc", "interrupt"), ("ctrl+p or /", "commands"), ("tab", "to tool calls"))


def welcome_text(model: str | None, window: int, window_source: str, width: int = 200) -> Text:
    """Two lines, or one line per key when the keys' line is wider than ``width`` (a key is never split)."""
    where = window_source.split(":", 1)[0]         # "server: llama.cpp /props" -> "server"
    source = "" if where == "default" else f" ({'model table' if where == 'table' else where})"
    head = Text.assemble(("Contextual", "bold"), " · ",
                         (screen_text(model), "bold #d7af5f") if model
                         else ("no model yet: /model picks one", "bold #d75f5f"),
                         f" · {tokens(window)} window{source}")
    keys = [Text.assemble((key, "bold"), f" {what}") for key, what in KEYS]
    line = Text("  ·  ").join(keys)
    return Text("\n").join([head, line] if line.cell_len <= width else [head, *keys])


class Welcome(Static):
    DEFAULT_CSS = """
    Welcome { padding: 0 1; margin: 0 0 1 0; color: $text-muted; }
    """

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._facts: tuple[str | None, int, str] = (None, 0, "default")

    def show(self, model: str | None, window: int, window_source: str) -> None:
        self._facts = (model, window, window_source)
        self.refresh(layout=True)

    def render(self) -> Text:
        return welcome_text(*self._facts, width=max(1, self.content_region.width or 200))
