"""How many recent rounds a compaction keeps whole (issue 24).

Seed 002 A4 keeps "at least the last 10 rounds" — which a 200k window holds for rounds of up to about 8,000 tokens
(the budget below; larger rounds keep fewer there too: docs/small-windows.md). At 4k–32k ten agentic rounds can
be larger than the window itself, and a compaction that keeps them all cannot help. So the kept rounds must also
fit a budget: half of what the trigger leaves after the prompt's fixed part (system prompt, rules, input); the
other half is room for the summaries and for the next turn to grow. The newest rounds are kept first, whole;
the rest go into the summary, and the user is told ("the newest rounds fill the window, so 3 are kept whole").
"""

from __future__ import annotations

from typing import Callable, Sequence

from contextual.core.messages import Message


def keep_budget(threshold: int, fixed: int) -> int:
    """Tokens the kept rounds may use: half of what the trigger leaves after the prompt's fixed part."""
    return max(0, (threshold - fixed) // 2)


def rounds_that_fit(round_sizes: Sequence[int], keep_rounds: int, budget: int | None) -> int:
    """The number of newest rounds to keep whole: at most keep_rounds, and (with a budget) as many as fit it."""
    if budget is None:
        return min(keep_rounds, len(round_sizes))
    kept, used = 0, 0
    for size in reversed(round_sizes):
        if kept >= keep_rounds or used + size > budget:
            break
        kept, used = kept + 1, used + size
    return kept


def round_sizes(all_rounds: Sequence[Sequence[Message]], size: Callable[[str], int]) -> list[int]:
    return [sum(size(m.content) for m in r) for r in all_rounds]


def kept_note(kept: int, keep_rounds: int) -> str:
    """What the card and the notice say when the budget, not keep_rounds, decided."""
    return (f"the newest rounds fill the window, so {kept} {'is' if kept == 1 else 'are'} kept whole "
            f"(keep_rounds {keep_rounds})")
