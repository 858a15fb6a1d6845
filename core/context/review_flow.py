"""Issue 19's steps inside one compaction, kept out of the engine so its own code stays a few calls:

- before summarising: pinned messages leave the archive (`protect`) and the summary prompt is told about them;
- after summarising, when the preview is on: the user reviews the summary (accept / edit / retry / cancel);
- when applying: the loss ledger of what was archived against the summary that was accepted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Sequence

from contextual.core.context.compaction_review import CompactionReview, ReviewDecision
from contextual.core.context.history import CompactionPlan
from contextual.core.context.ledger import Ledger, loss_ledger
from contextual.core.context.pins import Pins, summary_note
from contextual.core.messages import Message

if TYPE_CHECKING:      # the summary machinery loads with the first compaction, not with this module
    from contextual.core.context.compaction import CompactionOutcome


def summary_instructions(instructions: str | None, pinned: Sequence[Message]) -> str | None:
    """The user's /compact instructions, then what is pinned (the summary refers to it, never repeats it)."""
    parts = [p for p in (instructions, summary_note(pinned)) if p]
    return "\n\n".join(parts) or None


@dataclass
class Review:
    """One review round: yield `event`, then `await decision()`."""
    event: CompactionReview

    async def decision(self) -> ReviewDecision:
        decision: ReviewDecision = await self.event.future
        return decision


def start_review(trigger: str, plan: CompactionPlan, summary_text: str, attempt: int,
                 also_held: Sequence[str] = ()) -> Review:
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    archive, kept = tuple(plan.archive), tuple(plan.kept)
    event = CompactionReview(trigger, archive, kept, summary_text, future, attempt, tuple(also_held))
    return Review(event)


def with_text(outcome: CompactionOutcome, text: str) -> CompactionOutcome:
    """The outcome with the summary text the user accepted (edited or not): that is what is stored."""
    if outcome.summary is None or outcome.summary.content == text:
        return outcome
    summary = outcome.summary.with_content(text).with_meta(edited=True)
    return replace(outcome, summary=summary)


def ledger_of(archive: Sequence[Message], kept: Sequence[Message], summary_text: str,
              earlier_summaries: Sequence[Message]) -> Ledger:
    return loss_ledger(archive, summary_text, kept, [m.content for m in earlier_summaries])


def pinned_in_archive(plan: CompactionPlan, pins: Pins) -> list[str]:
    """Ids of the pinned messages of a plan's archive: `protect` keeps them ahead of the kept rounds, and the
    session's boundary entry lists them (pinnedUuids)."""
    return [m.id for m in plan.archive if m.id in pins]

