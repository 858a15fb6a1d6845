"""OpenAI-compatible chat completions (OpenAI, DeepSeek, Ollama, vLLM, LM Studio...), streamed over SSE.

The stream protocol and its retries are described in ``core.providers.retry``.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Awaitable, Callable

from contextlib import aclosing
import httpx

from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import (ChatRequest, ContextLengthExceeded, ListedModel, ProviderError,
                                            ReasoningChunk, RoleOrderRefused, StreamChunk, StreamDone, TextChunk,
                                            UsageChunk, token_count)
from contextual.core.providers.context_errors import is_context_error, prompt_tokens_in, window_in
from contextual.core.providers.role_order import refuses_role_order
from contextual.core.providers.retry import (Contact, RetryPolicy, TransientError, reply_char_cap,
                                             stream_with_retries, too_long)
from contextual.core.providers.tool_calls import ToolCalls
from contextual.core.textsafe import one_line
from contextual.core.providers.model_info import listed_models
from contextual.core.providers.transport import (check_base_url, decode_object, event_stream, make_client, model_listing,
                                      scrub)

MAX_STOP_SEQUENCES = 4   # OpenAI rejects more


def render_messages(messages: list[PromptMessage], joined: bool = False) -> list[dict[str, str]]:
    """A summary is a system message here. Consecutive messages of one role stay as they are (each layer its own
    message), unless `joined`: then a run of one role is one message, its texts apart by a blank line, for a
    server whose chat template refuses the runs (core/providers/role_order.py)."""
    out: list[dict[str, str]] = []
    for m in messages:
        role = "system" if m.role == "summary" else m.role
        if joined and out and out[-1]["role"] == role:
            out[-1]["content"] += "\n\n" + m.content
        else:
            out.append({"role": role, "content": m.content})
    return out


def prompt_fields(messages: list[PromptMessage], joined: bool = False) -> dict[str, Any]:
    """The body fields that carry the prompt (also printed by `contextual context --json`)."""
    return {"messages": render_messages(messages, joined)}


def read_usage(usage: Any) -> UsageChunk | None:
    """None when the prompt count is missing, 0 or not a count (a string, a list, negative): usage is then
    absent, never a made-up 0 that would silence auto-compaction. Other malformed fields count as 0."""
    if not isinstance(usage, dict):
        return None
    prompt = token_count(usage.get("prompt_tokens"))
    if not prompt:      # 0 too: a prompt always holds the system message, so a 0 is a server that does not count
        return None
    details = usage.get("prompt_tokens_details")
    cached = token_count(details.get("cached_tokens")) if isinstance(details, dict) else None
    if not cached:   # DeepSeek reports its cache hits under its own name
        cached = token_count(usage.get("prompt_cache_hit_tokens"))
    return UsageChunk(input_tokens=prompt, output_tokens=token_count(usage.get("completion_tokens")) or 0,
                      cached_tokens=min(cached or 0, prompt))


# An in-stream error that names a refused request (OpenAI's types and codes, vLLM's exception names): sending
# the same request again gets the same answer, so it is final, like the HTTP status it stands for.
_FINAL_STREAM_ERRORS = {"invalid_request_error", "authentication_error", "permission_error", "not_found_error",
                        "invalid_api_key", "model_not_found", "insufficient_quota", "BadRequestError",
                        "AuthenticationError", "PermissionDeniedError", "NotFoundError"}
_RETRYABLE_STATUSES = {408, 409, 425, 429}


def _refusal_status(error: dict[str, Any]) -> int | None:
    """The HTTP status an in-stream error stands for when it is a refusal retrying cannot change, else None."""
    for field in ("code", "status"):
        value = error.get(field)
        status = value if isinstance(value, int) else int(value) if isinstance(value, str) and value.isascii() \
            and value.isdigit() else None
        if status is not None and 400 <= status < 500 and status not in _RETRYABLE_STATUSES:
            return status
    named = {str(error.get("type") or ""), str(error.get("code") or "")}
    return 400 if named & _FINAL_STREAM_ERRORS else None


def stream_error(name: str, error: Any, api_key: str | None) -> ProviderError:
    """An error object sent inside a 200 stream (vLLM, older llama.cpp, proxies), keys scrubbed: a context
    overflow, a refusal (final, never retried), or anything else (a server's trouble: retried)."""
    message = error.get("message") if isinstance(error, dict) else error
    line = one_line(scrub(f"{name}: error from the server: {message if isinstance(message, str) else error}", api_key))
    if refuses_role_order(str(message)):
        return RoleOrderRefused(line, status=400)
    if is_context_error(None, {"error": error}, str(message)):
        return ContextLengthExceeded(line, status=400, server_tokens=prompt_tokens_in({"error": error}, str(message)),
                                     server_window=window_in({"error": error}, str(message)))
    status = _refusal_status(error) if isinstance(error, dict) else None
    return ProviderError(line, status=status) if status is not None else TransientError(line)


class OpenAIProvider:
    name = "openai"

    def __init__(self, base_url: str, api_key: str | None = None, *, policy: RetryPolicy | None = None,
                 client: httpx.AsyncClient | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.base_url = check_base_url(self.name, base_url)
        self.url = self.base_url + "/chat/completions"
        self._api_key = api_key or None
        self.policy = policy or RetryPolicy()
        self.contact = Contact()            # the server answered once: a refused connection is retried as usual then
        self._owns_client = client is None
        self._client = client or make_client(self.policy)
        self._sleep = sleep
        self._usage_option = True   # cleared for servers that reject stream_options
        self.joined_roles = False   # set for servers whose chat template refuses two messages of one role in a row

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            **prompt_fields(request.messages, self.joined_roles),
            "max_tokens": request.max_tokens,
            "stream": True,
        }
        if self._usage_option:
            body["stream_options"] = {"include_usage": True}
        if request.stop:
            body["stop"] = list(request.stop[:MAX_STOP_SEQUENCES])
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        body = self.request_body(request)
        try:
            async with aclosing(stream_with_retries(lambda: self._attempt(body), self.policy, sleep=self._sleep,
                                          name=self.name, max_tokens=request.max_tokens,
                                          contact=self.contact)) as chunks:
                async for chunk in chunks:
                    yield chunk
        except ProviderError as exc:
            # Both refusals come before any chunk: ask again, as each server needs, for the rest of the session.
            if isinstance(exc, RoleOrderRefused) and not self.joined_roles:
                self.joined_roles = True        # the model's template wants one message per role in a row
            elif exc.status == 400 and "stream_options" in str(exc) and self._usage_option:
                self._usage_option = False      # older servers refuse the usage option
            else:
                raise
            async with aclosing(self.stream(request)) as chunks:
                async for chunk in chunks:
                    yield chunk

    async def _attempt(self, body: dict[str, Any]) -> AsyncGenerator[StreamChunk, None]:
        usage: UsageChunk | None = None
        finish: str | None = None
        done = False
        calls = ToolCalls(reply_char_cap(self.policy, body["max_tokens"]))
        async with event_stream(self._client, self.url, name=self.name, headers=self.headers(), body=body,
                                api_key=self._api_key, policy=self.policy, is_progress=lambda event: True,
                                error_of=lambda error: stream_error(self.name, error, self._api_key),
                                max_events=reply_char_cap(self.policy, body["max_tokens"])) as events:
            async for event in events:
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                data = decode_object(self.name, event)
                if data.get("error"):
                    raise stream_error(self.name, data["error"], self._api_key)
                if data.get("usage"):
                    usage = read_usage(data["usage"]) or usage
                choices = data.get("choices")
                for choice in choices if isinstance(choices, list) else []:
                    if not isinstance(choice, dict):
                        continue
                    delta = choice.get("delta")
                    delta = delta if isinstance(delta, dict) else {}
                    reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                    if isinstance(reasoning, str) and reasoning:
                        yield ReasoningChunk(reasoning)
                    if isinstance(delta.get("content"), str) and delta["content"]:
                        yield TextChunk(delta["content"])
                    if delta.get("tool_calls") and not calls.feed(delta["tool_calls"]):
                        raise too_long(self.name, self.policy, body["max_tokens"])
                    if isinstance(choice.get("finish_reason"), str):
                        finish = choice["finish_reason"]
        # Some servers close without [DONE]; a finish_reason still proves the answer is whole.
        if not done and finish is None:
            raise TransientError(f"{self.name}: stream ended before the answer was complete")
        call = calls.chunk()
        if call is not None:
            yield call
        if usage is not None:
            yield usage
        yield StreamDone(stop_reason=finish)

    async def list_models(self) -> list[ListedModel]:
        """The model ids the server offers (GET /models), for the TUI's /model picker."""
        return listed_models(await model_listing(self._client, self.base_url + "/models", self.headers()))

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
