"""Compaction preview (issue 19.1): the rounds to be archived on the left, the summary (editable) on the right.

ctrl+s accepts the text as it stands (that is what is stored), ctrl+r asks the summary model again with the
instructions typed below, ctrl+l shows what this summary would lose (the loss ledger, recomputed for the
edited text), the line below the panes is the recall probe ("keeps 41 of 47 facts", the missing ones named) and
ctrl+t appends the missing facts to the summary, esc cancels and leaves history exactly as it was.
"""

from __future__ import annotations

from contextual.core import tokens as counts
from contextual.core.context.builder import history_message
from contextual.core.context.compaction_review import CompactionReview, ReviewDecision
from contextual.core.context.ledger import Ledger, LostFact, repaired
from contextual.core.messages import Message
from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from contextual.tui.format import tokens
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static, TextArea
from textual.timer import Timer

PREVIEW_CHARS = 400       # of each archived message; the whole text is in History
MISSING_SHOWN = 4         # missing facts named on the probe's line; ctrl+l lists them all
RECOUNT_AFTER = 0.3       # seconds of no typing before "would lose" is recounted


def _row(m: Message) -> str:
    head = {"user": "user", "assistant": "assistant", "tool": f"{m.tool_name or 'tool'} result"}.get(m.role, m.role)
    # As the prompt sends it (a tool result's stored form as text, not its JSON with \n escapes), and
    # screen-safe: a pasted log's escapes would reach the terminal
    content = screen_text(history_message(m).content)
    text = content if len(content) <= PREVIEW_CHARS else content[:PREVIEW_CHARS] + " …"
    return f"── {head} ──\n{text}"


class CompactionPreviewScreen(ModalScreen[ReviewDecision]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("ctrl+s", "accept", "accept", priority=True),
                Binding("ctrl+r", "retry", "retry", priority=True),
                Binding("ctrl+l", "ledger", "what it loses", priority=True),
                Binding("ctrl+t", "append_missing", "add missing", priority=True),
                Binding("escape", "cancel", "cancel", priority=True),
                # The title says "tab" edits the summary: from the instructions the focus chain wrapped to the
                # archived rounds' pane first, and what was typed next went nowhere. Priority, and the focus moves
                # at once: what is typed with the tab is the summary's, not the instructions' (tui/widgets/text_box.py)
                Binding("tab", "tab_from_instructions", show=False, priority=True)]

    def __init__(self, review: CompactionReview) -> None:
        super().__init__()
        self.review = review
        self._recount: Timer | None = None
        self._retry_asked = False
        self._missing = False       # the summary as it stands misses facts: ctrl+l lists them, ctrl+t appends them
        # What the archived rounds cost in the prompt now, as the builder sends them unfitted (stored forms as text,
        # the units of the trigger estimate): a summary no smaller saves nothing.
        self.replaced = sum(counts.count(history_message(m).content) for m in review.archive)

    def compose(self) -> ComposeResult:
        r = self.review
        rounds = sum(1 for m in r.archive if m.starts_turn)
        with Vertical(id="preview-box"):
            # "keeps 2 verbatim" beside "replaces 9 messages (2 rounds": 2 of which? The unit is said.
            yield Static(f"{r.trigger} compaction · attempt {r.attempt} · replaces {len(r.archive)} messages "
                         f"({plural(rounds, 'round')}, ~{tokens(self.replaced)} tokens); "
                         f"keeps {plural(len(r.kept), 'message')} verbatim",
                         id="preview-head", markup=False)
            with Horizontal(id="preview-panes"):
                with VerticalScroll(id="preview-archive"):
                    for m in r.archive:
                        yield Static(_row(m), classes="archived", markup=False)
                yield TextArea(r.summary, id="preview-summary", soft_wrap=True)
            yield Static(self._loss_line(r.summary), id="preview-loss", markup=False)
            # at most 70 characters: what an 80-column box shows of it (it lost "messages" there)
            yield Input(placeholder="instructions for a retry (enter or ctrl+r), e.g. keep the exact errors",
                        id="preview-instructions")
        yield Footer()

    def on_mount(self) -> None:
        # the keys are the footer's: at 80 columns a list of them in the title was cut after the third
        self.query_one("#preview-box").border_title = "Compaction preview"
        self.query_one("#preview-archive").border_title = "archived rounds"
        self.query_one("#preview-summary").border_title = "summary (editable: tab or click)"
        # What is typed first goes to the retry's instructions: in the summary it landed before its heading
        # (`typed first## 📌 Archived…`). Editing the summary is a choice: tab or a click. At once: a tab read as
        # the preview opened moves on to the summary after this.
        self.set_focus(self.query_one("#preview-instructions", Input))

    def action_tab_from_instructions(self) -> None:
        if self.focused is self.query_one("#preview-instructions", Input):
            self.set_focus(self.query_one(TextArea))
        else:
            self.focus_next()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():              # instructions typed, then enter: the retry they are for
            self.action_retry()

    def _loss_line(self, text: str) -> str:
        """The recall probe (issue 30): how many of the archived rounds' facts this summary keeps, and which not;
        then what the summary costs against what it replaces."""
        ledger = self.review.ledger_for(text)
        self._missing = bool(ledger.facts)
        if not ledger.total:
            probe = "The archived rounds held no facts the probe checks; this summary loses none."
        elif not ledger.lost():
            probe = f"This summary {ledger.score()} the archived rounds held; it loses nothing."
        else:
            shown = ", ".join(f.text for f in ledger.facts[:MISSING_SHOWN])
            more = f" and {ledger.lost() - MISSING_SHOWN} more" if ledger.lost() > MISSING_SHOWN else ""
            probe = f"This summary {ledger.score()}; missing: {shown}{more} · ctrl+t appends them, ctrl+l lists them"
        return f"{probe} · {self._size_note(text)}"

    def _size_note(self, text: str) -> str:
        size = counts.count(text)
        if size >= self.replaced:       # e.g. /compact 1 over short rounds: the prompt would grow
            return (f"the summary (~{tokens(size)} tokens) is no smaller than what it replaces "
                    f"(~{tokens(self.replaced)}): compacting saves nothing")
        return f"summary ~{tokens(size)} tokens, replacing ~{tokens(self.replaced)}"

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # The ledger reads the whole archive (~0.1 s for a long one): recount once typing pauses, not per key.
        if self._recount is not None:
            self._recount.stop()
        self._recount = self.set_timer(RECOUNT_AFTER, self._update_loss)

    def _update_loss(self) -> None:
        self._recount = None
        self.query_one("#preview-loss", Static).update(self._loss_line(self.query_one(TextArea).text))
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Nothing missing: no list to open and nothing to append, so no key for them in the footer
        return self._missing or action not in ("ledger", "append_missing")

    def action_accept(self) -> None:
        text = self.query_one(TextArea).text.strip()
        if not text:
            self.notify("an empty summary would lose everything: write one, retry, or cancel", severity="warning")
            return
        self.dismiss(ReviewDecision.accept(text))

    def action_retry(self) -> None:
        edited = self.query_one(TextArea).text.strip() != self.review.summary.strip()
        if edited and not self._retry_asked:         # a retry replaces the summary: edits would go unsaid
            self._retry_asked = True
            self.notify("A retry asks for a new summary and drops your edits to this one: ctrl+r again to retry, "
                        "ctrl+s keeps them", severity="warning", timeout=6)
            return
        self.dismiss(ReviewDecision.retry(self.query_one("#preview-instructions", Input).value.strip()))

    def action_cancel(self) -> None:
        self.dismiss(ReviewDecision.cancel())

    def action_append_missing(self) -> None:
        area = self.query_one(TextArea)
        text = repaired(area.text, self.review.ledger_for(area.text))
        if text != area.text:
            area.load_text(text)
            self._update_loss()

    def action_ledger(self) -> None:
        self.app.push_screen(LossLedgerScreen(self.review.ledger_for(self.query_one(TextArea).text),
                                              "What this summary would lose", for_summary=True),
                             self._add_to_summary)

    def _add_to_summary(self, fact: LostFact | None) -> None:
        """A lost item chosen in the ledger: the summary under review says it (as ctrl+t does for all of them)."""
        if fact is None:
            return
        area = self.query_one(TextArea)
        area.load_text(repaired(area.text, Ledger((fact,), {})))
        self._update_loss()
