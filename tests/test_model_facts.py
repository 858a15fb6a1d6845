"""Model facts (issue 16.4): the window from the server, the table or the user; prices and cost; and the
token calibration against the server's own counts (issue 18.1)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from contextual.core.config import load_config
from contextual.core.model_facts import cost, lookup, resolve_window
from contextual.core.providers.base import UsageChunk
from contextual.core.providers.model_info import detect_window, server_root
from contextual.core.tokens import Calibration
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.server_flavors import Flavor
from tests.waits import HANG_GUARD


def _config(tmp_path: Path, base_url: str, model: str = "fake-model", **env: str):
    environment = {"CONTEXTUAL_HOME": str(tmp_path / "home"), "CONTEXTUAL_BASE_URL": base_url,
                   "CONTEXTUAL_MODEL": model, **env}
    return load_config(tmp_path, env=environment)


@pytest.mark.parametrize("flavor,model,window,source", [
    (Flavor("llamacpp", n_ctx=4096, n_ctx_train=32768), "fake-model", 4096, "server: llama.cpp /props"),
    (Flavor("ollama", num_ctx=8192, n_ctx_train=131072), "fake-model", 8192, "server: ollama /api/show num_ctx"),
    # the model's own length is not what Ollama runs: without num_ctx it is Ollama's default (tests/test_server_windows.py)
    (Flavor("ollama", n_ctx_train=32768), "fake-model", 4096, "server: ollama default num_ctx"),
    (Flavor("vllm", n_ctx=16384), "fake-model", 16384, "server: /v1/models max_model_len"),
    (Flavor("openrouter", n_ctx=65536), "fake-model", 65536, "server: /v1/models context_length"),
    (None, "gpt-4o-mini", 128000, "table: gpt-4o-mini"),
    (None, "fake-model", 200000, "default"),
], ids=["llamacpp-props", "ollama-num_ctx", "ollama-model_info", "vllm", "openrouter", "table", "default"])
async def test_window_without_settings_is_the_servers_then_the_tables_then_the_default(tmp_path, flavor, model,
                                                                                        window, source):
    with FakeLLMServer("openai", [], flavor=flavor, model=model) as srv:
        config = await resolve_window(_config(tmp_path, srv.base_url, model))
    assert (config.context_window, config.window_source) == (window, source)
    assert config.output_reserve < config.context_window and not srv.requests


async def test_a_small_detected_window_shrinks_the_answer_reserve(tmp_path):
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        config = await resolve_window(_config(tmp_path, srv.base_url))
    assert config.output_reserve == 1024 and config.prompt_limit == 4096 - 1024     # 25 % of the window
    assert config.threshold < config.prompt_limit                                  # compaction before any cut


@pytest.mark.parametrize("how", ["env", "config"])
async def test_the_users_window_always_wins(tmp_path, how):
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        if how == "config":
            (tmp_path / ".contextual").mkdir()
            (tmp_path / ".contextual" / "config.toml").write_text("context_window = 50000\n")
            config = _config(tmp_path, srv.base_url)
        else:
            config = _config(tmp_path, srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="50000")
        resolved = await resolve_window(config)
    assert resolved.context_window == 50000 and resolved.window_source == how and resolved.window_explicit
    # ... and the launch says the server states less (it said nothing: five requests were rejected first)
    assert resolved.window_note is not None
    assert resolved.window_note.startswith("the server states a window of 4,096 tokens (llama.cpp")
    assert f"smaller than the 50,000 set ({how})" in resolved.window_note


async def test_a_window_set_within_the_servers_is_not_remarked(tmp_path):
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        resolved = await resolve_window(_config(tmp_path, srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="2048"))
    assert resolved.context_window == 2048 and resolved.window_note is None


async def test_flag_window_wins(tmp_path):
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        environment = {"CONTEXTUAL_HOME": str(tmp_path / "home"), "CONTEXTUAL_BASE_URL": srv.base_url,
                       "CONTEXTUAL_MODEL": "m"}
        config = await resolve_window(load_config(tmp_path, {"context_window": 9000}, env=environment))
    assert (config.context_window, config.window_source) == (9000, "flag")


async def test_a_hung_server_gives_up_within_the_timeout_and_keeps_the_default(tmp_path):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        # A server that never answers: only the probe's own timeout can end this (the guard only turns a hang
        # into a failure).
        probe = await asyncio.wait_for(
            detect_window(f"http://127.0.0.1:{silent.getsockname()[1]}/v1", "m", timeout=0.5), HANG_GUARD)
    assert probe.found is None and not probe.reached


async def test_a_closed_port_is_no_window(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = await resolve_window(_config(tmp_path, f"http://127.0.0.1:{port}/v1", "gpt-4o"))
    assert (config.context_window, config.window_source) == (128000, "table: gpt-4o")


def test_server_root_drops_the_v1_suffix():
    assert server_root("http://h:8080/v1") == "http://h:8080"
    assert server_root("http://h:11434/v1/") == "http://h:11434"
    assert server_root("https://openrouter.ai/api/v1") == "https://openrouter.ai/api"


def test_trigger_ratio_is_configurable(tmp_path):
    env = {"CONTEXTUAL_HOME": str(tmp_path / "home"), "CONTEXTUAL_TRIGGER_RATIO": "0.9",
           "CONTEXTUAL_CONTEXT_WINDOW": "100000"}
    config = load_config(tmp_path, env=env)
    assert config.trigger_ratio == 0.9 and config.threshold == 90000
    from contextual.core.config import ConfigError
    for bad in ("0", "1.5", "abc"):
        with pytest.raises(ConfigError, match="trigger_ratio"):
            load_config(tmp_path, env={**env, "CONTEXTUAL_TRIGGER_RATIO": bad})


# ---- the table and prices -------------------------------------------------------------------------------------
def test_lookup_takes_the_longest_entry_the_name_starts_with():
    assert lookup("gpt-4o-mini-2024-07-18").name == "gpt-4o-mini"
    assert lookup("gpt-4o-2024-08-06").name == "gpt-4o"
    assert lookup("openrouter/openai/gpt-4o-mini").name == "gpt-4o-mini"
    assert lookup("qwen2.5-coder:7b").window == 32768
    assert lookup("claude-sonnet-4-5-20250929").cache_write == 3.75
    assert lookup("my-own-finetune") is None and lookup(None) is None


def test_config_tables_override_and_add_models(tmp_path):
    (tmp_path / ".contextual").mkdir()
    (tmp_path / ".contextual" / "config.toml").write_text(
        '[models."gpt-4o"]\ninput = 1.0\n\n[models."house-model"]\nwindow = 12000\ninput = 0.5\noutput = 1.5\n')
    config = load_config(tmp_path, env={"CONTEXTUAL_HOME": str(tmp_path / "home")})
    assert lookup("gpt-4o", config.models).input == 1.0 and lookup("gpt-4o", config.models).output == 10.0
    assert lookup("house-model-v2", config.models).window == 12000


def test_cost_counts_fresh_cached_written_and_output_tokens():
    usage = UsageChunk(input_tokens=1_000_000, output_tokens=100_000, cached_tokens=600_000,
                       cache_creation_tokens=100_000)
    # claude-sonnet-4: 300k fresh × 3 + 600k × 0.30 + 100k × 3.75 + 100k × 15, per million
    assert cost(usage, "claude-sonnet-4-20250514") == pytest.approx(0.9 + 0.18 + 0.375 + 1.5)
    assert cost(UsageChunk(input_tokens=2_000_000, output_tokens=0), "gpt-4o-mini") == pytest.approx(0.30)
    assert cost(usage, "qwen2.5-coder:7b") is None       # known window, no price
    assert cost(usage, "unknown-model") is None


# ---- calibration (18.1) ---------------------------------------------------------------------------------------
def test_calibration_uses_a_margin_until_a_usage_then_the_largest_recent_ratio(tmp_path):
    calibration = Calibration(tmp_path / "calibration.json")
    assert calibration.factor("m") == Calibration.SAFETY_MARGIN and not calibration.calibrated("m")
    calibration.observe("m", 100, 400)           # a tiny prompt says little about the tokenizer
    assert not calibration.calibrated("m")
    calibration.observe("m", 2000, 2140)
    calibration.observe("m", 3000, 3090)
    assert calibration.factor("m") == pytest.approx(1.07) and calibration.calibrated("m")
    assert calibration.fit(3584, "m") == int(3584 / 1.07)
    calibration.observe("m", 2000, 100_000)      # nonsense from a server is ignored
    assert calibration.factor("m") == pytest.approx(1.07)
    assert Calibration(tmp_path / "calibration.json").factor("m") == pytest.approx(1.07), "kept for the next run"
    assert Calibration(tmp_path / "calibration.json").factor("other") == Calibration.SAFETY_MARGIN


def test_calibration_survives_a_garbage_or_unwritable_file(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text('{"m": ["x", -1, 9e9, 1.2], "n": 3}')
    assert Calibration(path).factor("m") == pytest.approx(1.2)
    blocked = Calibration(tmp_path / "file" / "calibration.json")
    (tmp_path / "file").write_text("not a directory")
    blocked.observe("m", 1000, 1100)             # cannot save: still learns in memory
    assert blocked.factor("m") == pytest.approx(1.1)


async def test_a_window_the_user_set_still_asks_a_local_server_for_its_tokenizer(tmp_path):
    # issue 24: at 4,096 with a 1.3x tokenizer the first request passed window - reserve when the window was set
    # by hand, because the tokenizer probe ran only with detection
    from contextual.core.tokens import calibration_for
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096, token_ratio=1.3)) as srv:
        config = await resolve_window(_config(tmp_path, srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="4096"))
    assert config.context_window == 4096 and config.window_explicit, "the user's window stands"
    assert calibration_for(config.home).factor("fake-model") == pytest.approx(1.35, abs=0.01)


@pytest.mark.parametrize("url,local", [("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True),
                                       ("http://192.168.1.5:8000/v1", True), ("http://[::1]:8080/v1", True),
                                       ("https://api.openai.com/v1", False), ("https://openrouter.ai/api/v1", False)])
def test_only_servers_on_this_network_are_asked_for_a_tokenizer(url, local):
    from contextual.core.providers.locality import on_this_network
    assert on_this_network(url) is local


async def test_llamacpp_tokenizer_calibrates_before_the_first_call(tmp_path):
    from contextual.core.tokens import calibration_for
    with FakeLLMServer("openai", [], flavor=Flavor("llamacpp", n_ctx=4096, token_ratio=1.4)) as srv:
        config = await resolve_window(_config(tmp_path, srv.base_url))
    calibration = calibration_for(config.home)
    assert calibration.factor("fake-model") == pytest.approx(1.45, abs=0.01)
    assert not calibration.calibrated("fake-model"), "the tokenizer's estimate, until a usage"
    calibration.observe("fake-model", 2000, 2600)            # a real usage replaces the estimate
    assert calibration.factor("fake-model") == pytest.approx(1.3)


def test_a_local_server_is_given_longer_to_say_its_window():
    """A llama.cpp or Ollama still loading its model answers its probes slowly, and at a local model's small
    window the 200k default is the costly guess: a server on this machine or network gets longer than a hosted
    API, whose start should not wait. (Also what let the TUI tests fall back to the default on a loaded machine.)"""
    from contextual.core.model_facts import probe_timeout
    from contextual.core.providers.model_info import LOCAL_PROBE_TIMEOUT, PROBE_TIMEOUT
    assert LOCAL_PROBE_TIMEOUT > PROBE_TIMEOUT
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://192.168.1.20:8000/v1",
                  "http://gpu-box.local:8080/v1"):
        assert probe_timeout(local) == LOCAL_PROBE_TIMEOUT, local
    for hosted in ("https://api.openai.com/v1", "https://openrouter.ai/api/v1"):
        assert probe_timeout(hosted) == PROBE_TIMEOUT, hosted
    assert probe_timeout("http://127.0.0.1:8080/v1", 0.5) == 0.5          # a caller's own limit stands
