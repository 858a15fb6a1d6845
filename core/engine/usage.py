"""The last call's usage (the trigger's basis, A6) and the session's running figures (12.6)."""

from __future__ import annotations

from collections.abc import Sequence

from contextual.core.config import Config
from contextual.core.events import UsageEvent
from contextual.core.model_facts import cost
from contextual.core.prompt import UsageFigures
from contextual.core.providers.base import UsageChunk


class Usage:
    def __init__(self) -> None:
        self.last: int | None = None              # input + output tokens of the last call: None once stale
        self.last_call: UsageFigures | None = None
        self.session = UsageFigures()

    def take(self, chunk: UsageChunk, config: Config) -> UsageEvent:
        self.last = chunk.input_tokens + chunk.output_tokens
        self.last_call = UsageFigures(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens,
                                      chunk.cache_creation_tokens, cost(chunk, config.model, config.models))
        self.session = self.session.plus(self.last_call)
        return UsageEvent(chunk.input_tokens, chunk.output_tokens, chunk.cached_tokens, chunk.cache_creation_tokens)

    def restore(self, calls: Sequence[UsageEvent], config: Config) -> None:
        """Resume: the session's running figures (tokens, cost at today's prices) from its recorded calls."""
        for call in calls:
            self.session = self.session.plus(UsageFigures(call.input_tokens, call.output_tokens, call.cached_tokens,
                                                          call.cache_creation_tokens,
                                                          cost(call, config.model, config.models)))

    def forget(self) -> None:
        """History changed under the last call (compaction, rewind): the next estimate is a count."""
        self.last = None
