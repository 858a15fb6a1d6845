"""Which server errors mean "the prompt is over the model's window" (ContextLengthExceeded), for both wires.

A table of the servers' own words, each with where it comes from, so a new server is one row. The engine
answers these by compacting and retrying once aimed lower (core.agent), so a false match costs one retry and
a missed one ends the turn: the phrases are specific, and generic words need a context word beside them.
"""

from __future__ import annotations

import re
from typing import Any

from contextual.core.providers.base import MIN_WINDOW

# Error codes/types (error.code or error.type in the JSON body).
CONTEXT_CODES = {
    # OpenAI API: error.code for a prompt over the window.
    "context_length_exceeded",
    # llama.cpp server: ERROR_TYPE_EXCEED_CONTEXT_SIZE -> type "exceed_context_size_error", HTTP 400
    # (ggml-org/llama.cpp tools/server/server-common.cpp, format_error_response).
    "exceed_context_size_error",
    # Anthropic API: HTTP 413 error.type for a request body over the size limit.
    "request_too_large",
}

# Messages, matched case-insensitively anywhere in the server's message.
CONTEXT_PHRASES = (
    # llama.cpp server: "request (4122 tokens) exceeds the available context size (4096 tokens), try increasing
    # it" (ggml-org/llama.cpp tools/server/server-context.cpp; older builds: "the request exceeds ...").
    "exceeds the available context size",
    # llama.cpp server, same error type when a slot cannot hold the prompt: "input (N tokens) is larger than the
    # max context size (M tokens). skipping" (tools/server/server-context.cpp).
    "larger than the max context size",
    # OpenAI: "This model's maximum context length is 8192 tokens. However, your messages resulted in ...";
    # vLLM says the same words (vllm-project/vllm vllm/entrypoints/openai/serving_engine.py,
    # _validate_prompt_and_tokenize); OpenRouter: "This endpoint's maximum context length is N tokens".
    "maximum context length is",
    # vLLM v1 engine: "The decoder prompt (length N) is longer than the maximum model length of M."
    # (vllm-project/vllm vllm/v1/engine/processor.py, _validate_model_input).
    "longer than the maximum model length",
    # Ollama runner: errorInputTooLong = "the input length exceeds the context length"
    # (ollama/ollama runner/ollamarunner/runner.go, runner/llamarunner/runner.go).
    "input length exceeds the context length",
    # LM Studio (its llama.cpp engine): "The number of tokens to keep from the initial prompt is greater than
    # the context length" (collected in badlogic/pi-mono packages/ai/src/utils/overflow.ts).
    "greater than the context length",
    # Anthropic API: "prompt is too long: 215000 tokens > 200000 maximum".
    "prompt is too long",
    # Anthropic API (Claude 3.7 and later), a prompt that fits but leaves less than max_tokens for the answer:
    # "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or
    # `max_tokens` and try again" (HTTP 400 invalid_request_error).
    "exceed context limit",
)

# Statuses these come with: 400 (most), 413 (Anthropic, proxies), 422 (some vLLM front ends), 500 (Ollama
# answers errorInputTooLong as a plain server error on some routes).
CONTEXT_STATUSES = frozenset({400, 413, 422, 500})

_PHRASES = re.compile("|".join(re.escape(p) for p in CONTEXT_PHRASES), re.IGNORECASE)
# Older, looser wording some OpenAI-compatible servers use: only with a client-error status.
_LOOSE = re.compile(r"context length|context window|too many tokens", re.IGNORECASE)


# "request (4122 tokens) exceeds" (llama.cpp), "your messages resulted in 9100 tokens" (OpenAI), "you requested
# 5000 tokens (4500 in the messages" (vLLM: the messages part), "prompt contains at least 4500 input tokens"
# (vLLM), "prompt is too long: 215000 tokens", "exceed context limit: 199759 + 8192" (Anthropic), "(26255 of text
# input" (OpenRouter).
_SIZES = (re.compile(r"\((\d+) in the messages"), re.compile(r"\((\d+) of text input"),
          re.compile(r"request \((\d+) tokens\)"), re.compile(r"input \((\d+) tokens\)"),
          re.compile(r"resulted in (\d+) tokens"), re.compile(r"contains (?:at least )?(\d+) input tokens"),
          re.compile(r"prompt is too long: (\d+) tokens"), re.compile(r"context limit: (\d+) \+ \d+ >"))


def _field(data: Any, key: str, least: int) -> int | None:
    """An integer field of at least ``least``, in the error object or else in the body itself (llama.cpp puts
    n_prompt_tokens and n_ctx in one or the other)."""
    error = data.get("error") if isinstance(data, dict) else None
    for holder in (error, data):
        if isinstance(holder, dict):
            n = holder.get(key)
            if isinstance(n, int) and not isinstance(n, bool) and n >= least:
                return n
    return None


def prompt_tokens_in(data: Any, message: str) -> int | None:
    """The prompt's size by the server's count, when its error says it; None otherwise."""
    n = _field(data, "n_prompt_tokens", 1)
    if n is not None:
        return n
    for pattern in _SIZES:
        match = pattern.search(message)
        if match:
            return int(match.group(1))
    return None


# "exceeds the available context size (4096 tokens)", "max context size (4096 tokens)" (llama.cpp), "maximum
# context length is 8192 tokens" (OpenAI, vLLM, OpenRouter), "maximum model length of 8192" (vLLM v1),
# "tokens > 200000 maximum", "199759 + 8192 > 200000" (Anthropic).
_WINDOWS = (re.compile(r"context size \((\d+) tokens\)"), re.compile(r"maximum context length is (\d+)"),
            re.compile(r"maximum model length of (\d+)"), re.compile(r"tokens > (\d+) maximum"),
            re.compile(r"context limit: \d+ \+ \d+ > (\d+)"))


def window_in(data: Any, message: str) -> int | None:
    """The window the server says it has, when its error says it (llama.cpp's n_ctx, or its words)."""
    n = _field(data, "n_ctx", MIN_WINDOW)
    if n is not None:
        return n
    for pattern in _WINDOWS:
        match = pattern.search(message)
        if match and int(match.group(1)) >= MIN_WINDOW:
            return int(match.group(1))
    return None


def _codes(data: Any) -> set[str]:
    error = data.get("error") if isinstance(data, dict) else None
    found = set()
    for holder in (error, data):
        if isinstance(holder, dict):
            for key in ("code", "type"):
                if isinstance(holder.get(key), str):
                    found.add(holder[key])
    return found


def is_context_error(status: int | None, data: Any, message: str) -> bool:
    """True when a server's error (its HTTP status, parsed JSON body and message) says the prompt is too long.

    ``status`` is None for an error that arrived inside a stream (its status line was already 200)."""
    if status is not None and status not in CONTEXT_STATUSES:
        return False
    if status == 413:   # "request entity too large": too much prompt, whatever words a proxy puts beside it
        return True
    if _codes(data) & CONTEXT_CODES:
        return True
    if _PHRASES.search(message):
        return True
    return status in (400, 413) and bool(_LOOSE.search(message))
