"""Tool calls a local OpenAI-compatible server sends in `delta.tool_calls` (llama.cpp, Ollama, vLLM, LM Studio and
proxies parse them out of a model's output), in each server's dialect, and a 200 that carries an error instead of
a stream, against the fake server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from contextual.core.providers.base import ProviderError, ReplyTooLong, StreamDone, ToolCallChunk
from tests.fakes.llm_helpers import simple_request, stream_once
from tests.fakes.llm_server import Fault, Reply

ARGS = json.dumps({"file_path": "a.txt"})


def _call(index: int | None = 0, id: str | None = None, name: str | None = None, arguments=None) -> dict:
    call: dict = {"function": {}}
    if index is not None:
        call["index"] = index
    if id is not None:
        call["id"], call["type"] = id, "function"
    if name is not None:
        call["function"]["name"] = name
    if arguments is not None:
        call["function"]["arguments"] = arguments
    return call


def _pieces(index: int | None, text: str, size: int = 3) -> list[dict]:
    return [_call(index, arguments=text[i:i + size]) for i in range(0, len(text), size)]


DIALECTS = {   # deltas, and how many calls beside the first they hold
    "arguments as an object": ([_call(0, "call_1", "Read", {"file_path": "a.txt"})], 0),
    "id and name in the first delta only": ([_call(0, "call_1", "Read", ""), *_pieces(0, ARGS)], 0),
    "no id": ([_call(0, None, "Read", ARGS)], 0),
    "no index": ([_call(None, "call_1", "Read", ""), *_pieces(None, ARGS)], 0),
    "every call at index 0, told apart by id": ([_call(0, "c1", "Read", ARGS), _call(0, "c2", "LS", "{}")], 1),
    "no index and no id, told apart by a name after whole arguments": ([_call(None, None, "Read", ARGS),
                                                                         _call(None, None, "LS", "{}")], 1),
    "parallel calls interleaved": ([_call(0, "c1", "Read", ""), _call(1, "c2", "LS", ""), *_pieces(0, ARGS),
                                    _call(1, arguments="{}")], 1),
}


@pytest.mark.parametrize("deltas, others", DIALECTS.values(), ids=DIALECTS.keys())
async def test_the_first_tool_call_is_put_together_in_every_servers_dialect(deltas, others):
    chunks, srv = await stream_once("openai", [Reply("", tool_calls=tuple(deltas))])
    (call,) = [c for c in chunks if isinstance(c, ToolCallChunk)]
    assert call.name == "Read" and json.loads(call.arguments) == {"file_path": "a.txt"} and call.others == others
    assert chunks[-1] == StreamDone("tool_calls") and len(srv.requests) == 1


async def test_two_thousand_calls_keep_the_first_and_count_the_rest():
    calls = tuple(_call(i, f"c{i}", "Read", json.dumps({"file_path": f"f{i}.txt"})) for i in range(2000))
    chunks, _ = await stream_once("openai", [Reply("", tool_calls=calls)])
    assert [c for c in chunks if isinstance(c, ToolCallChunk)] == [
        ToolCallChunk("Read", json.dumps({"file_path": "f0.txt"}), others=1999)]


async def test_arguments_cut_at_the_token_limit_come_as_sent_with_the_stop_reason():
    cut = '{"file_path": "b.txt", "content": "abc'
    chunks, _ = await stream_once("openai", [Reply("", tool_calls=(_call(0, "c1", "Write", cut),),
                                                   finish_reason="length")])
    assert ToolCallChunk("Write", cut) in chunks and chunks[-1] == StreamDone("length")


async def test_endless_arguments_end_at_the_character_cap():
    endless = tuple([_call(0, "c1", "Write", '{"content": "'), *[_call(0, arguments="x" * 50)] * 40])
    result, srv = await stream_once("openai", [Reply("", tool_calls=endless)], request=simple_request(max_tokens=10))
    assert isinstance(result, ReplyTooLong) and "without ending" in str(result) and len(srv.requests) == 1


async def test_a_tool_name_past_the_character_cap_ends_the_reply_like_endless_arguments():
    """The name comes back as the Action's text: a name of 900 kB (one line, under the stream's line cap) went
    into history whole, past the cap a reply's text is held to."""
    result, srv = await stream_once("openai", [Reply("", tool_calls=(_call(0, "c1", "N" * 500, "{}"),))],
                                    request=simple_request(max_tokens=10))
    assert isinstance(result, ReplyTooLong) and "without ending" in str(result) and len(srv.requests) == 1


@pytest.mark.parametrize("error_type, attempts", [("invalid_request_error", 1), ("api_error", 3)])
async def test_a_200_with_an_error_body_gives_the_servers_message(error_type, attempts):
    fault = Fault("json_error_200", message="model 'qwen3' not found, try pulling it first", error_type=error_type)
    result, srv = await stream_once("openai", [fault] * 3, max_retries=2)
    assert isinstance(result, ProviderError) and "model 'qwen3' not found, try pulling it first" in str(result)
    assert len(srv.requests) == attempts, "a refusal is final; a server's other trouble is retried"


async def test_an_anthropic_tool_use_block_comes_as_the_first_call_with_its_input_put_together():
    """Its input streams as input_json_delta pieces; it was dropped, and the reply read as having no Action."""
    uses = ({"name": "Read", "input": {"file_path": "a.txt"}}, {"name": "LS", "input": {}})
    chunks, _ = await stream_once("anthropic", [Reply("Thought: read it", tool_calls=uses)])
    assert [c for c in chunks if isinstance(c, ToolCallChunk)] == [ToolCallChunk("Read", ARGS, others=1)]
    assert chunks[-1] == StreamDone("tool_use")


async def test_an_anthropic_tool_input_without_end_ends_at_the_character_cap():
    endless = ({"name": "Write", "input": {"file_path": "b.txt", "content": "x" * 5000}},)
    result, srv = await stream_once("anthropic", [Reply("", tool_calls=endless)], request=simple_request(max_tokens=10))
    assert isinstance(result, ReplyTooLong) and "without ending" in str(result) and len(srv.requests) == 1
