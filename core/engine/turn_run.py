"""What one turn's loop carries from step to step (core/engine/turn.py), and what a prompt against the window
tried this turn (core/engine/over_window.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.context.builder import Built
from contextual.core.engine.cut_notices import CutNotices
from contextual.core.engine.no_action import NoActionStreak


@dataclass
class TurnRun:
    """What one turn's loop carries from step to step."""
    streak: NoActionStreak          # replies without an Action in a row
    step: int = 0                   # model calls whose reply was acted on
    continued: int = 0              # times a Stop hook made this turn go on
    retried_context: bool = False   # the server refused a prompt as over its window once already
    outgrown: bool = False          # compacted once this turn because the fitted prompt was still over the window
    # A compaction this turn needed to send its prompt (over_window: ``_outgrown``, ``_over_the_window``) was cancelled in the
    # preview: a prompt still over the window is not sent, nor previewed again (three previews came in a row)
    declined: bool = False
    cuts: CutNotices = field(default_factory=CutNotices)
    built: Built | None = None      # the step's prompt, once sendable
    ended: bool = False             # the turn's last event is out
