"""`# text` in the input: where to remember it, the project's rules file or the user's own (core/memory.py).
Dismisses with "project", "user" or None (esc)."""

from __future__ import annotations

from pathlib import Path

from contextual.tui.css import stylesheet
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static


class MemoryChoice(ModalScreen[str | None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("p", "dismiss('project')", "project"), Binding("u", "dismiss('user')", "yours"),
                Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, text: str, project: Path, user: Path) -> None:
        super().__init__()
        self.text, self.project, self.user = text, project, user

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-box"):
            yield Static(Text.assemble(("- " + self.text, "bold"), "\n\nis added to a rules file, which every "
                                       "prompt sends (L2) from the next call on."), id="memory-what")
            with Horizontal(id="memory-buttons"):
                yield Button(Text(f"{self.project.name} of this project [p]"), id="project", variant="primary",
                             compact=True)
                yield Button(Text("yours, every project [u]"), id="user", compact=True)
            yield Static(Text(f"p: {self.project}\nu: {self.user}", style="dim"), id="memory-paths")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#memory-box").border_title = "Remember"        # its keys: the footer
        self.query_one("#project", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)
