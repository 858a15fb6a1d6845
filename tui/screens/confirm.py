"""A yes/no question before something that changes files or history; dismisses True (yes) or False (no, esc).
The one confirmation screen: /undo's question, and its list of hand-edited files to overwrite, use it too."""

from __future__ import annotations

from contextual.tui.css import stylesheet
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmModal(ModalScreen[bool]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("y", "answer(True)", "yes"), Binding("n,escape", "answer(False)", "no")]

    def __init__(self, title: str, question: str | Text, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text, self.yes, self.no = title, yes, no
        self.question = Text(question) if isinstance(question, str) else question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            with VerticalScroll(id="confirm-body"):      # a long list of files scrolls; the buttons stay
                yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.no} [n]", id="no", variant="primary")
                yield Button(f"{self.yes} [y]", id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = self.title_text
        self.query_one("#no", Button).focus()       # the safe answer is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(bool(yes))
