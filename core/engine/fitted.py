"""The builder's adjustments during one turn (where the prompt was fitted to the window): shown on the messages
they touched as they happen, and summed up once — before the answer, or at the turn's end when it ends otherwise —
so the chat gets no line per step. Summed up in words a user reads ("steps 1–25 of this turn folded to one line
each to fit the 4,096-token window"): "fitted to the window at 54 points (cut_observation ×36, …)" said neither
what went nor where it is."""

from __future__ import annotations

from typing import Callable

from contextual.core.context.turn_fold import GaveWay
from contextual.core.events import TurnAdjustments
from contextual.core.plural import plural
from contextual.core.prompt import Adjustment


class Fitted:
    def __init__(self, window: Callable[[], int] = lambda: 0,
                 taken: Callable[[TurnAdjustments], None] = lambda summary: None) -> None:
        self._window = window             # read at the summary: a window learned mid-turn is the one fitted to
        self._taken = taken               # each summary as taken (the session records it: a resumed chat shows it)
        self._adjustments: list[Adjustment] = []
        self._calls = 0
        self._fitted = 0

    def add(self, adjustments: list[Adjustment]) -> None:
        """One call's adjustments (none when its prompt fitted as built)."""
        self._calls += 1
        self._fitted += bool(adjustments)
        self._adjustments.extend(adjustments)

    def clear(self) -> None:
        self._adjustments, self._calls, self._fitted = [], 0, 0

    def summary(self) -> TurnAdjustments | None:
        """The adjustments so far, summed up and taken (None when the prompt fitted as built)."""
        if not self._adjustments:
            return None
        adjustments = tuple(self._adjustments)
        calls, fitted = self._calls, self._fitted
        self.clear()
        window = self._window()
        fit = f"to fit the {window:,}-token window" if window else "to fit the window"
        said, short = _said(adjustments)
        last = adjustments[-1]
        record = " (their full record is in the session)" if "folded" in short else ""
        summary = TurnAdjustments(adjustments, "; ".join([f"{said[0]} {fit}{record}", *said[1:]]) +
                                  f" (at {fitted} of {plural(calls, 'call')}; last {last.tokens_before:,} → "
                                  f"{last.tokens_after:,} tokens)", f"{short} {fit}")
        self._taken(summary)
        return summary


def _said(adjustments: tuple[Adjustment, ...]) -> tuple[list[str], str]:
    """What gave way, the most that did at any call of the turn first, and its gist."""
    said: list[str] = []
    short = ""
    folds = [a for a in adjustments if a.action == "fold_steps"]
    if folds:             # the call where the most gave way: folded first, then bare, then stubbed
        most = max(folds, key=lambda a: (a.given[2], a.given[1], a.given[0], a.given[3])).given
        gave = GaveWay(0, most[0], most[1], most[2], most[3], tuple(most[4:]))     # then the pinned steps
        said += gave.words().split("; ")
        short = gave.headline()
    rules = [a for a in adjustments if a.action == "cut_rules"]
    for name in dict.fromkeys(a.detail.rsplit(" cut to ", 1)[0] for a in rules):      # the least each kept
        said.append(min((a for a in rules if a.detail.startswith(name)), key=lambda a: a.given).detail)
        short = short or "project rules cut"
    cuts = [a for a in adjustments if a.action == "cut_observation"]
    if cuts:
        said.append(cuts[-1].detail + (f" (the last of {len(cuts)} calls that cut)" if len(cuts) > 1 else ""))
        short = short or "messages cut head+tail"
    if not said:
        said.append("older tool results sent in their shorter forms")
        short = "older results shortened"
    return said, short
