"""The import boundary, the retry helpers, and the factory."""

from __future__ import annotations

import ast
from email.utils import formatdate
from pathlib import Path

import pytest

from contextual.core.config import Config, ConfigError
from contextual.core.providers.anthropic import AnthropicProvider
from contextual.core.providers.factory import make_provider
from contextual.core.providers.openai import OpenAIProvider
from contextual.core.providers.retry import RetryPolicy, backoff_delay, parse_retry_after
from contextual.core.providers.transport import error_message

CORE = Path(__file__).resolve().parent.parent / "core"


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_only_providers_import_httpx():
    offenders = [str(p.relative_to(CORE)) for p in CORE.rglob("*.py")
                 if {"httpx", "httpx_sse"} & _imported_roots(p) and p.parent.name != "providers"]
    assert offenders == []
    assert "httpx" in _imported_roots(CORE / "providers" / "transport.py"), "the scan itself must see imports"


def test_retry_after_seconds_and_http_date():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = 1_700_000_000.0
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_backoff_is_capped_and_respects_retry_after():
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    assert backoff_delay(10, policy, None, rng=lambda: 1.0) == 8.0
    assert backoff_delay(1, policy, None, rng=lambda: 0.0) == 0.5
    assert backoff_delay(1, policy, 12.0, rng=lambda: 0.0) == 12.0


def _config(tmp_path: Path, **kw) -> Config:
    return Config(project_root=tmp_path, home=tmp_path / "home", model="m", **kw)


async def test_factory_picks_the_provider_and_passes_settings(tmp_path):
    openai = make_provider(_config(tmp_path, base_url="http://localhost:11434/v1/", api_key="k"), read_timeout=3.0)
    assert isinstance(openai, OpenAIProvider) and openai.name == "openai"
    assert openai.url == "http://localhost:11434/v1/chat/completions" and openai.policy.read_timeout == 3.0
    anthropic = make_provider(_config(tmp_path, provider="anthropic", base_url="https://api.anthropic.com"))
    assert isinstance(anthropic, AnthropicProvider) and anthropic.url == "https://api.anthropic.com/v1/messages"
    await openai.aclose()
    await anthropic.aclose()


async def test_a_server_on_this_machine_or_network_gets_minutes_to_begin_its_reply_and_a_hosted_one_a_minute(tmp_path):
    from contextual.core.providers.factory import LOCAL_FIRST_BYTE_TIMEOUT
    for url, first in [("http://127.0.0.1:8080/v1", LOCAL_FIRST_BYTE_TIMEOUT), ("http://192.168.1.5:11434/v1",
                       LOCAL_FIRST_BYTE_TIMEOUT), ("http://gpu.local:8000/v1", LOCAL_FIRST_BYTE_TIMEOUT),
                       ("https://api.openai.com/v1", 60.0)]:
        provider = make_provider(_config(tmp_path, base_url=url, api_key="k"))
        assert (provider.policy.first_byte_timeout, provider.policy.read_timeout) == (first, 60.0), url
        await provider.aclose()
    pinned = make_provider(_config(tmp_path, base_url="http://127.0.0.1:1/v1"), first_byte_timeout=2.0)
    assert pinned.policy.first_byte_timeout == 2.0, "a caller's own bound wins"
    await pinned.aclose()


def test_factory_errors_are_clear(tmp_path):
    with pytest.raises(ConfigError, match="no endpoint"):
        make_provider(_config(tmp_path))
    with pytest.raises(ConfigError, match="must start with http"):
        make_provider(_config(tmp_path, base_url="localhost:11434/v1"))
    with pytest.raises(TypeError, match="unknown override"):
        make_provider(_config(tmp_path, base_url="http://x/v1"), read_timout=1)


def test_error_bodies_of_every_usual_shape_give_the_server_message():
    assert error_message(b'{"error": {"message": "bad model", "type": "x"}}')[1] == "bad model"
    assert error_message(b'{"type": "error", "error": {"type": "x", "message": "too long"}}')[1] == "too long"
    assert error_message(b'{"error": "ollama says no"}')[1] == "ollama says no"
    assert error_message(b'{"detail": "vllm says no"}')[1] == "vllm says no"
    page = b"<html><body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body></html>"
    assert error_message(page)[1].split() == ["502", "Bad", "Gateway", "nginx"]
