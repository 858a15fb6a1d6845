"""The last call's usage (the trigger's basis, A6) and the session's running figures (12.6)."""

from __future__ import annotations

from collections.abc import Sequence

from contextual.core.config import Config
from contextual.core.events import UsageEvent
from contextual.core.model_facts import TokenUsage, cost
from contextual.core.prompt import UsageFigures
from contextual.core.providers.base import UsageChunk


class Usage:
    def __init__(self) -> None:
        self.last: int | None = None              # input + output tokens of the last call: None once stale
        self.last_call: UsageFigures | None = None
        self.session = UsageFigures()
        self.sent: int | None = None              # our count of the prompt that call sent (None: not known)

    def take(self, chunk: UsageChunk, config: Config, sent: int | None = None) -> UsageEvent:
        self.last = chunk.input_tokens + chunk.output_tokens
        self.sent = sent
        self.last_call = _figures(chunk, config.model, config)
        self.session = self.session.plus(self.last_call)
        return UsageEvent(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens, chunk.cache_creation_tokens,
                          config.model or "", sent)

    def take_side(self, chunk: UsageChunk, model: str, config: Config, purpose: str) -> UsageEvent:
        """A call that is not the agent's (a compaction's summary): it costs, but the next prompt's basis (A6) and
        the calibration stay the agent's last call."""
        self.session = self.session.plus(_figures(chunk, model, config))
        return UsageEvent(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens, chunk.cache_creation_tokens,
                          model, None, purpose)

    def restore(self, calls: Sequence[UsageEvent], config: Config) -> None:
        """Resume: the session's running figures (tokens, cost at today's prices) from its recorded calls."""
        # each at its own model's prices (after /model, a fork priced them at the new one)
        figures = [_figures(call, call.model or config.model, config) for call in calls]
        for one in figures:
            self.session = self.session.plus(one)
        agents = [(call, one) for call, one in zip(calls, figures) if not call.purpose]
        last, last_figures = agents[-1] if agents else (None, None)
        if last is not None and self.last == last.total and last.sent is not None:   # still the basis: rebased
            self.sent, self.last_call = last.sent, last_figures

    def forget(self) -> None:
        """History changed under the last call (compaction, rewind): the next estimate is a count."""
        self.last, self.sent = None, None

    def basis(self, counted: int, factor: float = 1.0) -> int | None:
        """A6's last usage, rebased on what the prompt changed since that call: the server's count of what it was
        sent plus (in its units, by the calibration `factor`) what the next prompt adds or no longer holds, by our
        count. A turn's last call held its observations whole and the history keeps them stored: the bare usage
        said 'compacts at the next message' at 6.5k of an 8k window while the next prompt was 1.8k, and every
        message compacted. Without our count of that call (a session written before it was recorded) it is the
        usage as reported."""
        if self.last is None or self.sent is None or self.last_call is None:
            return self.last
        return max(0, self.last_call.input_tokens + round((counted - self.sent) * factor))


def _figures(call: TokenUsage, model: str | None, config: Config) -> UsageFigures:
    """One call's figures, priced as the model it named (None: unpriced)."""
    dollars = cost(call, model, config.models)
    return UsageFigures(call.input_tokens, call.output_tokens, call.cached_tokens, call.cache_creation_tokens,
                        dollars, int(dollars is not None), int(dollars is None))
