"""The main screen's footer, made again only when the keys it shows change.

Textual's Footer is recomposed at every focus change, and its new keys lay out the whole screen again: every widget
of the chat's 30 turns, at each ↑ ↓ between the chat's rows, whose keys are the same from row to row (0.2 s a key
at the 30th turn, 0.09 s without)."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    _shown: tuple[Any, ...] | None = None        # the bindings its keys were last made from

    def bindings_changed(self, screen: Screen[Any]) -> None:
        keys = tuple((binding, enabled, tooltip) for _, binding, enabled, tooltip in screen.active_bindings.values())
        if self._bindings_ready and keys == self._shown:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:    # Footer recomposes only then
            self._shown = keys
        super().bindings_changed(screen)

    def on_mount(self) -> None:         # Footer's own on_mount runs too (Textual calls each class's handler)
        self.watch(self.app, "app_focus", self._app_focus_changed, init=False)

    def _app_focus_changed(self, focused: bool) -> None:
        """While the terminal is in the background no footer is made again; back by a key or a click with no focus
        report first, Textual makes none either: a focus moved meanwhile (a dialog closed by itself, a row's turn
        left) left the keys of the widget focused before."""
        if focused:
            self.bindings_changed(self.screen)
