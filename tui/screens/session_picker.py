"""/resume: the sessions of this project, newest first, by title (the first request until renamed); typing filters
them (title, first request or id, any case; backspace edits, esc clears), enter picks the highlighted one, ctrl+t
renames it (t is a letter of the filter). The session you are in is marked, and so is one whose last turn failed
(the resumed chat says why)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from contextual.core.clock import local_minutes
from contextual.core.textsafe import strip_control
from contextual.tui.css import stylesheet
from contextual.tui.format import one_line, short_id, tokens
from contextual.tui.remembered import Remembered
from contextual.tui.row_keys import after_moves
from contextual.tui.widgets.table_fit import fit_columns
from contextual.tui.widgets.text_box import TextBox
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static


FAILED_MARK = "✗"


def _rounds(info: Any) -> Text:
    """The rounds, marked when the last one failed: inside the column's own width, so 80 columns still fit."""
    rounds = Text(str(getattr(info, "rounds", "")))
    return rounds.append(f" {FAILED_MARK}", "bold red") if getattr(info, "last_failed", False) else rounds


def when(updated: str, now: datetime | None = None) -> str:
    """`2026-11-27 07:36` in local time, without the year in the year it is: five more columns for the title."""
    stamp = local_minutes(updated)
    year = str((now or datetime.now()).year)
    return stamp[5:] if stamp.startswith(year + "-") else stamp


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None."""

    CSS_PATH = stylesheet(__name__)
    # priority: the table's own enter (its select, not shown) hid this one from the footer
    # ctrl+t too: what is typed with it is the title's (tui/widgets/text_box.py)
    BINDINGS = [Binding("enter", "pick", "resume", priority=True), Binding("escape", "close", "close"),
                Binding("ctrl+t", "rename", "rename", priority=True),
                Binding("backspace", "unfilter", "edit filter", show=False)]

    def __init__(self, sessions: list[Any], remembered: Remembered | None = None, current: str | None = None) -> None:
        super().__init__()
        self.sessions, self.remembered, self.current = sessions, remembered, current
        self.titles = remembered.titles() if remembered is not None else {}
        self.filter = ""
        self.shown: list[Any] = list(sessions)       # the rows, in order: the sessions the filter lets through
        self.offered = ""                            # the title the rename box opened with

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            if not self.sessions:
                yield Static("No saved sessions for this project yet.", id="picker-empty")
            yield Static(id="picker-filter")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield Static(Text.assemble((FAILED_MARK, "bold red"), " last turn failed: resume the session to read why"),
                         id="picker-legend")
            yield TextBox("title (enter saves, esc cancels)", "picker-title", self.titled, self.action_close)
        yield Footer()

    def title_of(self, info: Any) -> str:
        return self.titles.get(str(info.id)) or getattr(info, "first_prompt", "") or ""

    def on_mount(self) -> None:
        self.query_one("#picker-box").border_title = "Resume · type to filter"     # its keys: the footer
        self.query_one("#picker-title").display = False
        self.query_one("#picker-filter").display = False
        self.query_one("#picker-legend").display = any(getattr(info, "last_failed", False) for info in self.sessions)
        table = self.query_one(DataTable)
        table.add_column("updated", key="updated")
        table.add_column("title", key="title")
        for name in ("rounds", "compactions", "tokens", "id"):
            table.add_column(name, key=name)
        self._rows()
        self.set_focus(table)              # at once: a ctrl+t read as the list opened focuses the title after this

    def _rows(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for info in self.shown:
            here = str(info.id) == self.current
            # Text, not str: a DataTable reads a str cell as markup, and a session line's time `[/]…` ended the app
            table.add_row(Text(one_line(when(str(getattr(info, "updated", ""))), 16)),
                          Text(one_line(self.shown_title(info), 60), style="bold" if here else ""),
                          _rounds(info), Text(one_line(str(getattr(info, "compactions", "")), 8)),
                          Text(tokens(getattr(info, "last_tokens", None))), Text(one_line(short_id(str(info.id)), 8)),
                          key=str(info.id))

    def matches(self, info: Any) -> bool:
        needle = self.filter.casefold()
        return any(needle in str(text).casefold()
                   for text in (self.title_of(info), getattr(info, "first_prompt", ""), info.id))

    def set_filter(self, text: str) -> None:
        """The rows the filter lets through, the first highlighted; the filter's line says what it holds."""
        self.filter = text
        self.shown = [info for info in self.sessions if self.matches(info)]
        line = self.query_one("#picker-filter", Static)
        line.display = bool(text)
        found = (f"{len(self.shown)} of {len(self.sessions)}" if self.shown else "no session matches")
        line.update(Text.assemble("filter: ", (text, "bold"), f"▏ {found} · backspace edits · esc clears"))
        self._rows()
        self._fit()
        title = self.query_one("#picker-title", TextBox)
        if title.display and title.value == self.offered:
            # letters typed before ctrl+t, read after it (one burst): the rename is the highlighted row's, and its
            # title, untouched yet, follows it, selected as on opening (typing replaces it)
            self._offer_title()
            title.select_all()

    def on_key(self, event: events.Key) -> None:
        # A letter that reaches the screen was typed into no title (the input keeps what it types): it filters, also
        # one typed before ctrl+t in its burst and read after it opened the title
        if not event.is_printable or not event.character:
            return            # a key of the table's own
        if event.character == " " and not self.filter:
            return
        event.stop()
        event.prevent_default()
        self.set_filter(self.filter + event.character)

    def on_paste(self, event: events.Paste) -> None:
        # an id copied from a shell (`contextual -r 75f5b5dc`) pasted here was dropped: it filters as typed (a paste
        # into the title stays the title's input's)
        event.stop()
        pasted = " ".join(strip_control(event.text).split())
        if pasted:
            self.set_filter(self.filter + pasted)

    def action_unfilter(self) -> None:
        if self.filter:
            self.set_filter(self.filter[:-1])

    def shown_title(self, info: Any) -> str:
        return ("● " if str(info.id) == self.current else "") + self.title_of(info)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)        # once laid out: the table's width, less its scrollbar, is known

    def _fit(self) -> None:
        # The title takes what the other columns leave, measured on the table as laid out: worked out from the
        # screen's width, it forgot the scrollbar a long list has, and at 80 columns the table scrolled sideways
        # (the id cut to 6 characters, `end` moving the view right instead of to the last session).
        if self.shown:
            fit_columns(self.query_one(DataTable), {"title": [self.shown_title(info) for info in self.shown]})

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_rename(self) -> None:
        if not self.shown or self.remembered is None:
            return
        self._offer_title()
        self.query_one("#picker-title", TextBox).open()

    def _offer_title(self) -> None:
        """The rename box holds the highlighted row's title, to edit."""
        info = self.shown[self.query_one(DataTable).cursor_row] if self.shown else None
        self.offered = self.query_one("#picker-title", TextBox).value = self.title_of(info) if info else ""

    def titled(self, title: str) -> None:
        table = self.query_one(DataTable)
        if self.shown:          # none when letters typed before ctrl+t, read after it, filtered every row away
            assert self.remembered is not None
            self.remembered.set_title(str(self.shown[table.cursor_row].id), title)
            self.titles = self.remembered.titles()
            self._fit()
        self.query_one("#picker-title", TextBox).close(table)

    def action_close(self) -> None:
        title = self.query_one("#picker-title", TextBox)
        if title.display:
            title.close(self.query_one(DataTable))
            return
        if self.filter:           # esc clears the filter first, then closes
            self.set_filter("")
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rename", "unfilter", "pick") and self.is_mounted and self.query_one("#picker-title").display:
            return None      # typing a title: its keys are the input's (enter saves it)
        if action == "pick":
            return bool(self.shown)      # no row: nothing to resume
        return True

    def action_pick(self) -> None:
        table = self.query_one(DataTable)
        after_moves(table, table.action_select_cursor)
