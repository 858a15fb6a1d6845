"""A provider seen through a meter: the usage each call reports, kept for the caller (a compaction's summary calls,
which the summary machinery makes and does not report: without them the session's cost left out every compaction).
"""

from __future__ import annotations

from contextlib import aclosing
from typing import AsyncGenerator

from contextual.core.providers.base import ChatRequest, Provider, StreamChunk, UsageChunk


class Metered:
    def __init__(self, provider: Provider) -> None:
        self.name = provider.name
        self._provider = provider
        self._calls: list[tuple[UsageChunk, str]] = []      # (usage, the model the call named), in order

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        async with aclosing(self._provider.stream(request)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, UsageChunk):
                    self._calls.append((chunk, request.model))
                yield chunk

    async def aclose(self) -> None:
        """The provider is the session's, shared with the agent's calls: it stays open."""

    def taken(self) -> list[tuple[UsageChunk, str]]:
        """The calls metered since the last look."""
        calls, self._calls = self._calls, []
        return calls
