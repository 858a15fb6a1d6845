"""The compaction history of this session: when, trigger, tokens before and after, files included, and how many
facts each one lost; enter opens that compaction's result card, l its loss ledger (issue 19), which can
re-inject an item."""

from __future__ import annotations

from typing import Any

from contextual.core.input_cut import LABEL
from contextual.core.plural import plural
from contextual.core.session.schema import CompactionRecord
from contextual.tui.css import stylesheet
from contextual.tui.format import tokens
from contextual.tui.row_keys import after_moves
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.widgets.table_fit import fit_columns
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static
from contextual.core.context.ledger import LostFact


EMPTY = "No compaction in this session yet: /compact or ctrl+k makes one."     # one line at 80 columns


class CompactionHistoryScreen(ModalScreen[Any]):
    """Dismissed with the lost fact the user chose to re-inject (None when closed)."""
    CSS_PATH = stylesheet(__name__)
    # priority: the table's own enter (its select, not shown) hid this one from the footer; close last there
    BINDINGS = [Binding("enter", "card", "its card", priority=True), Binding("l", "ledger", "what it lost"),
                Binding("escape,q", "dismiss(None)", "close")]

    def __init__(self, compactions: list[CompactionRecord]) -> None:
        super().__init__()
        self.compactions = compactions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # none yet: a table of headers only, and keys in the footer that did nothing; one line says so instead
        return bool(self.compactions) or action not in ("card", "ledger")

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box", classes="" if self.compactions else "-empty"):
            if not self.compactions:
                yield Static(EMPTY, id="history-count")
            else:
                yield Static(f"{plural(len(self.compactions), 'compaction')} in this session", id="history-count")
                yield DataTable(id="compactions", cursor_type="row", zebra_stripes=True)
                # the selected row's free-text columns, whole: at 80 columns the table cut them
                yield Static("", id="history-line", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#history-box").border_title = "Compaction history"      # its keys: the footer
        if not self.compactions:
            return
        table = self.query_one(DataTable)
        # a short head: at 80 columns "files included" took the room its paths need (the line below says it)
        for name in ("#", "when", "trigger", "before", "after", "recall", "lost", "fallback", "files"):
            table.add_column(name, key=name)
        for number, record in enumerate(self.compactions, 1):
            ledger = record.loss_ledger
            lost = str(ledger.lost()) if ledger is not None else "–"
            recall = f"{ledger.kept()}/{ledger.total}" if ledger is not None and ledger.total else "–"
            # Text, not str: a DataTable reads a str cell as markup, and paths and reasons come from outside
            when = (record.timestamp or "")[5:16].replace("T", " ")      # 11-27 02:22: the year is not news
            table.add_row(str(number), when, record.trigger,
                          tokens(record.pre_tokens), tokens(record.post_tokens), recall, lost,
                          Text(_fallback(record)), Text(", ".join(record.files_included) or "none"))

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)        # once laid out: the table's new width is known then

    def _fit(self) -> None:
        if not self.compactions:
            return
        fit_columns(self.query_one(DataTable), {
            "fallback": [_fallback(r) for r in self.compactions],
            "files": [", ".join(r.files_included) or "none" for r in self.compactions]})

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = event.cursor_row
        if 0 <= row < len(self.compactions):
            record = self.compactions[row]
            files, why, cut = ", ".join(record.files_included) or "none", _fallback(record), record.input_cut
            self.query_one("#history-line", Static).update(
                f"#{row + 1} · files included: {files}" + (f" · fallback: {why}" if why else "")
                + (f"\n{LABEL}{cut.words()}" if cut else ""))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # a click on the highlighted row (enter is the screen's own binding)
        event.stop()
        self.action_card()

    def action_card(self) -> None:
        after_moves(self.query_one(DataTable), self._card)

    def _card(self) -> None:
        from contextual.tui.screens.compaction import CompactionModal
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.compactions):
            self.app.push_screen(CompactionModal.card_of(self.compactions[row], row + 1))

    def action_ledger(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if not 0 <= row < len(self.compactions):
            return
        ledger = self.compactions[row].loss_ledger
        if ledger is None:
            self.notify("This compaction has no loss ledger (it was recorded before ledgers existed).", timeout=4)
            return
        self.app.push_screen(LossLedgerScreen(ledger, f"Compaction #{row + 1}: what it dropped"),
                             self._chosen)

    def _chosen(self, fact: LostFact | None) -> None:
        if fact is not None:
            self.dismiss(fact)


def _fallback(record: CompactionRecord) -> str:
    """Why rounds left without a summary: the fallback, or what a summary that ended before it was whole kept."""
    return record.fallback or record.stopped()
