"""The compaction history of this session: when, trigger, tokens before and after, files included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.format import tokens


class CompactionHistoryScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self, compactions: list[dict[str, Any]]) -> None:
        super().__init__()
        self.compactions = compactions

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Static(f"{len(self.compactions)} compaction{'s' if len(self.compactions) != 1 else ''} in this session",
                         id="history-count")
            yield DataTable(id="compactions", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#history-box").border_title = "Compaction history · esc closes"
        table = self.query_one(DataTable)
        table.add_columns("#", "when", "trigger", "before", "after", "fallback", "files included")
        for number, entry in enumerate(self.compactions, 1):
            files = entry.get("filesIncluded") or []
            table.add_row(str(number), str(entry.get("timestamp", ""))[:19].replace("T", " "),
                          str(entry.get("trigger", "")), tokens(entry.get("preTokens")), tokens(entry.get("postTokens")),
                          str(entry.get("fallback") or ""), ", ".join(files) or "none")
