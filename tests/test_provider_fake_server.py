"""The fake LLM servers themselves: scripting, recording, counting, limits, and use from another process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from tests.fakes.llm_helpers import collect, make_provider, simple_request, visible_text
from tests.fakes.llm_server import EXHAUSTED_REPLY, Fault, FakeLLMServer, Reply

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_script_order_callables_and_exhaustion(kind):
    def by_request(body: dict) -> str:
        last = body["messages"][-1]["content"]
        return f"you said {last}"

    with FakeLLMServer(kind, ["first", by_request]) as srv:
        provider = make_provider(kind, srv.base_url)
        assert visible_text(await collect(provider, simple_request("one"))) == "first"
        assert visible_text(await collect(provider, simple_request("two"))) == "you said two"
        assert not srv.exhausted
        assert visible_text(await collect(provider, simple_request("three"))) == EXHAUSTED_REPLY
        assert srv.exhausted
        srv.add(Reply("added later"))
        assert visible_text(await collect(provider)) == "added later"
        await provider.aclose()
    assert len(srv.requests) == 4


async def test_responder_answers_once_the_script_is_used_up():
    with FakeLLMServer("openai", ["scripted"], responder=lambda body: f"n={len(body['messages'])}") as srv:
        provider = make_provider("openai", srv.base_url)
        texts = [visible_text(await collect(provider)) for _ in range(3)]
        await provider.aclose()
    assert texts == ["scripted", "n=2", "n=2"] and not srv.exhausted


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_token_counts_are_cl100k_of_system_and_messages(kind):
    with FakeLLMServer(kind, ["ok"]) as srv:
        provider = make_provider(kind, srv.base_url)
        await collect(provider, simple_request("count these words please"))
        await provider.aclose()
    expected = (count("You are a careful coding agent.") + count("count these words please")
                + 2 * PER_MESSAGE_OVERHEAD)
    assert srv.token_counts == [expected] and srv.requests[0].tokens == expected


def test_unknown_fault_kind_is_refused():
    with pytest.raises(ValueError, match="unknown fault kind"):
        Fault("418")


@pytest.mark.parametrize("kind,path", [("openai", "/v1/chat/completions"), ("anthropic", "/v1/messages")])
def test_non_streaming_requests_get_a_whole_answer(kind, path):
    with FakeLLMServer(kind, [Reply("whole", usage_input=9, usage_output=2)]) as srv:
        root = srv.base_url.removesuffix("/v1")
        response = httpx.post(root + path, json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    data = response.json()
    text = data["choices"][0]["message"]["content"] if kind == "openai" else data["content"][0]["text"]
    assert response.status_code == 200 and text == "whole"


def test_wrong_path_is_a_404_in_the_api_format():
    with FakeLLMServer("anthropic") as srv:
        response = httpx.post(srv.base_url + "/v1/chat/completions", json={})
    assert response.status_code == 404 and response.json()["type"] == "error"


def test_serves_a_child_process():
    with FakeLLMServer("openai", ["from the child"]) as srv:
        code = ("import asyncio, sys\n"
                "from tests.fakes.llm_helpers import collect, make_provider, visible_text\n"
                "async def main():\n"
                "    p = make_provider('openai', sys.argv[1])\n"
                "    print(visible_text(await collect(p)))\n"
                "    await p.aclose()\n"
                "asyncio.run(main())\n")
        out = subprocess.run([sys.executable, "-c", code, srv.base_url], cwd=ROOT, capture_output=True, text=True,
                             timeout=60)
    assert out.stdout.strip() == "from the child", out.stderr
    assert len(srv.requests) == 1


def test_standalone_runner_prints_its_base_url(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["hello from the script", {"fault": "500"}, {"text": "t", "usage_output": 3}]))
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.llm_server", "--kind", "anthropic",
                             "--script", str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith("/v1")
        response = httpx.post(base_url + "/v1/messages", json={"model": "m", "messages": []})
        assert response.json()["content"][0]["text"] == "hello from the script"
        assert httpx.post(base_url + "/v1/messages", json={}).status_code == 500
    finally:
        proc.terminate()
        proc.wait(timeout=10)
