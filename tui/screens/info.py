"""A modal with a title and some text: /help, /model, and the no-model explanation."""

from __future__ import annotations

from contextual.tui.css import stylesheet
from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Static


class InfoScreen(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape,q,enter", "dismiss", "close")]

    def __init__(self, title: str, body: RenderableType | Widget) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="info-box"):
            yield self.body if isinstance(self.body, Widget) else Static(self.body)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#info-box").border_title = self.title_text        # its key: the footer
