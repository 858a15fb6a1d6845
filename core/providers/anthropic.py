"""Anthropic Messages API, streamed over SSE, with prompt-cache breakpoints.

The stream protocol and its retries are described in ``core.providers.retry``.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Awaitable, Callable

from contextlib import aclosing
import httpx

from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import (ChatRequest, ContextLengthExceeded, ListedModel, ProviderError,
                                            ReasoningChunk, StreamChunk, StreamDone, TextChunk, UsageChunk, token_count)
from contextual.core.providers.context_errors import is_context_error, prompt_tokens_in, window_in
from contextual.core.providers.retry import (Contact, RetryPolicy, TransientError, reply_char_cap,
                                             stream_with_retries, too_long)
from contextual.core.providers.tool_calls import ToolCalls
from contextual.core.textsafe import one_line
from contextual.core.providers.model_info import listed_models
from contextual.core.providers.transport import (check_base_url, decode_object, event_stream, make_client, model_listing,
                                      scrub)

API_VERSION = "2023-06-01"
CONTINUING = "(continuing)"
MAX_MESSAGE_BREAKPOINTS = 2          # plus the system one; the API allows 4 in all
EPHEMERAL = {"type": "ephemeral"}
_TRANSIENT_STREAM_ERRORS = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


def render_system(messages: list[PromptMessage]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content} for m in messages
                                    if m.role == "system" and m.content.strip()]
    if blocks:
        blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return blocks


def render_messages(messages: list[PromptMessage]) -> list[dict[str, Any]]:
    """Alternating user/assistant turns, starting with user.

    Consecutive parts of one role are joined with a blank line; a part marked as a cache breakpoint closes
    its text block, so the cache_control lands exactly at the end of that part and not after what follows.
    Only the last MAX_MESSAGE_BREAKPOINTS breakpoints are kept.
    """
    parts = [m for m in messages if m.role != "system" and m.content.strip()]   # the API rejects blank text
    marked = [i for i, m in enumerate(parts) if m.cache_breakpoint][-MAX_MESSAGE_BREAKPOINTS:]
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    open_block = False   # may the next part of the same role join the last block?
    for index, message in enumerate(parts):
        role = "assistant" if message.role == "assistant" else "user"
        text = message.content        # a summary already opens with SUMMARY_PREFIX: the builder counted it as sent
        if not turns or turns[-1][0] != role:
            turns.append((role, []))
            open_block = False
        blocks = turns[-1][1]
        if open_block:
            blocks[-1]["text"] += "\n\n" + text
        else:
            blocks.append({"type": "text", "text": text})
        open_block = index not in marked
        if not open_block:
            blocks[-1]["cache_control"] = dict(EPHEMERAL)
    if not turns or turns[0][0] != "user":
        turns.insert(0, ("user", [{"type": "text", "text": CONTINUING}]))
    return [{"role": role, "content": _compact(blocks)} for role, blocks in turns]


def prompt_fields(messages: list[PromptMessage]) -> dict[str, Any]:
    """The body fields that carry the prompt (also printed by `contextual context --json`)."""
    system = render_system(messages)
    return {**({"system": system} if system else {}), "messages": render_messages(messages)}


def _compact(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Plain string content when there is a single block without cache_control (the common case)."""
    if len(blocks) == 1 and "cache_control" not in blocks[0]:
        return str(blocks[0]["text"])
    return blocks


def read_usage(usage: dict[str, Any]) -> UsageChunk | None:
    """None when input_tokens is missing or not a count: usage is then absent (never a made-up 0).
    Malformed cache or output fields count as 0."""
    fresh = token_count(usage.get("input_tokens"))
    if fresh is None:
        return None
    created = token_count(usage.get("cache_creation_input_tokens")) or 0
    read = token_count(usage.get("cache_read_input_tokens")) or 0
    return UsageChunk(input_tokens=fresh + created + read, output_tokens=token_count(usage.get("output_tokens")) or 0,
                      cached_tokens=read, cache_creation_tokens=created)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, base_url: str, api_key: str | None = None, *,
                 policy: RetryPolicy | None = None, client: httpx.AsyncClient | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.base_url = check_base_url(self.name, base_url)
        self.url = self.base_url + "/v1/messages"
        self._api_key = api_key or None
        self.policy = policy or RetryPolicy()
        self.contact = Contact()            # the server answered once: a refused connection is retried as usual then
        self._owns_client = client is None
        self._client = client or make_client(self.policy)
        self._sleep = sleep

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        fields = prompt_fields(request.messages)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": fields["messages"],
            "stream": True,
        }
        if "system" in fields:
            body["system"] = fields["system"]
        stops = [s for s in request.stop if s.strip()]   # whitespace-only stop sequences are rejected
        if stops:
            body["stop_sequences"] = stops
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        body = self.request_body(request)
        async with aclosing(stream_with_retries(lambda: self._attempt(body), self.policy, sleep=self._sleep,
                                          name=self.name, max_tokens=request.max_tokens,
                                          contact=self.contact)) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _attempt(self, body: dict[str, Any]) -> AsyncGenerator[StreamChunk, None]:
        usage: dict[str, Any] = {}
        stop_reason: str | None = None
        done = False
        calls = ToolCalls(reply_char_cap(self.policy, body["max_tokens"]))
        async with event_stream(self._client, self.url, name=self.name, headers=self.headers(), body=body,
                                api_key=self._api_key, policy=self.policy,
                                is_progress=lambda event: event.event != "ping",
                                error_of=lambda error: self._stream_error(
                                    error if isinstance(error, dict) else {"message": str(error)}),
                                max_events=reply_char_cap(self.policy, body["max_tokens"])) as events:
            async for event in events:
                if event.event == "ping":
                    continue
                data = decode_object(self.name, event)
                kind = data.get("type") or event.event
                if kind == "message_start":
                    usage.update(_dict(_dict(data.get("message")).get("usage")))
                elif kind in ("content_block_start", "content_block_delta"):
                    block = _dict(data.get("content_block") or data.get("delta"))
                    if not calls.feed(_tool_delta(block, data.get("index"))):
                        raise too_long(self.name, self.policy, body["max_tokens"])
                    chunk = _content_chunk(block)
                    if chunk is not None:
                        yield chunk
                elif kind == "message_delta":
                    reason = _dict(data.get("delta")).get("stop_reason")
                    stop_reason = reason if isinstance(reason, str) else stop_reason
                    usage.update({k: v for k, v in _dict(data.get("usage")).items() if v is not None})
                elif kind == "message_stop":
                    done = True
                    break
                elif kind == "error":
                    raise self._stream_error(_dict(data.get("error")))
        if not done and stop_reason is None:
            raise TransientError(f"{self.name}: stream ended before the answer was complete")
        call = calls.chunk()
        if call is not None:
            yield call
        read = read_usage(usage) if usage else None
        if read is not None:
            yield read
        yield StreamDone(stop_reason=stop_reason)

    def _stream_error(self, error: dict[str, Any]) -> ProviderError:
        kind = str(error.get("type") or "error")
        message = one_line(scrub(f"{self.name}: {kind}: {error.get('message', '')}", self._api_key))
        if kind in _TRANSIENT_STREAM_ERRORS:
            return TransientError(message)
        if is_context_error(None, {"error": error}, str(error.get("message", ""))):
            return ContextLengthExceeded(message, status=400,
                                         server_tokens=prompt_tokens_in(None, str(error.get("message", ""))),
                                         server_window=window_in(None, str(error.get("message", ""))))
        return ProviderError(message)

    async def list_models(self) -> list[ListedModel]:
        """The model ids the API offers (GET /v1/models), for the TUI's /model picker."""
        return listed_models(await model_listing(self._client, self.base_url + "/v1/models", self.headers()))

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()


def _content_chunk(block: dict[str, Any]) -> StreamChunk | None:
    kind = block.get("type")
    if kind in ("text", "text_delta") and isinstance(block.get("text"), str) and block["text"]:
        return TextChunk(block["text"])
    if kind in ("thinking", "thinking_delta") and isinstance(block.get("thinking"), str) and block["thinking"]:
        return ReasoningChunk(block["thinking"])
    return None   # signatures, tool input (read by _tool_delta), redacted thinking: nothing to show


def _tool_delta(block: dict[str, Any], index: Any) -> list[dict[str, Any]]:
    """A `tool_use` block, or a piece of its input, as a chat-completions tool-call delta (core/providers/tool_calls.py
    puts them together): a model that calls a tool natively still takes its step, as the OpenAI wire's does. Its
    input streams as `input_json_delta` pieces after a start whose `input` is empty; one given whole comes there."""
    kind = block.get("type")
    if kind == "tool_use":
        given = block.get("input")
        return [{"index": index, "id": block.get("id"), "function": {
            "name": block.get("name"), "arguments": given if isinstance(given, dict) and given else None}}]
    if kind == "input_json_delta":
        return [{"index": index, "function": {"arguments": block.get("partial_json")}}]
    return []
