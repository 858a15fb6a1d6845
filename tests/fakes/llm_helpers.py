"""Small helpers for tests that drive a provider against a FakeLLMServer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from contextual.core.prompt import PromptMessage
from contextual.core.providers.anthropic import AnthropicProvider
from contextual.core.providers.base import (ChatRequest, ProviderError, ReasoningChunk, StreamChunk, StreamDone, TextChunk,
                                 UsageChunk)
from contextual.core.providers.openai import OpenAIProvider
from contextual.core.providers.retry import RESTART, RetryPolicy
from tests.fakes.llm_server import FakeLLMServer

# Fast enough for tests, still exercising every branch of the retry loop.
FAST_POLICY = RetryPolicy(base_delay=0.01, max_delay=0.05, total_time=10.0, connect_timeout=2.0, read_timeout=2.0,
                          first_byte_timeout=2.0)


class RecordingSleep:
    """Stands in for asyncio.sleep: records the backoff delays instead of waiting them out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_provider(kind: str, base_url: str, api_key: str | None = "sk-test-key-123456", *,
                  sleep: Any = None, **policy: Any) -> OpenAIProvider | AnthropicProvider:
    cls = OpenAIProvider if kind == "openai" else AnthropicProvider
    extra = {"sleep": sleep} if sleep is not None else {}
    if "read_timeout" in policy:           # a test of silence means the start of the reply too, unless it says
        policy.setdefault("first_byte_timeout", policy["read_timeout"])
    return cls(base_url, api_key, policy=replace(FAST_POLICY, **policy), **extra)


def simple_request(text: str = "hello", **kwargs: Any) -> ChatRequest:
    messages = [PromptMessage("system", "You are a careful coding agent.", "L1"),
                PromptMessage("user", text, "input")]
    return ChatRequest(messages=messages, model="fake-model", **kwargs)


async def collect(provider: Any, request: ChatRequest | None = None) -> list[StreamChunk]:
    return [chunk async for chunk in provider.stream(request or simple_request())]


def visible_text(chunks: list[StreamChunk]) -> str:
    """What a consumer following the restart contract keeps: the text after the last restart marker."""
    text: list[str] = []
    for chunk in chunks:
        if isinstance(chunk, StreamDone) and chunk.stop_reason == RESTART:
            text.clear()
        elif isinstance(chunk, TextChunk):
            text.append(chunk.text)
    return "".join(text)


def reasoning_text(chunks: list[StreamChunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, ReasoningChunk))


def usages(chunks: list[StreamChunk]) -> list[UsageChunk]:
    return [c for c in chunks if isinstance(c, UsageChunk)]


def restarts(chunks: list[StreamChunk]) -> int:
    return sum(1 for c in chunks if isinstance(c, StreamDone) and c.stop_reason == RESTART)


async def stream_once(kind: str, script: list, *, request: ChatRequest | None = None, flavor: Any = None,
                      api_key: str | None = "sk-test-key-123456", sleep: Any = None,
                      **policy: Any) -> tuple[list[StreamChunk] | ProviderError, FakeLLMServer]:
    """Stream one answer from a fresh fake server: (the chunks, or the ProviderError raised; the server)."""
    with FakeLLMServer(kind, script, flavor=flavor) as srv:
        provider = make_provider(kind, srv.base_url, api_key, sleep=sleep, **policy)
        try:
            try:
                result: list[StreamChunk] | ProviderError = await collect(provider, request)
            except ProviderError as exc:
                result = exc
        finally:
            await provider.aclose()
    return result, srv
