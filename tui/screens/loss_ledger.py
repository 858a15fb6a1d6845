"""The loss ledger of one compaction (issue 19.2): what it dropped, and where each item came from.

Enter (or r) chooses the highlighted item: the screen closes with it, and its opener uses it (/ledger and
/compactions queue its reminder into the next input; the compaction preview adds it to the summary). The ledger
itself is core.context.ledger's; this screen only shows it.
"""

from __future__ import annotations

from contextual.core.context.ledger import Ledger, LostFact
from contextual.core.plural import plural
from contextual.tui.css import stylesheet
from contextual.tui.row_keys import after_moves
from contextual.tui.widgets.table_fit import fit_columns
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static


class LossLedgerScreen(ModalScreen[LostFact | None]):
    CSS_PATH = stylesheet(__name__)
    # One key, two meanings: the footer names what the opener does with the chosen item (check_action keeps one).
    BINDINGS = [Binding("escape,q", "dismiss(None)", "close"),
                Binding("enter,r", "choose", "re-inject", priority=True),
                Binding("enter,r", "choose_for_summary", "add to summary", priority=True)]

    def __init__(self, ledger: Ledger, title: str = "What this compaction dropped", for_summary: bool = False) -> None:
        super().__init__()
        self.ledger = ledger
        self.title_text = title
        self.for_summary = for_summary      # opened from the compaction preview: the item joins the summary
        self.enter_does = "adds one to the summary" if for_summary else "re-injects one into your next message"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("choose", "choose_for_summary"):      # nothing lost: no item to choose, no key for it
            return bool(self.ledger.facts) and (action == "choose_for_summary") == self.for_summary
        return True

    def compose(self) -> ComposeResult:
        # Nothing lost: the headline alone says so (a table of headers only stood under it)
        with Vertical(id="ledger-box", classes="" if self.ledger.facts else "-empty"):
            yield Static(self._headline(), id="ledger-count", markup=False)
            if self.ledger.facts:
                yield DataTable(id="ledger", cursor_type="row", zebra_stripes=True)
                yield Static("", id="ledger-line", markup=False)
        yield Footer()

    def _headline(self) -> str:
        if not self.ledger.facts:
            return "Nothing lost: the summary and the kept rounds hold every archived fact."     # one line at 80
        kinds: dict[str, int] = {}
        for fact in self.ledger.facts:
            kinds[fact.kind] = kinds.get(fact.kind, 0) + 1
        parts = [plural(n, kind) for kind, n in kinds.items()]
        more = sum(self.ledger.omitted.values())
        tail = f" (and {more} more not listed)" if more else ""
        return "Lost: " + ", ".join(parts) + tail + f" · enter {self.enter_does}"

    def on_mount(self) -> None:
        self.query_one("#ledger-box").border_title = self.title_text       # its keys: the footer
        if not self.ledger.facts:
            return
        table = self.query_one(DataTable)
        # the short columns first: at 80 columns the long ones are cut, and the line below says them whole
        for name in ("kind", "seen", "lost", "from"):
            table.add_column(name, key=name)
        for fact in self.ledger.facts:
            table.add_row(fact.kind, str(fact.mentions), Text(fact.text), Text(fact.source.label))
        self._show_line(0)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)        # once laid out: the table's new width is known then

    def _fit(self) -> None:
        if not self.ledger.facts:
            return
        fit_columns(self.query_one(DataTable), {"lost": [f.text for f in self.ledger.facts],
                                                "from": [f.source.label for f in self.ledger.facts]})

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_line(event.cursor_row)

    def _show_line(self, row: int) -> None:
        if 0 <= row < len(self.ledger.facts):
            fact = self.ledger.facts[row]
            self.query_one("#ledger-line", Static).update(f"from {fact.source.label} · line: {fact.line}")

    def action_choose(self) -> None:
        after_moves(self.query_one(DataTable), self._choose)

    def _choose(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.ledger.facts):
            self.dismiss(self.ledger.facts[row])

    def action_choose_for_summary(self) -> None:
        self.action_choose()
