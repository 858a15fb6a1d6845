"""Permission for Bash/Write/Edit/MultiEdit: allow once, allow for this session, or deny.
Edits show their unified diff highlighted; Bash shows the command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.format import args_label

DECISIONS = ("allow_once", "allow_session", "deny")


def preview_renderable(tool: str, preview: str) -> Syntax:
    lexer = "bash" if tool == "Bash" else "diff"
    return Syntax(preview or "(no preview)", lexer, theme="monokai", word_wrap=True, line_numbers=False)


class PermissionModal(ModalScreen[str]):
    """Dismisses with one of DECISIONS; esc means deny."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        Binding("y,1", "decide('allow_once')", "allow once"),
        Binding("a,2", "decide('allow_session')", "allow for session"),
        Binding("n,3,escape", "decide('deny')", "deny"),
    ]

    def __init__(self, tool: str, args: Any, preview: str) -> None:
        super().__init__()
        self.tool, self.args, self.preview = tool, args, preview

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-box"):
            yield Static(f"[b]{self.tool}[/b] wants to run: {args_label(self.args, 100)}", id="permission-what", markup=True)
            with VerticalScroll(id="permission-preview"):
                yield Static(preview_renderable(self.tool, self.preview))
            with Horizontal(id="permission-buttons"):
                yield Button("Allow once [y]", id="allow_once", variant="success")
                yield Button(f"Allow {self.tool} for this session [a]", id="allow_session", variant="primary")
                yield Button("Deny [n]", id="deny", variant="error")

    def on_mount(self) -> None:
        self.query_one("#permission-box").border_title = "Permission"
        self.query_one("#allow_once", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, decision: str) -> None:
        self.dismiss(decision if decision in DECISIONS else "deny")
