"""/resume: the sessions of this project, newest first; enter picks one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.format import one_line, tokens


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape", "dismiss(None)", "close")]

    def __init__(self, sessions: list[Any]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            if not self.sessions:
                yield Static("No saved sessions for this project yet.", id="picker-empty")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#picker-box").border_title = "Resume a session · enter picks · esc closes"
        table = self.query_one(DataTable)
        table.add_columns("updated", "first prompt", "rounds", "compactions", "tokens", "id")
        for info in self.sessions:
            table.add_row(str(getattr(info, "updated", ""))[:16].replace("T", " "),
                          one_line(getattr(info, "first_prompt", "") or "", 50),
                          str(getattr(info, "rounds", "")), str(getattr(info, "compactions", "")),
                          tokens(getattr(info, "last_tokens", None)), str(info.id)[:8], key=str(info.id))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)
