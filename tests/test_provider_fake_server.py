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
        response = httpx.post(root + path, json={"model": "m", "max_tokens": 16,
                                                 "messages": [{"role": "user", "content": "hi"}]})
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
        body = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
        response = httpx.post(base_url + "/v1/messages", json=body)
        assert response.json()["content"][0]["text"] == "hello from the script"
        assert httpx.post(base_url + "/v1/messages", json=body).status_code == 500
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _anthropic(messages, **extra):
    return {"model": "m", "max_tokens": 16, "messages": messages, **extra}


USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}
MARK = {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}
ASK = {"role": "user", "content": "q"}
REFUSED = [
    (_anthropic([ASK, RESULT]), "unexpected `tool_use_id`"),                                   # an orphan result
    (_anthropic([ASK, USE, {"role": "user", "content": "go on"}]), "without `tool_result`"),   # a call unanswered
    (_anthropic([{"role": "user", "content": [MARK] * 4}], system=[MARK]), "A maximum of 4 blocks with cache_control"),
    (_anthropic([{"role": "user", "content": [{"type": "text", "text": "  "}]}]), "non-whitespace text"),
    (_anthropic([{"role": "assistant", "content": "hi"}]), "first message must use the \"user\" role"),
    (_anthropic([ASK, {"role": "assistant", "content": "prefill "}]), "trailing whitespace"),
    (_anthropic([{"role": "user", "content": "q"}], max_tokens=0), "max_tokens"),
]


@pytest.mark.parametrize("body,says", REFUSED, ids=[says for _, says in REFUSED])
def test_the_anthropic_fake_refuses_what_the_real_api_refuses(body, says):
    """The fake answered any body, so a request the real API rejects with a 400 passed every test (helper-65)."""
    with FakeLLMServer("anthropic", [Reply("answered")]) as srv:
        refused = httpx.post(srv.base_url + "/v1/messages", json=body)
        paired = httpx.post(srv.base_url + "/v1/messages", json=_anthropic([ASK, USE, RESULT]))
    assert refused.status_code == 400 and refused.json()["error"]["type"] == "invalid_request_error"
    assert says in refused.json()["error"]["message"] and srv.invalid[0]["request"] == 0
    assert paired.status_code == 200 and paired.json()["content"][0]["text"] == "answered"   # no script item used


def test_the_anthropic_fake_counts_max_tokens_in_the_window_when_asked():
    with FakeLLMServer("anthropic", [Reply("fits")], max_context_tokens=100, answer_in_window=True) as srv:
        over = httpx.post(srv.base_url + "/v1/messages", json=_anthropic([ASK], max_tokens=99))
        fits = httpx.post(srv.base_url + "/v1/messages", json=_anthropic([ASK]))
    prompt = srv.token_counts[0]
    assert over.status_code == 400 and over.json()["error"]["message"].startswith(
        f"input length and `max_tokens` exceed context limit: {prompt} + 99 > 100")
    assert fits.status_code == 200 and srv.violations == [{"request": 0, "tokens": prompt, "limit": 100,
                                                           "max_tokens": 99}]
