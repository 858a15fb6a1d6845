"""The chat's box, its border lit while the focus is on the chat or one of its rows, and how the chat's own state
changes restyle only itself.

Textual restyles a widget and everything under it when its focus, hover or classes change, and on every focus
change the whole subtree of the outermost `:focus-within` ancestor: `#chat-pane:focus-within` restyled each block of
30 turns at every tab, letter typed from the chat and ↑ ↓ between its rows (0.8-1.2 s a key at the 30th turn, 0.1 s
at the first)."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widget import Widget


def restyle_alone(widget: Widget, animate: bool = True) -> None:
    """For a widget whose own state no style of what it holds reads (tests/test_tui_long_session.py checks every rule
    of the app): a change of its focus or classes restyles it alone, not each widget under it. Called from the
    widget's own `update_node_styles`."""
    widget.app.stylesheet.update_nodes([widget], animate=animate)


class ChatPane(Vertical):
    """`.-lit` (app.tcss) while the main screen's focus is inside it: what `:focus-within` said, at the cost of one
    widget's style."""

    def update_node_styles(self, animate: bool = True) -> None:
        restyle_alone(self, animate)

    def on_mount(self) -> None:
        self.watch(self.screen, "focused", self._light)

    def _light(self, focused: Widget | None) -> None:
        self.set_class(focused is not None and self in focused.ancestors, "-lit")
