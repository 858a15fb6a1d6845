"""HistoryManager (seed 002 A4, D1, D2): the ordered history as stored, and its invariants.

Invariants are small named functions (Codex style), each tested alone:
- `rounds`: a round starts at a user message and lasts until the next one (an interrupted round is still a round).
- `plan_compaction`: cuts only between whole rounds and keeps at least the last N rounds verbatim.
Call/result pairing (aborted results, orphans) lives in `core.context.pairing`.
Summaries are never compressed again: they stay at the front and are only appended to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Collection, NamedTuple, Sequence

from contextual.core.context import keep_fit
from contextual.core.messages import Message


class KeepBudget(NamedTuple):
    """What a compaction's kept rounds may use (core/context/keep_fit.py)."""
    room: int                              # the trigger less the prompt's fixed part (L1, L2, pins)
    size: Callable[[Message], int]         # a message's size as L3 sends it
    staying: int = 0                       # what stays beside the kept rounds: summaries, the turn in progress


def rounds(messages: list[Message]) -> list[list[Message]]:
    """Group non-summary messages into rounds; anything before the first user message joins the first round.
    An /undo's note (a user-role message the app wrote) joins the round before it: it is no turn of the user's,
    and counted as one it made "9 rounds in history" beside the Scratchpad's "Turn 8"."""
    out: list[list[Message]] = []
    for m in messages:
        if m.role == "summary":
            continue
        if m.starts_turn or not out:
            out.append([m])
        else:
            out[-1].append(m)
    return out


@dataclass(frozen=True)
class CompactionPlan:
    archive: list[Message]       # whole rounds, oldest first
    kept: list[Message]          # the last rounds, verbatim
    rounds_archived: int
    rounds_kept: int
    note: str = ""               # why fewer than keep_rounds were kept (issue 24: more do not fit the window)


def plan_compaction(messages: list[Message], keep_rounds: int, budget: KeepBudget | None = None
                    ) -> CompactionPlan | None:
    """None when nothing is older than the kept rounds. With a budget (tokens, size of a text) the kept rounds
    are also as many of the newest as fit it (core/context/keep_fit.py)."""
    all_rounds = rounds(messages)
    sizes = keep_fit.round_sizes(all_rounds, budget.size) if budget is not None else [0] * len(all_rounds)
    keep = keep_fit.rounds_that_fit(sizes, keep_rounds, budget.room if budget is not None else None,
                                    budget.staying if budget is not None else 0)
    if len(all_rounds) <= keep:
        return None
    cut = len(all_rounds) - keep
    archive = [m for r in all_rounds[:cut] for m in r]
    kept = [m for r in all_rounds[cut:] for m in r]
    short = keep < min(keep_rounds, len(all_rounds))
    return CompactionPlan(archive, kept, cut, keep, keep_fit.kept_note(keep, keep_rounds) if short else "")


def apply_compaction(messages: Sequence[Message], summary: Message | None, kept_from_id: str | None,
                     pinned_ids: Collection[str]) -> list[Message] | None:
    """History after a compaction, the one rule (engine, session loader): every summary so far, then the new one,
    then the pinned messages from before the cut (in their order), then the messages from ``kept_from_id`` on
    (none when it is None). None when ``kept_from_id`` is not among ``messages`` (a damaged record)."""
    summaries = [m for m in messages if m.role == "summary"] + ([summary] if summary is not None else [])
    if summary is not None and summary.meta.get("merged"):   # a merge replaces the earlier summaries (issue 24)
        summaries = [summary]
    rest = [m for m in messages if m.role != "summary"]
    cut = len(rest) if kept_from_id is None else next((i for i, m in enumerate(rest) if m.id == kept_from_id), None)
    if cut is None:
        return None
    return summaries + [m for m in rest[:cut] if m.id in pinned_ids] + rest[cut:]


@dataclass
class HistoryManager:
    messages: list[Message] = field(default_factory=list)

    def append(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def summaries(self) -> list[Message]:
        return [m for m in self.messages if m.role == "summary"]

    def rounds(self) -> list[list[Message]]:
        return rounds(self.messages)

    def plan(self, keep_rounds: int, budget: KeepBudget | None = None) -> CompactionPlan | None:
        return plan_compaction(self.messages, keep_rounds, budget)
