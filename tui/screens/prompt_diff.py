"""Prompt diff (issue 19.4): what changed from one model call to the next, and where the cache broke.

Shows core.context.prompt_diff's PromptDiff: the cache break (where, why, what it cost) on top, then one row
per change (added, compressed, cut, archived, moved, edited) with its tokens before and after. Given the
session's SentLog, left/right step through every pair of consecutive calls (the newest first).
"""

from __future__ import annotations

from contextual.core.context.prompt_diff import PromptDiff
from contextual.core.context.sent_log import SentLog
from contextual.core.plural import plural
from contextual.tui.css import stylesheet
from contextual.tui.format import tokens
from contextual.tui.widgets.table_fit import fit_columns
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static


def cache_line(diff: PromptDiff, priced: bool = True) -> str:
    """``priced``: the model has prices; a local server's bills nothing, and its cache saves time, not money (it
    spoke of tokens "billed in full … at full price" for an unpriced llama.cpp model)."""
    brk = diff.cache_break
    if brk is None:
        return "Cache: the whole previous prompt is the start of this one — a provider cache reuses all of it."
    head = (f"Cache broke at message {brk.index + 1}: {brk.reason} — {brk.detail}. "
            f"Reused {tokens(brk.reused_tokens)}; {tokens(brk.lost_tokens)} that were cached ")
    if not priced:
        return head + "are read again (this model has no prices: the server spends time on them, not money)."
    return head + f"are billed in full again (≈ {tokens(round(brk.cost))} extra at full price)."


class PromptDiffScreen(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    # priority: the table's own left/right (its scroll, not shown; its columns are fitted) hid these from the footer
    BINDINGS = [Binding("escape,q", "dismiss", "close"),
                Binding("left", "step(-1)", "older call", priority=True),
                Binding("right", "step(1)", "newer call", priority=True)]

    def __init__(self, diff: PromptDiff | None = None, title: str = "Prompt diff: previous call → next call",
                 log: SentLog | None = None, rebuilt: bool = False, priced: bool = True) -> None:
        super().__init__()
        self.priced = priced            # the model has prices (cache_line)
        self.sent = log
        self.rebuilt = rebuilt          # the calls rebuilt from the session's record (a resumed session), not kept
        self.position = len(log.calls) - 1 if log is not None else 0
        self.diff = diff if diff is not None else (log.diff(self.position) if log is not None else None)
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-box"):
            yield Static("", id="diff-totals", markup=False)
            yield Static("", id="diff-cache", markup=False)
            yield DataTable(id="diff-changes", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in ("change", "layer", "message", "form", "tokens"):
            table.add_column(name, key=name)
        self._show()

    def _show(self) -> None:
        title = self.title_text
        if self.sent is not None and self.diff is not None:
            call = self.sent.calls[self.position]
            title = f"Prompt diff: call {call.number - 1} → call {call.number} of {self.sent.count}" + (
                " · rebuilt from the session" if self.rebuilt else "")
        self.query_one("#diff-box").border_title = title        # its keys: the footer
        table = self.query_one(DataTable)
        table.clear()
        d = self.diff
        if d is None:
            self.query_one("#diff-totals", Static).update("Fewer than two model calls so far: nothing to compare.")
            self.query_one("#diff-cache", Static).update("")
            return
        self.query_one("#diff-totals", Static).update(
            f"{tokens(d.before_tokens)} → {tokens(d.after_tokens)} tokens · "
            f"{plural(d.unchanged, 'message')} unchanged · {len(d.changes)} changed")
        self.query_one("#diff-cache", Static).update(cache_line(d, self.priced))
        for c in d.changes:
            form = " → ".join(f for f in (c.before_form, c.after_form) if f)
            table.add_row(c.kind, c.layer, Text(c.source), form,
                          f"{tokens(c.before_tokens)} → {tokens(c.after_tokens)}")
        self._fit()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)        # once laid out: the table's new width is known then

    def _fit(self) -> None:
        changes = self.diff.changes if self.diff is not None else ()
        fit_columns(self.query_one(DataTable), {"message": [c.source for c in changes]})

    def action_step(self, delta: int) -> None:
        if self.sent is None:
            return
        position = self.position + delta
        if 0 < position < len(self.sent.calls):
            self.position = position
            self.diff = self.sent.diff(position)
            self._show()
