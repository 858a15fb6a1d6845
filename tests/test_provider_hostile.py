"""Issue 13.6 / 13.3 / 18 at the provider: malformed usage, deep JSON, endless replies, echoed keys, and the
context-length errors of real servers, against the fake servers on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from contextual.core import bounded_json
from contextual.core.providers.base import ContextLengthExceeded, ProviderError, UsageChunk, token_count
from contextual.core.providers.context_errors import is_context_error
from tests.fakes.llm_helpers import collect, make_provider, simple_request, stream_once, usages, visible_text
from tests.fakes.llm_server import DEEP, Fault, FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor

ANSWER = "Thought: done.\nAction: Finish[ok]"
KEY = "sk-test-key-123456"




# ---- malformed usage (13.6) ---------------------------------------------------------------------------------
OPENAI_BAD_USAGE = [
    {"prompt_tokens": "1200", "completion_tokens": 5},
    {"prompt_tokens": [1200], "completion_tokens": 5},
    {"prompt_tokens": -50, "completion_tokens": 5},
    {"prompt_tokens": None},
    {"prompt_tokens": True, "completion_tokens": 5},
    {"prompt_tokens": 12.5},
    {"prompt_tokens": 0, "completion_tokens": 5},      # a server that does not count: not a prompt of 0 tokens
    "lots",
    [1, 2],
]
ANTHROPIC_BAD_USAGE = [
    {"input_tokens": "1200", "output_tokens": 5},
    {"input_tokens": [1200]},
    {"input_tokens": -50, "output_tokens": 5},
    {"input_tokens": {"n": 3}},
    "lots",
    [1, 2],
]


@pytest.mark.parametrize("raw", OPENAI_BAD_USAGE, ids=repr)
async def test_malformed_usage_is_absent_openai(raw):
    chunks, _ = await stream_once("openai", [Reply(ANSWER, raw_usage=raw)])
    assert visible_text(chunks) == ANSWER
    assert usages(chunks) == []


@pytest.mark.parametrize("raw", ANTHROPIC_BAD_USAGE, ids=repr)
async def test_malformed_usage_is_absent_anthropic(raw):
    chunks, _ = await stream_once("anthropic", [Reply(ANSWER, raw_usage=raw)])
    assert visible_text(chunks) == ANSWER
    assert usages(chunks) == []


async def test_malformed_secondary_usage_fields_count_as_zero(kind):
    raw = ({"prompt_tokens": 900, "completion_tokens": "7", "prompt_tokens_details": {"cached_tokens": -3}}
           if kind == "openai" else
           {"input_tokens": 900, "output_tokens": [7], "cache_read_input_tokens": "x",
            "cache_creation_input_tokens": -1})
    chunks, _ = await stream_once(kind, [Reply(ANSWER, raw_usage=raw)])
    assert usages(chunks) == [UsageChunk(input_tokens=900, output_tokens=0)]


def test_token_count_accepts_only_non_negative_counts():
    assert [token_count(v) for v in (0, 7, 7.0, -1, 1.5, "7", [7], None, True, float("nan"))] == \
        [0, 7, 7, None, None, None, None, None, None, None]


# ---- bounded JSON depth (13.6) ------------------------------------------------------------------------------
def test_bounded_json_refuses_deep_nesting_without_recursion_error():
    deep = "[" * DEEP + "]" * DEEP
    with pytest.raises(ValueError, match="nested deeper"):
        bounded_json.loads(deep)
    with pytest.raises(ValueError):
        bounded_json.raw_decode('{"a": ' + "[" * DEEP + "]" * DEEP + "}] trailing")
    # Brackets inside strings are text, not nesting; ordinary depth passes.
    assert bounded_json.loads('{"s": "' + "[" * 500 + '"}') == {"s": "[" * 500}
    assert bounded_json.raw_decode('{"a": [[1]]}] and more') == ({"a": [[1]]}, 12)
    assert bounded_json.nesting_depth('{"a": [{"b": "]]]"}]}') == 3


async def test_deep_stream_chunk_is_a_malformed_chunk_not_a_crash(kind):
    error, srv = await stream_once(kind, [Fault("deep_chunk")] * 3, max_retries=2)
    assert isinstance(error, ProviderError) and "malformed stream chunk" in str(error)
    assert len(str(error)) < 400 and "\n" not in str(error)


async def test_a_string_of_escaped_quotes_that_never_ends_is_a_malformed_chunk_at_once(kind):
    """Depth is read outside JSON's strings; the pattern that found them was tried again from each quote inside an
    unterminated string, quadratic: this 200 kB line held the event loop about 80 s, one of 1 MB (under the line
    cap) half an hour, deaf to Esc and Ctrl-C (hostile-input red team)."""
    started = time.monotonic()
    error, _ = await stream_once(kind, [Fault("quote_chunk")], max_retries=0)
    assert isinstance(error, ProviderError) and "malformed stream chunk" in str(error)
    assert time.monotonic() - started < 30


async def test_deep_error_body_gives_one_line(kind):
    error, _ = await stream_once(kind, [Fault("deep_error_body")])
    assert type(error) is ProviderError and error.status == 400
    assert "\n" not in str(error) and len(str(error)) <= 300


# ---- endless replies (13.6) ---------------------------------------------------------------------------------
async def test_endless_text_stream_ends_at_the_character_cap(kind):
    started = time.monotonic()
    error, srv = await stream_once(kind, [Fault("endless_text", seconds=60, interval=0.001)],
                           request=simple_request(max_tokens=20))
    assert isinstance(error, ProviderError) and not isinstance(error, ContextLengthExceeded)
    assert "320 characters" in str(error) and "max_tokens 20" in str(error)
    assert len(srv.requests) == 1, "not retried: the server would do it again"
    assert time.monotonic() - started < 30       # the server would stream for 60 s: the cap ended it, not the server


async def test_endless_text_stream_ends_at_the_wall_clock_cap(kind):
    started = time.monotonic()
    error, srv = await stream_once(kind, [Fault("endless_text", seconds=60, interval=0.01)], max_reply_seconds=0.6)
    assert isinstance(error, ProviderError)
    assert "still streaming after 0.6s" in str(error)
    assert len(srv.requests) == 1
    assert time.monotonic() - started < 30       # the server would stream for 60 s: the cap ended it, not the server


async def test_an_endless_stream_of_events_carrying_nothing_ends_at_the_event_cap(kind):
    """Empty deltas (openai) or a tool's input the agent does not read (anthropic) add no character to the reply,
    yet each is progress: without a cap on the events themselves the stream ran until max_reply_seconds (30 min)."""
    started = time.monotonic()
    error, srv = await stream_once(kind, [Fault("endless_empty", seconds=60, interval=0.0005)],
                                   request=simple_request(max_tokens=20))
    assert isinstance(error, ProviderError) and "passed 320 events without ending" in str(error), error
    assert len(srv.requests) == 1, "not retried: the server would do it again"
    assert time.monotonic() - started < 30       # the server would stream for 60 s: the cap ended it, not the server


async def test_one_endless_line_is_stopped_at_the_line_cap_before_memory_fills(kind):
    """A server sending one `data:` line that never ends: the event decoder buffers a line whole, so the stream
    ends when the line passes MAX_LINE_CHARS (about 1M characters), not when memory runs out; not retried."""
    from contextual.core.providers.transport import MAX_LINE_CHARS
    error, srv = await stream_once(kind, [Fault("endless_line", seconds=60, interval=0.001)])
    assert isinstance(error, ProviderError) and f"passed {MAX_LINE_CHARS:,} characters" in str(error)
    assert len(srv.requests) == 1


# ---- keys echoed by the server (13.3) -----------------------------------------------------------------------
OTHER_KEYS = {"OPENAI_API_KEY": "sk-openai-other-998877", "ANTHROPIC_API_KEY": "sk-ant-other-665544",
              "CONTEXTUAL_API_KEY": "ctx-key-other-112233"}


async def test_in_stream_error_echoing_any_known_key_is_scrubbed(kind, monkeypatch):
    for name, value in OTHER_KEYS.items():
        monkeypatch.setenv(name, value)
    echoed = f"bad auth {KEY} / {' / '.join(OTHER_KEYS.values())}"
    error, _ = await stream_once(kind, [Fault("error_event", message=echoed)] * 5, max_retries=1)
    assert isinstance(error, ProviderError) and "bad auth" in str(error)
    for secret in (KEY, *OTHER_KEYS.values()):
        assert secret not in str(error)


async def test_http_error_echoing_another_key_variable_is_scrubbed(kind, monkeypatch):
    for name, value in OTHER_KEYS.items():
        monkeypatch.setenv(name, value)
    error, _ = await stream_once(kind, [Fault("401", message=f"key {OTHER_KEYS['ANTHROPIC_API_KEY']} and "
                                                     f"{OTHER_KEYS['OPENAI_API_KEY']} rejected")])
    assert "rejected" in str(error) and "[redacted]" in str(error)
    assert not any(v in str(error) for v in OTHER_KEYS.values())


# ---- context-length errors of real servers (18) ----------------------------------------------------------------
ANTHROPIC_MAX_TOKENS = ("input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease "
                        "input length or `max_tokens` and try again")
REAL_CONTEXT_ERRORS = [
    # llama.cpp server (tools/server/server-context.cpp + server-task.cpp error body)
    (400, {"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 4122, "n_ctx": 4096,
                     "message": "request (4122 tokens) exceeds the available context size (4096 tokens), try "
                                "increasing it"}}),
    (400, {"error": {"code": 400, "type": "exceed_context_size_error",
                     "message": "input (5000 tokens) is larger than the max context size (4096 tokens). skipping"}}),
    # vLLM (serving_engine.py; v1 processor)
    (400, {"object": "error", "type": "BadRequestError", "code": 400,
           "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
                      "(4500 in the messages, 500 in the completion). Please reduce the length of the messages or "
                      "completion."}),
    (400, {"error": {"message": "The decoder prompt (length 8825) is longer than the maximum model length of 8192.",
                     "type": "BadRequestError", "code": 400}}),
    # Ollama runner, answered as a server error on some routes
    (500, {"error": "the input length exceeds the context length"}),
    (400, {"error": "the input length exceeds the context length"}),
    # LM Studio
    (400, {"error": "The number of tokens to keep from the initial prompt is greater than the context length."}),
    # OpenRouter
    (400, {"error": {"code": 400, "message": "This endpoint's maximum context length is 16384 tokens. However, you "
                                             "requested about 26265 tokens (26255 of text input, 10 in the output)."}}),
    # OpenAI
    (400, {"error": {"message": "Your input exceeds the context window of this model.", "type": "invalid_request_error",
                     "param": "input", "code": "context_length_exceeded"}}),
    # Anthropic
    (400, {"type": "error", "error": {"type": "invalid_request_error",
                                      "message": "prompt is too long: 215000 tokens > 200000 maximum"}}),
    # Anthropic, Claude 3.7 and later: the prompt fits, its max_tokens does not (helper-65)
    (400, {"type": "error", "error": {"type": "invalid_request_error", "message": ANTHROPIC_MAX_TOKENS}}),
    (413, {"type": "error", "error": {"type": "request_too_large", "message": "Request exceeds the maximum size"}}),
]
NOT_CONTEXT_ERRORS = [
    (400, {"error": {"message": "max_tokens must be at least 1", "type": "invalid_request_error"}}),
    (401, {"error": {"message": "This model's maximum context length is 4096 tokens", "code": "invalid_api_key"}}),
    (429, {"error": {"message": "Rate limit reached: too many tokens per minute"}}),
    (500, {"error": "CUDA out of memory"}),
    (400, {"error": {"message": "model 'x' not found, try pulling it first"}}),
]


def _message(data) -> str:
    error = data.get("error", data)
    return error.get("message", str(error)) if isinstance(error, dict) else str(error)


@pytest.mark.parametrize("status,data", REAL_CONTEXT_ERRORS, ids=lambda v: str(v)[:60])
def test_real_servers_context_errors_are_recognised(status, data):
    assert is_context_error(status, data, _message(data))


@pytest.mark.parametrize("status,data", NOT_CONTEXT_ERRORS, ids=lambda v: str(v)[:60])
def test_other_errors_are_not_context_errors(status, data):
    assert not is_context_error(status, data, _message(data))


async def test_llamacpp_400_body_raises_context_length_exceeded():
    flavor = Flavor("llamacpp", n_ctx=64)
    with FakeLLMServer("openai", [ANSWER], flavor=flavor, max_context_tokens=64) as srv:
        provider = make_provider("openai", srv.base_url)
        try:
            with pytest.raises(ContextLengthExceeded, match="exceeds the available context size"):
                await collect(provider, simple_request("word " * 200))
        finally:
            await provider.aclose()
    assert len(srv.requests) == 1 and srv.violations


async def test_context_error_inside_a_stream_is_recognised():
    message = "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it"
    error, srv = await stream_once("openai", [Fault("error_event", message=message), ANSWER])
    assert isinstance(error, ContextLengthExceeded) and len(srv.requests) == 1


@pytest.mark.parametrize("data,message,expected", [
    ({"error": {"n_prompt_tokens": 4122, "n_ctx": 4096}}, "request (4122 tokens) exceeds ...", 4122),
    (None, "request (4122 tokens) exceeds the available context size (4096 tokens)", 4122),
    (None, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
     9100),
    (None, "you requested 5000 tokens (4500 in the messages, 500 in the completion)", 4500),
    (None, "and your prompt contains at least 4500 input tokens, for a total of", 4500),
    (None, "prompt is too long: 215000 tokens > 200000 maximum", 215000),
    (None, ANTHROPIC_MAX_TOKENS, 199759),
    (None, "you requested about 26265 tokens (26255 of text input, 10 in the output)", 26255),
    (None, "the input length exceeds the context length", None),
])
def test_the_servers_own_prompt_count_is_read_from_its_error(data, message, expected):
    from contextual.core.providers.context_errors import prompt_tokens_in
    assert prompt_tokens_in(data, message) == expected


@pytest.mark.parametrize("data,message,expected", [
    ({"error": {"n_ctx": 4096, "n_prompt_tokens": 5000}}, "anything", 4096),                       # llama.cpp body
    (None, "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it", 4096),
    (None, "input (5000 tokens) is larger than the max context size (8192 tokens). skipping", 8192),
    (None, "This model's maximum context length is 16384 tokens. However, your messages resulted in 17000 tokens",
     16384),
    (None, "The decoder prompt (length 9000) is longer than the maximum model length of 8192.", 8192),
    (None, "prompt is too long: 215000 tokens > 200000 maximum", 200000),
    (None, ANTHROPIC_MAX_TOKENS, 200000),
    (None, "the input length exceeds the context length", None),                                # Ollama: no figure
    ({"error": {"n_ctx": 12}}, "maximum context length is 100 tokens", None),                  # no real window
])
def test_the_servers_window_is_read_from_its_error(data, message, expected):
    from contextual.core.providers.context_errors import window_in
    assert window_in(data, message) == expected
