"""The builder's adjustments during one turn (where the prompt was fitted to the window): shown on the messages
they touched as they happen, and summed up once — before the answer, or at the turn's end when it ends otherwise —
so the chat gets no line per step."""

from __future__ import annotations

from contextual.core.events import TurnAdjustments
from contextual.core.plural import plural
from contextual.core.prompt import Adjustment


class Fitted:
    def __init__(self) -> None:
        self._adjustments: list[Adjustment] = []

    def add(self, adjustments: list[Adjustment]) -> None:
        self._adjustments.extend(adjustments)

    def clear(self) -> None:
        self._adjustments = []

    def summary(self) -> TurnAdjustments | None:
        """The adjustments so far, summed up and taken (None when the prompt fitted as built)."""
        if not self._adjustments:
            return None
        adjustments = tuple(self._adjustments)
        self._adjustments = []
        counts: dict[str, int] = {}
        for a in adjustments:
            counts[a.action] = counts.get(a.action, 0) + 1
        steps = ", ".join(f"{action} ×{n}" for action, n in counts.items())
        first, last = adjustments[0], adjustments[-1]
        return TurnAdjustments(adjustments, f"the prompt was fitted to the window at "
                                            f"{plural(len(adjustments), 'point')} this turn ({steps}); last "
                                            f"{last.tokens_before:,} → {last.tokens_after:,} tokens (first "
                                            f"{first.tokens_before:,})")
