"""/policies (issue 19.5): this session replayed under every context policy, side by side.

The replays run in a worker thread (core.replay.session_policies); each policy's row appears as soon as it
is measured. Enter on a row closes the screen with that policy, which the app makes the live one.
"""

from __future__ import annotations

import asyncio
from typing import Sequence

from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.core.replay.metrics import Figures
from contextual.core.replay.runner import POLICIES
from contextual.core.replay.session_policies import compare_policies
from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from contextual.tui.format import tokens
from contextual.tui.row_keys import after_moves
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


class PoliciesScreen(ModalScreen[str | None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape,q", "dismiss(None)", "close"),
                Binding("enter", "choose", "make live", priority=True)]

    def __init__(self, record: Sequence[Message], config: Config, live: str,
                 policies: Sequence[str] = POLICIES) -> None:
        super().__init__()
        self.record = list(record)
        self.config = config
        self.live = live
        self.policies = list(policies)
        self.figures: dict[str, Figures] = {}
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="policies-box"):
            yield Static(f"Replaying this session under {len(self.policies)} policies…", id="policies-status",
                         markup=False)
            yield DataTable(id="policies", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#policies-box").border_title = "Context policies on this session"    # keys: the footer
        table = self.query_one(DataTable)
        # short heads: at 80 columns the last one was cut (billed: with the cache's prices; lines: line recall)
        table.add_columns("policy", "tokens", "vs live", "billed", "recall", "lines", "peak")
        if not any(m.role == "user" for m in self.record):
            self.query_one("#policies-status", Static).update("Nothing to replay yet: this session has no turns.")
            return
        self._replay()

    @work(thread=True, exclusive=True, exit_on_error=False, group="policies")
    def _replay(self) -> None:
        def heard(policy: str, figures: Figures) -> None:
            self.app.call_from_thread(self._add, policy, figures)
        try:
            asyncio.run(compare_policies(self.record, self.config, self.policies, on_result=heard))
        except Exception as exc:   # a replay failure is shown, never a crashed app
            self.app.call_from_thread(self._failed, f"replay failed: {type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._done)

    def _add(self, policy: str, figures: Figures) -> None:
        self.figures[policy] = figures
        live = self.figures.get(self.live)
        versus = _ratio(figures.prompt_tokens / live.prompt_tokens) if live and live.prompt_tokens else "–"
        name = f"{policy} (live)" if policy == self.live else policy
        self.query_one(DataTable).add_row(name, tokens(figures.prompt_tokens), versus,
                                          tokens(round(figures.billed_tokens)), _ratio(figures.recall),
                                          _ratio(figures.line_recall), tokens(figures.peak_prompt), key=policy)
        self.query_one("#policies-status", Static).update(
            f"Measured {len(self.figures)} of {len(self.policies)} policies…")

    def _done(self) -> None:
        turns = sum(m.role == "user" for m in self.record)
        same = len({f.prompt_tokens for f in self.figures.values()}) == 1 and len(self.figures) > 1
        self.query_one("#policies-status", Static).update(
            f"{len(self.figures)} policies replayed on this session's {plural(turns, 'turn')}: same replies, same "
            "tool results, only the context policy differs, all in one conversation with no window and no "
            "compaction (tokens and peak can pass this session's window: they measure the policy alone)."
            + (" They send the same here: they differ only in how a turn's earlier observations are sent, and "
               "none of these was worth shortening." if same else ""))

    def _failed(self, message: str) -> None:
        self.error = message
        self.query_one("#policies-status", Static).update(message)

    def action_choose(self) -> None:
        after_moves(self.query_one(DataTable), self._choose)

    def _choose(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self.dismiss(key)
