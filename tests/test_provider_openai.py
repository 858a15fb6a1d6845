"""OpenAI-compatible provider: request rendering and wire details (fault handling is in test_provider_faults)."""

from __future__ import annotations

import json

import httpx
import pytest

from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import ChatRequest, ProviderError, StreamDone
from contextual.core.providers.openai import OpenAIProvider, is_context_error, render_messages
from contextual.core.providers.retry import RetryPolicy
from tests.fakes.llm_helpers import (FAST_POLICY, collect, make_provider, reasoning_text, restarts, simple_request,
                                     usages, visible_text)
from tests.fakes.llm_server import FakeLLMServer, Reply

PROMPT = [
    PromptMessage("system", "L1 rules", "L1"),
    PromptMessage("system", "L2 project", "L2"),
    PromptMessage("summary", "earlier we fixed the parser", "L3", cache_breakpoint=True),
    PromptMessage("user", "fix the bug", "L3"),
    PromptMessage("user", "Observation: {\"status\": \"ok\"}", "scratchpad"),
    PromptMessage("assistant", "Thought: look\nAction: Read[a.py]", "scratchpad"),
]


def test_roles_render_as_is_with_summary_as_system():
    assert render_messages(PROMPT) == [
        {"role": "system", "content": "L1 rules"},
        {"role": "system", "content": "L2 project"},
        {"role": "system", "content": "earlier we fixed the parser"},
        {"role": "user", "content": "fix the bug"},
        {"role": "user", "content": "Observation: {\"status\": \"ok\"}"},
        {"role": "assistant", "content": "Thought: look\nAction: Read[a.py]"},
    ]


async def test_request_body_and_headers_on_the_wire():
    with FakeLLMServer("openai", ["Thought: ok\nAction: Finish[x]"]) as srv:
        provider = make_provider("openai", srv.base_url, api_key="sk-abc-123456")
        await collect(provider, ChatRequest(PROMPT, model="deepseek-chat", max_tokens=777, temperature=0.2))
        await provider.aclose()
    (sent,) = srv.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-abc-123456"
    assert sent["model"] == "deepseek-chat" and sent["max_tokens"] == 777 and sent["temperature"] == 0.2
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["stop"] == ["\nObservation:"]
    assert sent["messages"] == render_messages(PROMPT)


async def test_no_authorization_header_without_a_key():
    with FakeLLMServer("openai", ["hi"]) as srv:
        provider = make_provider("openai", srv.base_url, api_key=None)
        await collect(provider)
        await provider.aclose()
    assert "authorization" not in srv.requests[0].headers
    assert "temperature" not in srv.requests[0]


async def test_server_stops_at_observation_like_a_real_one():
    text = "Thought: read it\nAction: Read[a.py]\nObservation: invented by the model"
    with FakeLLMServer("openai", [text]) as srv:
        provider = make_provider("openai", srv.base_url)
        chunks = await collect(provider)
        await provider.aclose()
    assert visible_text(chunks) == "Thought: read it\nAction: Read[a.py]"
    assert chunks[-1] == StreamDone(stop_reason="stop")


async def test_cached_tokens_reported():
    with FakeLLMServer("openai", [Reply("ok", usage_input=1200, usage_output=7, cached_tokens=1024)]) as srv:
        provider = make_provider("openai", srv.base_url)
        (usage,) = usages(await collect(provider))
        await provider.aclose()
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (1200, 7, 1024)


def _scripted_client(*events: str, content_type: str = "text/event-stream") -> tuple[httpx.AsyncClient, list]:
    """A client whose every request gets these raw SSE data lines (for wire shapes the fake server does not send)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = "".join(f"data: {e}\n\n" for e in events)
        return httpx.Response(200, headers={"content-type": content_type}, content=body.encode())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler)), seen


def _delta(**delta) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})


async def test_reasoning_field_variants_never_mix_into_text():
    client, _ = _scripted_client(
        _delta(reasoning_content="first "), _delta(reasoning="second"), _delta(content="Thought: x"),
        json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "prompt_cache_hit_tokens": 8}}),
        "[DONE]")
    provider = OpenAIProvider("http://x/v1", policy=FAST_POLICY, client=client)
    chunks = await collect(provider)
    await client.aclose()
    assert reasoning_text(chunks) == "first second"
    assert visible_text(chunks) == "Thought: x"
    assert usages(chunks)[0].cached_tokens == 8, "DeepSeek's own cache-hit field"


async def test_finish_reason_without_done_marker_is_a_complete_answer():
    client, seen = _scripted_client(_delta(content="ok"),
                                    json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}))
    provider = OpenAIProvider("http://x/v1", policy=FAST_POLICY, client=client)
    chunks = await collect(provider)
    await client.aclose()
    assert len(seen) == 1 and chunks[-1] == StreamDone(stop_reason="length") and restarts(chunks) == 0


async def test_end_without_finish_or_done_is_retried():
    client, seen = _scripted_client(_delta(content="partial"))
    provider = OpenAIProvider("http://x/v1", policy=RetryPolicy(base_delay=0.001, max_retries=2), client=client)
    with pytest.raises(ProviderError, match="before the answer was complete"):
        await collect(provider)
    await client.aclose()
    assert len(seen) == 3


async def test_many_stop_sequences_are_capped_at_four():
    client, seen = _scripted_client("[DONE]")
    provider = OpenAIProvider("http://x/v1", policy=FAST_POLICY, client=client)
    await collect(provider, simple_request(stop=("a", "b", "c", "d", "e")))
    await client.aclose()
    assert json.loads(seen[0].content)["stop"] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("data,message,expected", [
    ({"error": {"code": "context_length_exceeded", "message": "x"}}, "x", True),
    (None, "This model's maximum context length is 4096 tokens. However, you requested 5000", True),
    ({"error": {"message": "too many tokens in prompt"}}, "too many tokens in prompt", True),
    ({"error": {"message": "model not found"}}, "model not found", False),
])
def test_context_length_detection(data, message, expected):
    assert is_context_error(400, data, message) is expected
    assert is_context_error(401, data, message) is False


async def test_server_refusing_stream_options_is_asked_again_without_them():
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if "stream_options" in body:
            return httpx.Response(400, json={"error": {"message": "Unrecognized request argument supplied: "
                                                                  "stream_options"}})
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=f"data: {_delta(content='fine')}\n\ndata: [DONE]\n\n".encode())

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    provider = OpenAIProvider("http://x/v1", policy=FAST_POLICY, client=client)
    assert visible_text(await collect(provider)) == "fine"
    assert visible_text(await collect(provider)) == "fine"
    await client.aclose()
    assert ["stream_options" in body for body in seen] == [True, False, False]
