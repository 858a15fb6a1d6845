"""The prompts this session's engine really sent, call by call, so any two consecutive ones can be diffed
(issue 19.4). Bounded: the oldest calls fall out first; what is kept references the same message objects the
builder made, so it costs little memory.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Sequence

from contextual.core.context.prompt_diff import PromptDiff, diff_prompts

MAX_CALLS = 200


@dataclass(frozen=True)
class SentCall:
    number: int                    # 1-based, over the whole session (stays right when old calls fall out)
    model: str
    messages: tuple[Any, ...]      # PromptMessages as sent


class SentLog:
    def __init__(self, max_calls: int = MAX_CALLS) -> None:
        self.calls: deque[SentCall] = deque(maxlen=max_calls)
        self.count = 0

    def add(self, messages: Sequence[Any], model: str) -> None:
        self.count += 1
        self.calls.append(SentCall(self.count, model, tuple(messages)))

    def diff(self, position: int) -> PromptDiff | None:
        """Call at `position` (index into `calls`) against the call before it; None for the first one kept."""
        if not 0 < position < len(self.calls):
            return None
        before, after = self.calls[position - 1], self.calls[position]
        return diff_prompts(before.messages, after.messages, model_before=before.model, model_after=after.model)
