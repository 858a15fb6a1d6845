"""Compaction preview (issue 19.1): the summary is shown beside the rounds it replaces before anything changes.

When the preview is on (always for a manual /compact in the TUI; for automatic ones when the config says
`compaction_preview = true`), the engine yields a `CompactionReview` after summarising and waits on its
future: the user accepts (the text, possibly edited, is what is stored), retries with instructions (the
summary model runs again), or cancels (history is left exactly as it was). The toad pattern: the engine
posts a future, the UI answers it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from contextual.core.context.ledger import Ledger, loss_ledger
from contextual.core.events import EngineEvent
from contextual.core.messages import Message

Action = Literal["accept", "retry", "cancel"]


@dataclass(frozen=True)
class ReviewDecision:
    action: Action
    text: str = ""                 # accept: the summary to store, as the user left it
    instructions: str = ""         # retry: what the summary model is told this time

    @classmethod
    def accept(cls, text: str) -> "ReviewDecision":
        return cls("accept", text=text)

    @classmethod
    def retry(cls, instructions: str) -> "ReviewDecision":
        return cls("retry", instructions=instructions)

    @classmethod
    def cancel(cls) -> "ReviewDecision":
        return cls("cancel")


@dataclass(frozen=True)
class CompactionReview:
    """An engine event: a summary waiting for the user's decision (set `future` to a ReviewDecision)."""
    trigger: str
    archive: tuple[Message, ...]          # the rounds the summary replaces
    kept: tuple[Message, ...]             # what stays verbatim (pinned messages first)
    summary: str
    future: asyncio.Future[Any]
    attempt: int = 1
    also_held: tuple[str, ...] = ()       # earlier summaries: still in the prompt

    def ledger_for(self, text: str) -> Ledger:
        """What the compaction would lose with `text` as its summary (the user may have edited it)."""
        return loss_ledger(self.archive, text, self.kept, self.also_held)

    def decide(self, decision: ReviewDecision) -> None:
        if not self.future.done():
            self.future.set_result(decision)


# What the engine's streams yield (`Engine.run_turn`, `Engine.compact`): its events and this review.
Event = EngineEvent | CompactionReview
