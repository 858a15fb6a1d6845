"""The wire-neutral prompt: what ContextBuilder produces and providers render, and PromptView around it.

Every PromptMessage says how it got into the prompt (`form`), where it came from (`source`) and what it
costs (`tokens`, message overhead included). PromptView (`Engine.next_prompt`) is the next call as the one
source of truth: every panel and `contextual context` read it, never a recount of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from contextual.core.plural import plural

PromptRole = Literal["system", "summary", "user", "assistant"]
Layer = Literal["L1", "L2", "L3", "input", "scratchpad", "todo"]
# full: as written; stored: the compressed (A3) form; hard: compressed harder to fit; cut: head+tail to fit; a step
# of the turn given way to fit: stub (its output as one line), action-only (its action line without the thought),
# folded (the turn's oldest steps as one line each, in one note). No round is left out to fit (issue 24): a round
# leaves the prompt only into a summary.
Form = Literal["full", "stored", "superseded", "hard", "cut", "stub", "action-only", "folded", "summary", "system",
               "input", "todo"]

SUMMARY_PREFIX = ("Another language model started this task and produced a summary of its work. "
                  "This is a summary of earlier work in this session; use it to continue:\n\n")


@dataclass(frozen=True)
class Source:
    """Where a prompt message comes from: a history message, a tool, a file (a rules file, a Read)."""
    message_id: str | None = None
    tool: str | None = None
    path: str | None = None

    def __str__(self) -> str:
        return self.message_id or self.path or self.tool or ""


@dataclass(frozen=True)
class PromptMessage:
    role: PromptRole
    content: str
    layer: Layer
    # Anthropic: put a cache_control breakpoint after this message (end of the stable prefix).
    cache_breakpoint: bool = False
    form: Form = "full"
    source: Source = Source()
    tokens: int = 0                # set by the builder on what it returns
    covers: tuple[str, ...] = ()   # the note of folded steps: the history messages it stands for

    @property
    def tool(self) -> str:
        return self.source.tool or ""


def in_our_tokens(server_tokens: int, server_factor: float) -> int:
    """A figure of the server's (the window, the trigger and warning lines) in our tokens, as measured."""
    return max(1, int(server_tokens / server_factor))


def counts_apart(server_factor: float) -> bool:
    """The server's tokenizer counts otherwise than ours (measured): its figures are named beside ours."""
    return abs(server_factor - 1.0) >= 0.005


def trigger_level(estimate: int, threshold: int, warn_at: int, due: bool) -> Literal["ok", "warn", "due"]:
    """ok | warn (at or past the warning line) | due (at or past the trigger line): the meter's colour and the
    turn's warning read it alike."""
    if due or estimate >= threshold:
        return "due"
    return "warn" if estimate >= warn_at else "ok"


@dataclass(frozen=True)
class Trigger:
    estimate: int                           # what A6 compares with the threshold
    threshold: int
    due: bool                               # the next input would compact first
    basis: Literal["usage", "counted"]      # where the estimate came from
    warn_at: int                            # the warning line (warn_ratio × window)
    compactable: bool                       # a /compact now would archive something (its advice is true)

    @property
    def warn(self) -> bool:
        return trigger_level(self.estimate, self.threshold, self.warn_at, False) != "ok"


class LayerTokens(NamedTuple):
    name: str                 # "L1", "L2 CODE_LAW.md", "L3", "input", "scratchpad", "todo"
    tokens: int


LAYER_ORDER = ("L1", "L2", "L3", "input", "scratchpad", "todo")


@dataclass(frozen=True)
class Adjustment:
    """One 'never over the window' step the builder took for this prompt (shown on the messages it touched)."""
    action: str               # "compress_kept", "fold_steps", "cut_observation", "cut_rules"
    detail: str
    tokens_before: int
    tokens_after: int
    message_ids: tuple[str, ...] = ()     # the history messages made harder or cut
    given: tuple[int, ...] = ()           # fold_steps: the turn's oldest steps stubbed, bare, folded, grouped,
                                          # then the pinned steps among them (sent whole)


@dataclass(frozen=True)
class UsageFigures:
    """Cache-aware usage (issue 12.6): input includes cached tokens. `cost` is the priced calls' sum (None: no call
    priced); a call whose model has no prices counts in `unpriced_calls`, so a partial sum is said as one."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None
    priced_calls: int = 0
    unpriced_calls: int = 0

    @property
    def cache_creation_tokens(self) -> int:      # the providers' name for it (model_facts.TokenUsage)
        return self.cache_write_tokens

    def plus(self, other: "UsageFigures") -> "UsageFigures":
        known = [c for c in (self.cost, other.cost) if c is not None]
        return UsageFigures(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                            self.cached_tokens + other.cached_tokens,
                            self.cache_write_tokens + other.cache_write_tokens, sum(known) if known else None,
                            self.priced_calls + other.priced_calls, self.unpriced_calls + other.unpriced_calls)

    def since(self, earlier: "UsageFigures") -> "UsageFigures":
        """The calls added after ``earlier``, a figure this one grew from (`-p`'s run inside a resumed session)."""
        priced = self.priced_calls - earlier.priced_calls
        cost = max(0.0, (self.cost or 0.0) - (earlier.cost or 0.0)) if priced else None
        return UsageFigures(self.input_tokens - earlier.input_tokens, self.output_tokens - earlier.output_tokens,
                            self.cached_tokens - earlier.cached_tokens,
                            self.cache_write_tokens - earlier.cache_write_tokens, cost, priced,
                            self.unpriced_calls - earlier.unpriced_calls)


def said_cost(cost: float | None, unpriced_calls: int, short: bool = False) -> str | None:
    """A cost as said: "$0.5000", a partial sum as one ("≥ $0.5000 (1 call not priced)", short: "≥$0.5000"); None
    when no call was priced. /cost and the meter say it so."""
    if cost is None:
        return None
    if not unpriced_calls:
        return f"${cost:.4f}"
    return f"≥${cost:.4f}" if short else f"≥ ${cost:.4f} ({plural(unpriced_calls, 'call')} not priced)"


@dataclass(frozen=True)
class PromptView:
    messages: tuple[PromptMessage, ...]        # exactly what the next call sends, in order
    tokens: dict[str, int]                     # per layer (LAYER_ORDER), message overhead included
    total: int
    window: int
    limit: int                                 # by our count, no prompt is larger (PromptState.fit_limit)
    trigger: Trigger
    adjustments: tuple[Adjustment, ...] = ()
    last_call: UsageFigures | None = None
    session_usage: UsageFigures = field(default_factory=UsageFigures)
    model: str = ""
    provider: str = ""
    token_factor: float = 1.0                  # server tokens per our token (core.tokens.Calibration)
    last_usage: int | None = None              # the last call's usage, the base of the A6 estimate
    reserve: int = 0                           # the answer's share of the window (server tokens)
    room: int = 0                              # the largest prompt in the server's tokens (``limit`` before calibration)
    server_factor: float = 1.0                 # the same as measured (1.0 before): window's unit against ours

    @property
    def counted_window(self) -> int:
        """The window in our tokens, the unit of every other figure here (the trigger, the limit, the layers):
        `window` is the server's count."""
        return in_our_tokens(self.window, self.server_factor)

    @property
    def cached_tokens(self) -> int | None:
        """Input tokens the provider read from its cache in the last call."""
        return self.last_call.cached_tokens if self.last_call is not None else None

    @property
    def cost(self) -> float | None:
        """The session's estimated cost so far (None when the model's prices are unknown)."""
        return self.session_usage.cost

    @property
    def layers(self) -> list[LayerTokens]:
        """Prompt order, L2 split per rules file ("L2 CODE_LAW.md")."""
        out: list[LayerTokens] = []
        for layer in LAYER_ORDER:
            if layer == "L2":
                out += [LayerTokens(f"L2 {m.source.path}", m.tokens) for m in self.messages if m.layer == "L2"]
            else:
                out.append(LayerTokens(layer, self.tokens.get(layer, 0)))
        return out


def as_wire_dicts(messages: list[PromptMessage]) -> list[dict[str, str]]:
    """The OpenAI-compatible rendering ({role, content}); used by --dump and the /context view."""
    return [{"role": "system" if m.role == "summary" else m.role, "content": m.content} for m in messages]
