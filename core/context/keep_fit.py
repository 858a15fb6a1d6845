"""How many recent rounds a compaction keeps whole (issue 24).

Seed 002 A4 keeps "at least the last 10 rounds", and C6 says the prompt after a compaction stays under the
trigger. Both hold together while rounds are small; at 4k–32k ten agentic rounds can be larger than the window
itself, and a compaction that keeps them all cannot help. So the rule is the seed's wherever it holds with room to
spare, and a budget where it cannot:

- the last keep_rounds rounds are kept whole when they use at most three quarters of the room (what the trigger
  leaves after the prompt's fixed part: system prompt, rules, pins) and the quarter left holds a round as large as
  the largest of them: the summaries and the next turn fit, so the next message does not compact again at once.
  At 200k that is ten rounds of up to ~12,000 tokens each (ten 500-line Reads); at 4k–32k it rarely holds;
- else as many of the newest rounds as fit half the room together with what stays beside them (the summaries, the
  turn in progress, the todo recap), whole; the rest go into the summary, and the user is told ("kept the last 3
  rounds whole: more do not fit in this window"). Counting only the rounds against that half left the next prompt
  at 94-110 % of the trigger at 8k (a summary at every message, mid-turn too); now it
  lands near half of it, a turn or two of room.
"""

from __future__ import annotations

from typing import Callable, Sequence

from contextual.core.messages import Message


SEED_KEEP_ROUNDS = 10  # seed 002 A4's "last 10 rounds", the default of keep_rounds
SEED_SHARE = 0.75      # the seed's rounds are kept whole while they leave a quarter of the room free
BUDGET_SHARE = 0.5     # else the newest rounds that fit half of it


def keep_budget(threshold: int, fixed: int) -> int:
    """The room for kept rounds: what the trigger leaves after the prompt's fixed part."""
    return max(0, threshold - fixed)


def rounds_that_fit(round_sizes: Sequence[int], keep_rounds: int, room: int | None, staying: int = 0) -> int:
    """The number of newest rounds to keep whole: keep_rounds when they and one more like the largest fit the
    room (or there is no room to respect), else as many as fit the budget's share less ``staying`` (what the
    prompt after the compaction holds beside the kept rounds and the fixed part)."""
    newest = list(round_sizes[-keep_rounds:]) if keep_rounds > 0 else []
    if room is None or (sum(newest) <= room * SEED_SHARE and max(newest, default=0) <= room * (1 - SEED_SHARE)):
        return len(newest)
    budget, kept, used = room * BUDGET_SHARE - staying, 0, 0
    for size in reversed(newest):
        if used + size > budget:
            break
        kept, used = kept + 1, used + size
    return kept


def round_sizes(all_rounds: Sequence[Sequence[Message]], size: Callable[[Message], int]) -> list[int]:
    return [sum(size(m) for m in r) for r in all_rounds]


def kept_note(kept: int, keep_rounds: int) -> str:
    """What the chat says when the budget, not keep_rounds, decided ("the newest rounds fill the window, so 2 are
    kept whole" read as if the rounds had decided). keep_rounds is named only when it is not the
    seed's 10: "(keep_rounds is 10)" named a setting the user never chose."""
    room = "in this window with room left for the next turns"
    asked = f" (you asked for {keep_rounds})" if keep_rounds != SEED_KEEP_ROUNDS else ""
    if kept == 0:
        return f"no round kept whole: the last one does not fit {room}{asked}"
    last = "the last round" if kept == 1 else f"the last {kept} rounds"
    return f"kept {last} whole: more do not fit {room}{asked}"
