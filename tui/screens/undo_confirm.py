"""Undo found files the user edited by hand after the turn: overwrite them with their state from before it?
Dismisses with True (overwrite) or False (keep the hand edits); esc keeps them."""

from __future__ import annotations

from contextual.tui.css import stylesheet
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def file_list(paths: list[str]) -> Text:
    listing = Text()
    for index, path in enumerate(paths):
        if index:
            listing.append("\n")
        listing.append("  ✎ ", style="bold #d7af5f")
        listing.append(path)
    return listing


class UndoConfirmModal(ModalScreen[bool]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("y", "answer(True)", "overwrite"), Binding("n,escape", "answer(False)", "keep my edits")]

    def __init__(self, paths: list[str]) -> None:
        super().__init__()
        self.paths = list(paths)

    def compose(self) -> ComposeResult:
        with Vertical(id="undo-box"):
            count = len(self.paths)
            yield Static(f"{count} file{'s' if count != 1 else ''} changed by hand after the turn:", id="undo-what")
            with VerticalScroll(id="undo-files"):
                yield Static(file_list(self.paths))
            yield Static(Text("Overwrite them with their state from before the turn? Your edits to them are lost.",
                              style="bold"), id="undo-question")
            with Horizontal(id="undo-buttons"):
                yield Button("Keep my edits [n]", id="keep", variant="primary")
                yield Button("Overwrite [y]", id="overwrite", variant="error")

    def on_mount(self) -> None:
        self.query_one("#undo-box").border_title = "Undo"
        self.query_one("#keep", Button).focus()       # the safe answer is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "overwrite")

    def action_answer(self, overwrite: bool) -> None:
        self.dismiss(bool(overwrite))
