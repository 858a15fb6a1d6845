"""The blocking compaction modal: stage, elapsed time, tokens received; esc stops the summary (the parts finished
are kept, the rest falls back to truncation). It turns into a result card when the compaction ends: a manual
compaction's closes at once (the router: its result is the chat's line), an automatic one's after a few seconds or
on enter or esc, one opened from /compactions on enter or esc; on the card of a turn that goes on behind it, esc
also stops that turn (esc stops what runs)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from contextual.core.context import compaction_words
from contextual.core import input_cut
from contextual.core.events import CompactionFinished, Retrying
from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from contextual.tui.format import SUMMARY_FILES, files_named, ledger_line, size_change, tokens
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from contextual.core.session.schema import CompactionRecord

STAGES = ("choosing", "summarising", "rebuilding")
STAGE_LABEL = {"choosing": "choosing rounds", "summarising": "summarising", "rebuilding": "rebuilding history"}


def stage_line(current: str) -> Text:
    line = Text()
    reached = STAGES.index(current) if current in STAGES else -1
    for index, stage in enumerate(STAGES):
        if index:
            line.append("  →  ", style="dim")
        style = "bold reverse #5fafaf" if index == reached else ("#87af5f" if index < reached else "dim")
        mark = "✓ " if index < reached else ""
        line.append(f" {mark}{STAGE_LABEL[stage]} ", style=style)
    return line


def finished_of(record: CompactionRecord) -> CompactionFinished:
    """What a logged compaction says, as the event its card shows."""
    return CompactionFinished("manual" if record.trigger == "manual" else "auto", record.pre_tokens or 0,
                              record.post_tokens or 0, record.rounds_archived or 0, record.files_included, "",
                              record.fallback, parts=record.parts, rounds_truncated=record.rounds_truncated,
                              ended=record.ended, input_cut=record.input_cut)


def result_card(result: CompactionFinished, lost: str = "") -> Text:
    """What a CompactionFinished says, as a few lines, in plain words: the title above names the compaction
    ("manual compaction"), so the card says how it ended, the trigger estimate before and after (the meter's first
    figure, by the meter's name: "next prompt 121k → 702" stood beside the meter's "next prompt 5.9k", its second),
    and what was archived (it had said "Compaction done" under "manual compaction", "trigger: manual", and "the
    trigger estimate of the next prompt (the meter's first line)")."""
    card = Text()
    if result.refused:
        card.append("Nothing compacted\n", style="bold #d7af5f")
        card.append(result.refused)
        return card
    pre, post, fallback = result.pre_tokens, result.post_tokens, result.fallback
    if fallback:        # cancelled or failed: the history was cut by truncation, not summarised
        card.append("Fell back to truncation: older rounds cut, not summarised\n\n", style="bold #d7875f")
    elif result.parts is not None:     # ended with parts finished (esc, a timeout): those kept, the rest truncated
        card.append(f"{compaction_words.heading(result.ended)}\n\n",
                    style="bold #d7875f" if result.rounds_truncated else "bold #87af5f")
    else:
        card.append("Done\n\n", style="bold #87af5f")
    card.append(f"{compaction_words.ESTIMATE} ", style="dim")      # the meter's first figure, by its name
    card.append(f"{tokens(pre)} → {tokens(post)} tokens", style="bold")
    if pre:
        card.append(f"   ({size_change(pre, post)})", style="dim")
    archived = compaction_words.outcome(result.rounds_archived, result.parts, result.rounds_truncated, result.ended)
    card.append(f"\n{archived}\n")
    if lost:            # the chat's line gave it, and the card opened from /compactions did not
        card.append(f"{lost}\n")
    card.append(SUMMARY_FILES, style="dim")
    card.append(files_named(result.files_included))
    if result.input_cut:       # the summary was made from less than the archived rounds held: it may miss that
        card.append(f"\n{input_cut.LABEL}", style="dim")
        card.append(result.input_cut.words(), style="#d7af5f")
    if fallback:
        card.append("\n")
        card.append(f"why: {fallback}", style="bold #d7875f")
    return card


class CompactionModal(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape", "cancel_or_close", "cancel → truncation"), Binding("enter", "close", "close")]

    stage: reactive[str] = reactive("choosing")
    tokens_received: reactive[int] = reactive(0)
    elapsed: reactive[float] = reactive(0.0)
    AUTO_CONTINUE_S = 5.0          # an automatic compaction's card closes itself after this (its turn never waits)

    class TypedAhead(Message):
        """Text typed while the modal is up: the app puts it in the input beneath (the modal takes no text);
        `send`: enter came after it, so the input is sent (queued behind the running turn); `pasted`: it came as
        a paste, held there as one (a long one as its tag)."""

        def __init__(self, text: str, send: bool = False, pasted: bool = False) -> None:
            super().__init__()
            self.text, self.send, self.pasted = text, send, pasted

    class StopTurn(Message):
        """esc on the card of an automatic compaction whose turn goes on behind it: the app stops that turn, as
        esc does anywhere while a turn runs (enter and the card's timer only close the card)."""

    def __init__(self, trigger: str, pre_tokens: int, rounds: int, *,
                 on_cancel: Callable[[], None], live_clock: bool = True) -> None:
        super().__init__()
        self.typed = False          # text typed over the card went to the input: enter then sends it
        self.trigger, self.pre_tokens, self.rounds = trigger, pre_tokens, rounds
        self.on_cancel = on_cancel
        self.live_clock = live_clock
        self.result: CompactionFinished | None = None
        self.cancelling = False
        self.stop_turn = False           # esc again while cancelling: the turn stops too once the card shows
        self.in_turn = False             # an automatic compaction's, in a turn: it goes on; the card closes itself
        self._started = time.monotonic()
        self._detail = ""                # the summary's progress line, once it reports one
        self._retry: tuple[Retrying, float] | None = None     # a summary request tried again, and since when
        self.lost = ""                   # what it lost, as the chat's line says it (ledger_line)
        self.from_history = False        # opened from /compactions: closing goes back to that list

    @classmethod
    def card_of(cls, record: CompactionRecord, number: int) -> "CompactionModal":
        """The result card of a compaction logged earlier (/compactions), closed by enter or esc."""
        result = finished_of(record)
        modal = cls(f"#{number} {result.trigger}", result.pre_tokens, result.rounds_archived, on_cancel=lambda: None,
                    live_clock=False)
        modal.result = result
        modal.lost = ledger_line(record.loss_ledger, "l in the list")
        modal.from_history = True
        return modal

    def compose(self) -> ComposeResult:
        with Vertical(id="compaction-box"):
            yield Static(id="compaction-title")
            yield Static(id="compaction-stage")
            yield Static(id="compaction-figures")
            yield Static(id="compaction-hint")

    def on_mount(self) -> None:
        self.query_one("#compaction-box").border_title = "Compacting the history"
        self.query_one("#compaction-title", Static).update(Text.assemble(
            (f"{self.trigger} compaction", "bold"), f" · {compaction_words.ESTIMATE} {tokens(self.pre_tokens)} · ",
            f"{plural(self.rounds, 'round')} to archive"))
        if self.live_clock:
            self.set_interval(0.25, self._tick)
        self.call_after_refresh(self._paint)      # mounted by then (a card of a past compaction has no ticks)

    def _tick(self) -> None:
        if self.result is None:
            self.elapsed = max(self.elapsed, time.monotonic() - self._started)

    def progress(self, stage: str, elapsed: float, tokens_received: int, detail: str = "") -> None:
        self.stage, self.elapsed, self.tokens_received = stage, elapsed, tokens_received
        self._detail = detail
        self._retry = None               # the request tried again answers (or the next one began)
        self._paint()

    def retrying(self, retry: Retrying) -> None:
        """A summary request failed and is tried again: which attempt, why, and the wait counted down, as the
        status line says a turn's (the summary had sat on "asking the summary model" in silence)."""
        self._retry = (retry, time.monotonic())
        self._paint()

    def finish(self, result: CompactionFinished) -> None:
        self.result = result
        self._paint()
        if self.stop_turn and self.in_turn:     # esc came again while stopping: the turn stops too, now
            self.app.post_message(self.StopTurn())
            self.close_if_shown()
            return
        if self.in_turn and self.is_mounted:
            # The figures stay in the chat's line and /compactions: the card of a running turn goes by itself.
            self.set_timer(self.AUTO_CONTINUE_S, self.close_if_shown)

    def close_if_shown(self) -> None:
        """The result card closed, when it is the screen shown (a question the turn asked since may be above it)."""
        if self.result is not None and self.is_attached and self.app.screen is self:
            self.dismiss(None)

    def watch_elapsed(self) -> None:
        self._paint()

    def _paint(self) -> None:
        if not self.is_mounted or self not in self.app.screen_stack:
            return                  # a tick after its close: its widgets are going
        stage_w = self.query_one("#compaction-stage", Static)
        figures = self.query_one("#compaction-figures", Static)
        hint = self.query_one("#compaction-hint", Static)
        if self.result is not None:
            self.query_one("#compaction-box").border_title = "Compaction result"
            self.query_one("#compaction-title", Static).update(Text(f"{self.trigger} compaction", style="bold"))
            stage_w.update(result_card(self.result, self.lost))
            figures.update("")
            # opened from /compactions, it pointed to /compactions ("shows the history") from inside it
            closes = ("enter or esc: back to the list" if self.from_history else
                      "enter or esc closes · /compactions shows the history")
            hint.update(Text(f"the turn goes on · enter closes this (or in {self.AUTO_CONTINUE_S:g} s) · esc stops "
                             "the turn" if self.in_turn else closes, style="dim"))
            return
        stage_w.update(stage_line(self.stage))
        line = Text.assemble(("elapsed ", "dim"), (f"{self.elapsed:5.1f}s", "bold"),
                             ("   tokens received ", "dim"), (f"{self.tokens_received:,}", "bold"),
                             (f"   {self._detail}" if self._detail else "", "dim"))
        if self._retry is not None:         # on a line of its own: whole at 80 columns
            retry, since = self._retry
            line.append(f"\n{retry.words(retry.wait - (time.monotonic() - since))}", style="bold #d7875f")
        figures.update(line)
        hint.update(Text("stopping: keeping what is summarised, truncating the rest…" if self.cancelling
                         else "esc stops it: what is summarised is kept, the rest cut by hard truncation",
                         style="bold #d7875f" if self.cancelling else "dim"))

    def on_key(self, event: events.Key) -> None:
        # An automatic compaction starts the moment a message is sent, often while the user types on: the
        # characters go to the input beneath instead of nowhere (enter and esc stay the modal's).
        if event.is_printable and event.character:
            event.stop()
            self.typed = True
            self.post_message(self.TypedAhead(event.character))

    def on_paste(self, event: events.Paste) -> None:
        # Pasted over the card is typed too: it was lost (the modal has nothing to hold it), keys beside it kept
        event.stop()
        if event.text:
            self.typed = True
            self.post_message(self.TypedAhead(event.text, pasted=True))

    def action_cancel_or_close(self) -> None:
        if self.result is not None:
            if self.in_turn:           # esc stops what runs: the turn behind the card, not only the card
                self.app.post_message(self.StopTurn())
            self.dismiss(None)
            return
        if self.cancelling:
            self.stop_turn = True
            return
        self.cancelling = True
        self._paint()
        self.on_cancel()

    def action_close(self) -> None:
        if self.typed:              # `question 3⏎` typed over the card: the message is sent, not left half-typed
            self.typed = False
            self.post_message(self.TypedAhead("", send=True))
        if self.result is not None:
            self.dismiss(None)
