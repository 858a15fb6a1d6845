"""Anthropic provider: rendering (roles, cache breakpoints) and wire details (faults: test_provider_faults)."""

from __future__ import annotations

from contextual.core.prompt import PromptMessage
from contextual.core.providers.anthropic import (CONTINUING, is_context_error, render_messages, render_system)
from contextual.core.providers.base import ChatRequest, StreamDone
from tests.fakes.llm_helpers import collect, make_provider, reasoning_text, usages, visible_text
from tests.fakes.llm_server import FakeLLMServer, Reply

EPHEMERAL = {"type": "ephemeral"}


def P(role, content, breakpoint=False, layer="L3"):
    return PromptMessage(role, content, layer, cache_breakpoint=breakpoint)


def test_system_blocks_carry_one_cache_breakpoint_on_the_last():
    blocks = render_system([P("system", "L1 rules", layer="L1"), P("system", "L2 project", layer="L2"),
                            P("user", "hi")])
    assert blocks == [{"type": "text", "text": "L1 rules"},
                      {"type": "text", "text": "L2 project", "cache_control": EPHEMERAL}]


def test_summary_is_a_marked_user_message_merged_with_following_user_text():
    rendered = render_messages([P("system", "rules"), P("summary", "we fixed X"), P("user", "now Y")])
    assert rendered == [{"role": "user", "content": "we fixed X\n\nnow Y"}]


def test_roles_alternate_by_merging_consecutive_messages():
    rendered = render_messages([P("user", "q1"), P("assistant", "a1"), P("assistant", "a2"),
                                P("user", "o1"), P("user", "o2")])
    assert [m["role"] for m in rendered] == ["user", "assistant", "user"]
    assert rendered[1]["content"] == "a1\n\na2" and rendered[2]["content"] == "o1\n\no2"


def test_first_message_must_be_user():
    rendered = render_messages([P("system", "rules"), P("assistant", "Thought: continuing"), P("user", "obs")])
    assert rendered[0] == {"role": "user", "content": CONTINUING}
    assert [m["role"] for m in rendered] == ["user", "assistant", "user"]


def test_cache_breakpoint_lands_exactly_after_its_message():
    rendered = render_messages([P("user", "old round", breakpoint=True), P("user", "new input")])
    assert rendered == [{"role": "user", "content": [
        {"type": "text", "text": "old round", "cache_control": EPHEMERAL},
        {"type": "text", "text": "new input"}]}]


def test_at_most_two_message_breakpoints_the_latest_ones():
    rendered = render_messages([P("user", "a", True), P("assistant", "b", True), P("user", "c", True),
                                P("assistant", "d")])
    marked = [block["text"] for m in rendered if isinstance(m["content"], list)
              for block in m["content"] if "cache_control" in block]
    assert marked == ["b", "c"]
    assert rendered[0]["content"] == "a"


async def test_request_body_and_headers_on_the_wire():
    prompt = [P("system", "L1", layer="L1"), P("system", "L2", layer="L2"), P("summary", "sum", True),
              P("user", "question", layer="input")]
    with FakeLLMServer("anthropic", ["Thought: ok\nAction: Finish[x]"]) as srv:
        provider = make_provider("anthropic", srv.base_url, api_key="sk-ant-secret-99")
        await collect(provider, ChatRequest(prompt, model="claude-x", max_tokens=321, stop=("\nObservation:", "\n\n ")))
        await provider.aclose()
    (sent,) = srv.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-secret-99" and sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    assert sent["model"] == "claude-x" and sent["max_tokens"] == 321 and sent["stream"] is True
    assert sent["stop_sequences"] == ["\nObservation:"], "whitespace-only stop sequences are rejected by the API"
    assert sent["system"][-1]["cache_control"] == EPHEMERAL
    assert sent["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "sum", "cache_control": EPHEMERAL},
        {"type": "text", "text": "question"}]}]
    assert srv.token_counts[0] == sent.tokens > 0


async def test_usage_sums_fresh_created_and_read_cache_tokens():
    reply = Reply("ok", usage_input=10_000, usage_output=12, cached_tokens=8_000, cache_creation_tokens=1_500)
    with FakeLLMServer("anthropic", [reply]) as srv:
        provider = make_provider("anthropic", srv.base_url)
        (usage,) = usages(await collect(provider))
        await provider.aclose()
    assert usage.input_tokens == 10_000
    assert (usage.cached_tokens, usage.cache_creation_tokens, usage.output_tokens) == (8_000, 1_500, 12)


async def test_thinking_is_reasoning_and_stop_sequence_is_reported():
    reply = Reply("Thought: a\nAction: Finish[b]\nObservation: no", reasoning="deep thoughts")
    with FakeLLMServer("anthropic", [reply]) as srv:
        provider = make_provider("anthropic", srv.base_url)
        chunks = await collect(provider)
        await provider.aclose()
    assert reasoning_text(chunks) == "deep thoughts"
    assert visible_text(chunks) == "Thought: a\nAction: Finish[b]"
    assert chunks[-1] == StreamDone(stop_reason="stop_sequence")


def test_context_length_detection():
    assert is_context_error(400, None, "prompt is too long: 210000 tokens > 200000 maximum")
    assert not is_context_error(400, None, "max_tokens: must be positive")


def test_blank_messages_are_left_out_because_the_api_rejects_them():
    rendered = render_messages([P("user", "q"), P("assistant", "  "), P("user", "more")])
    assert rendered == [{"role": "user", "content": "q\n\nmore"}]
    assert render_system([P("system", ""), P("system", "rules")]) == [
        {"type": "text", "text": "rules", "cache_control": EPHEMERAL}]
