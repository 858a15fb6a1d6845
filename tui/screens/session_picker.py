"""/resume: the sessions of this project, newest first, by title (the first request until renamed); enter picks
one, t renames the highlighted one. The session you are in is marked, and so is one whose last turn failed (the
resumed chat says why)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from contextual.tui.css import stylesheet
from contextual.tui.format import one_line, tokens
from contextual.tui.settings import Remembered
from contextual.tui.widgets.table_fit import fit_columns
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Static


FAILED_MARK = "✗"


def _rounds(info: Any) -> Text:
    """The rounds, marked when the last one failed: inside the column's own width, so 80 columns still fit."""
    rounds = Text(str(getattr(info, "rounds", "")))
    return rounds.append(f" {FAILED_MARK}", "bold red") if getattr(info, "last_failed", False) else rounds


def when(updated: str, now: datetime | None = None) -> str:
    """`2026-11-27 07:36`, without the year in the year it is: five more columns for the title."""
    stamp = updated[:16].replace("T", " ")
    year = str((now or datetime.now()).year)
    return stamp[5:] if stamp.startswith(year + "-") else stamp


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None."""

    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape", "close", "close"), Binding("t", "rename", "rename")]

    def __init__(self, sessions: list[Any], remembered: Remembered | None = None, current: str | None = None) -> None:
        super().__init__()
        self.sessions, self.remembered, self.current = sessions, remembered, current
        self.titles = remembered.titles() if remembered is not None else {}

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            if not self.sessions:
                yield Static("No saved sessions for this project yet.", id="picker-empty")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield Static(Text.assemble((FAILED_MARK, "bold red"), " last turn failed: resume the session to read why"),
                         id="picker-legend")
            yield Input(placeholder="title (enter saves, esc cancels)", id="picker-title")
        yield Footer()

    def title_of(self, info: Any) -> str:
        return self.titles.get(str(info.id)) or getattr(info, "first_prompt", "") or ""

    def on_mount(self) -> None:
        self.query_one("#picker-box").border_title = "Resume a session · enter picks · t renames · esc closes"
        self.query_one("#picker-title").display = False
        self.query_one("#picker-legend").display = any(getattr(info, "last_failed", False) for info in self.sessions)
        table = self.query_one(DataTable)
        table.add_column("updated", key="updated")
        table.add_column("title", key="title")
        for name in ("rounds", "compactions", "tokens", "id"):
            table.add_column(name, key=name)
        for info in self.sessions:
            here = str(info.id) == self.current
            table.add_row(when(str(getattr(info, "updated", ""))),
                          Text(one_line(self.shown_title(info), 60), style="bold" if here else ""),
                          _rounds(info), str(getattr(info, "compactions", "")),
                          tokens(getattr(info, "last_tokens", None)), str(info.id)[:8], key=str(info.id))
        table.focus()

    def shown_title(self, info: Any) -> str:
        return ("● " if str(info.id) == self.current else "") + self.title_of(info)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)        # once laid out: the table's width, less its scrollbar, is known

    def _fit(self) -> None:
        # The title takes what the other columns leave, measured on the table as laid out: worked out from the
        # screen's width, it forgot the scrollbar a long list has, and at 80 columns the table scrolled sideways
        # (the id cut to 6 characters, `end` moving the view right instead of to the last session).
        if self.sessions:
            fit_columns(self.query_one(DataTable), {"title": [self.shown_title(info) for info in self.sessions]})

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_rename(self) -> None:
        table = self.query_one(DataTable)
        if not self.sessions or self.remembered is None:
            return
        info = self.sessions[table.cursor_row]
        title = self.query_one("#picker-title", Input)
        title.value = self.title_of(info)
        title.display = True
        title.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        table = self.query_one(DataTable)
        info = self.sessions[table.cursor_row]
        assert self.remembered is not None
        self.remembered.set_title(str(info.id), event.value)
        self.titles = self.remembered.titles()
        self._fit()
        event.input.display = False
        table.focus()

    def action_close(self) -> None:
        title = self.query_one("#picker-title", Input)
        if title.display:
            title.display = False
            self.query_one(DataTable).focus()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rename" and self.is_mounted and self.query_one("#picker-title").display:
            return None      # typing a title: t is a letter
        return True
