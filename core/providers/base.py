"""The provider interface. Only modules in this package import httpx."""

from __future__ import annotations

from dataclasses import dataclass
from typing import AsyncGenerator, Protocol, Union

from contextual.core.prompt import PromptMessage


class ProviderError(Exception):
    """A failure the user reads as one line (no traceback)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class ReplyTooLong(ProviderError):
    """The reply passed its character cap without ending (a server that ignores max_tokens): what came so far was
    streamed; a caller that can use part of a reply (the summary) may keep it."""


class RoleOrderRefused(ProviderError):
    """The model's chat template refuses two messages of one role in a row (core/providers/role_order.py): the
    same body gets the same answer, so it is final; the OpenAI provider asks again with the runs joined."""


class ContextLengthExceeded(ProviderError):
    """The server says the prompt is over the model's window: the context layer compacts and retries once.

    ``server_tokens``: the prompt's size by the server's own count when its error says it (llama.cpp
    n_prompt_tokens, "resulted in N tokens"...), so our counts can be calibrated even before any usage;
    ``server_window``: the window it says it has ("the available context size (4096 tokens)", n_ctx)."""

    def __init__(self, message: str, *, status: int | None = None, server_tokens: int | None = None,
                 server_window: int | None = None) -> None:
        super().__init__(message, status=status)
        self.server_tokens = server_tokens
        self.server_window = server_window


@dataclass(frozen=True)
class ChatRequest:
    messages: list[PromptMessage]
    model: str
    max_tokens: int = 4096
    stop: tuple[str, ...] = ("\nObservation:",)
    temperature: float | None = None


@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ReasoningChunk:
    text: str


@dataclass(frozen=True)
class ToolCallChunk:
    """A tool call the server sent in its own field (OpenAI ``tool_calls``, an Anthropic ``tool_use`` block) instead of
    the reply's text: servers parse them out of a model's output whatever the request offered. ``arguments`` is JSON
    text as sent (cut short when the reply was); ``others``: the further calls of the same reply, counted, not kept
    (one action runs per step)."""
    name: str
    arguments: str
    others: int = 0


@dataclass(frozen=True)
class UsageChunk:
    input_tokens: int          # all prompt tokens, cached included
    output_tokens: int
    cached_tokens: int = 0
    cache_creation_tokens: int = 0


MIN_WINDOW = 256      # a window stated under this many tokens is a misreading (a server's probe or its error)


def token_count(value: object) -> int | None:
    """A usage field as a count, or None when it is not one: servers send strings, lists, floats, negatives."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else None


@dataclass(frozen=True)
class StreamDone:
    stop_reason: str | None = None


@dataclass(frozen=True)
class RetryChunk:
    """The attempt that failed transiently is tried again after ``wait`` seconds (core/providers/retry.py): yielded
    before the wait, so a front end can say why the answer is late."""
    attempt: int                      # the attempt about to start: 2 is the first retry
    attempts: int                     # the most there will be (the first and max_retries more)
    reason: str                       # why the last one failed, short: "connection refused", "HTTP 429 …"
    wait: float                       # seconds until it starts
    retry_after: float | None = None  # the server's Retry-After, when it sent one


@dataclass(frozen=True)
class ListedModel:
    """A model a server's listing offers, with the window the listing states for it (None: it states none)."""
    id: str
    window: int | None = None


# A reply cut at max_tokens ends with one of these stop reasons (OpenAI-compatible, Anthropic).
CUT_AT_LIMIT = frozenset({"length", "max_tokens"})

StreamChunk = Union[TextChunk, ReasoningChunk, ToolCallChunk, UsageChunk, StreamDone, RetryChunk]


class Provider(Protocol):
    name: str

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        """Yield chunks of one complete answer. Retries happen inside; when a failed attempt had already
        yielded text, a `StreamDone(stop_reason="restart")` comes before the new attempt's chunks."""
        ...

    async def aclose(self) -> None: ...
