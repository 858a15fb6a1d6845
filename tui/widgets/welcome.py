"""The chat's first lines on an empty session: the model and its window, and the keys that matter."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from contextual.tui.format import tokens
from contextual.tui.laid_out import laid_out_size
from contextual.tui.screen_safe import screen_text

# The app's own bindings (tui/app.py, the input's enter, the palette): what a new user needs before anything else.
# tab: from the input, on to the chat's "▶ N tool calls" rows (enter opens one); nothing said so
KEYS = (("enter", "send"), ("esc", "interrupt"), ("ctrl+p or /", "commands"), ("tab", "to tool calls"))


def welcome_text(model: str | None, window: int, window_source: str, width: int = 200,
                 unreached: bool = False) -> Text:
    """Two lines, or one line per key when the keys' line is wider than ``width`` (a key is never split).
    ``unreached``: the server did not answer at launch, so the window is a guess and says so."""
    where = window_source.split(":", 1)[0]         # "server: llama.cpp /props" -> "server"
    named = "model table" if where == "table" else where
    source = (f" ({named}, server not reached)" if unreached else "" if where == "default" else f" ({named})")
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
        self._facts: tuple[str | None, int, str, bool] = (None, 0, "default", False)

    def show(self, model: str | None, window: int, window_source: str, unreached: bool = False) -> None:
        self._facts = (model, window, window_source, unreached)
        self.refresh(layout=True)

    def render(self) -> Text:
        model, window, source, unreached = self._facts
        width = laid_out_size(self).width
        return welcome_text(model, window, source, width=width or 200, unreached=unreached)
