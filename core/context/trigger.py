"""The A6/C7 compaction trigger: the one place that decides, used by the turn and by every budget display.

estimate = the last call's usage + len(input)//3, compared with trigger_ratio × context_window, with at least
three messages in history. Right after a compaction, or when nothing is old enough to archive, the usage is
stale or would fire a compaction that cannot help: the estimate is then the counted size of the next prompt
(CONTRACT, "Defaults where the seeds are silent").
"""

from __future__ import annotations

from typing import Literal

from contextual.core.prompt import Trigger
from contextual.core.tokens import estimate

MIN_MESSAGES = 3


def compaction_due(*, last_usage: int | None, counted: int, input_text: str, archivable: bool, messages: int,
                   threshold: int, warn_at: int, auto: bool = True, rounds: int = 0) -> Trigger:
    """`counted`: the counted size of the next prompt without the input; `archivable`: a compaction plan exists;
    `rounds`: the closed rounds in history."""
    # Issue 24: the larger of the two, so a prompt the builder had to fit (counted before fitting) is never
    # hidden by the usage of the fitted one.
    use_usage = last_usage is not None and archivable and last_usage >= counted
    basis: Literal["usage", "counted"] = "usage" if use_usage else "counted"
    value = (last_usage if use_usage and last_usage is not None else counted) + estimate(input_text)
    # Due only when the next message will compact: automatic compaction on and something to archive (issue 24:
    # the meter's "compaction at the next message" is a promise; past the line otherwise, the turn warns).
    due = auto and archivable and value >= threshold and messages >= MIN_MESSAGES
    # What /compact could do now: the plan, or (keeping fewer rounds than configured) all but the last round. The
    # meter advised /compact past the line even when it would refuse (one 2-message round of a pasted log at 4k).
    compactable = messages >= MIN_MESSAGES and (archivable or rounds >= 2)
    return Trigger(value, threshold, due, basis, warn_at, compactable)
