"""The one place the TUI reads the next prompt. Every panel (History, meter, /context, stored-vs-full, the top bar)
shows figures from one ``Shown`` made from the engine's ``next_prompt()`` view, so they cannot disagree.

The engine's PromptView is the engine's type; ``Shown`` is what the screen needs of it, with lookups by source.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from contextual.core.context.compaction_words import trigger_share
from contextual.core.prompt import counts_apart, in_our_tokens, trigger_level
from contextual.tui.screen_safe import screen_text

if TYPE_CHECKING:      # the engine's types: the meter's first frame does not import them
    from contextual.core.prompt import PromptMessage, PromptView
    from contextual.core.agent import Engine

LAYERS = ("L1", "L2", "L3", "input", "scratchpad", "todo")


@dataclass(frozen=True)
class ShownMessage:
    role: str
    layer: str
    content: str
    tokens: int
    form: str = ""            # full | stored | superseded | hard | cut | stub | action-only | folded | summary | …
    source: str = ""          # history message id, tool name or path
    tool: str = ""
    path: str = ""


@dataclass(frozen=True)
class Shown:
    messages: tuple[ShownMessage, ...]
    layers: dict[str, int]
    total: int                # the prompt that will be sent
    window: int               # the server's count (the setting, what the server states)
    estimate: int             # the A6 trigger estimate (last usage + input estimate)
    threshold: int            # the trigger line
    due: bool
    warn_at: int = 0          # the warning line, our tokens (Trigger.warn_at)
    compactable: bool = True  # /compact would archive something now (Trigger.compactable)
    basis: str = "counted"    # "usage": the estimate is the server's usage of the last call (labelled so)
    cached_tokens: int | None = None
    cost: float | None = None
    unpriced_calls: int = 0   # calls whose model has no prices: `cost` is a partial sum (said "≥")
    server_factor: float = 1.0  # the server's tokens per ours, as measured: every other figure is ours
    last_usage: int | None = None
    pinned: int = 0           # tokens of pinned messages (issue 19.3): part of L3, shown as their own segment
    fitted: int = 0           # tokens the builder fitted away from this prompt (0: sent as counted)
    limit: int = 0            # the largest prompt by our count: the window less the reserve and a margin, calibrated
    reserve: int = 0          # the answer's share of the window
    room: int = 0             # the largest prompt in the server's tokens (``limit`` before the calibration)

    @property
    def counted_window(self) -> int:
        """The window in our tokens, the unit of the prompt, the trigger line and the estimate shown beside it."""
        return in_our_tokens(self.window, self.server_factor)

    @property
    def server_counts_apart(self) -> bool:
        """The server's tokenizer counts otherwise than ours (measured): its figures are named beside ours."""
        return counts_apart(self.server_factor)

    @property
    def trigger_share(self) -> float:
        return trigger_share(self.estimate, self.threshold)

    @property
    def level(self) -> str:
        """ok | warn (past the warning line) | due (at or past the trigger line)."""
        return trigger_level(self.estimate, self.threshold, self.warn_at, self.due)

    covered: tuple[tuple[str, ShownMessage], ...] = ()   # a folded step's messages: the note's line stands for them

    @cached_property
    def _sources(self) -> dict[str, ShownMessage]:
        return {**dict(self.covered), **{m.source: m for m in self.messages if m.source}}

    def by_source(self) -> dict[str, ShownMessage]:
        return self._sources


def _message(m: PromptMessage) -> ShownMessage:
    src = m.source
    return ShownMessage(role=m.role, layer=m.layer, content=screen_text(m.content), tokens=m.tokens, form=m.form,
                        source=src.message_id or src.path or src.tool or "", tool=src.tool or "", path=src.path or "")


def _covered(view: PromptView) -> tuple[tuple[str, ShownMessage], ...]:
    """Each message the note of folded steps stands for: form folded, no tokens of its own (its line is the
    note's)."""
    return tuple((covered, ShownMessage(role=m.role, layer=m.layer, content="", tokens=0, form="folded",
                                        source=covered))
                 for m in view.messages for covered in m.covers)


def shown_from_view(view: PromptView) -> Shown:
    """The engine's PromptView as the panels show it."""
    trigger = view.trigger
    usage = view.session_usage
    return Shown(messages=tuple(_message(m) for m in view.messages), layers=dict(view.tokens), total=view.total,
                 window=view.window, estimate=trigger.estimate, threshold=max(1, trigger.threshold),
                 due=trigger.due, warn_at=trigger.warn_at, basis=trigger.basis,
                 compactable=trigger.compactable,
                 cached_tokens=usage.cached_tokens or None, cost=usage.cost, unpriced_calls=usage.unpriced_calls,
                 server_factor=view.server_factor,
                 last_usage=view.last_usage, limit=view.limit, reserve=view.reserve, room=view.room,
                 covered=_covered(view),
                 fitted=max(0, view.adjustments[0].tokens_before - view.total) if view.adjustments else 0)


def next_prompt(engine: Engine, input_text: str = "") -> Shown:
    """The next prompt for ``input_text``, from the engine's own view."""
    return shown_from_view(engine.next_prompt(input_text))
