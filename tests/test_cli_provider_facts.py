"""The real CLI against fake servers that behave like real ones (issues 13.3, 13.6, 16.4, 18).

Each test is named after the failure it guards against; all run `contextual -p` as a subprocess.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, one_line_error
from tests.fakes.llm_server import DEEP, Fault, FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor

FINISH = "Thought: done\nAction: Finish[all done]"


# ---- 18: a real llama.cpp server's window and tokenizer ------------------------------------------------------
def _reader(steps: int):
    """A model that reads part0.txt .. part{steps-1}.txt, one per step, then finishes."""
    calls = [0]

    def respond(body: dict) -> str:
        n = calls[0]
        calls[0] += 1
        return FINISH if n >= steps else f'Thought: read part {n}\nAction: Read[{{"file_path": "part{n}.txt"}}]'
    return respond


def test_window_detected_from_llamacpp_and_counts_calibrated_no_request_over_n_ctx(project: Path):
    for i in range(8):
        (project / f"part{i}.txt").write_text("".join(f"line {i}-{j}: the quick brown fox jumps over the lazy "
                                                       f"dog {j * 7919 % 1000}\n" for j in range(120)))
    flavor = Flavor("llamacpp", n_ctx=4096, token_ratio=1.3)
    with FakeLLMServer("openai", responder=_reader(8), flavor=flavor, max_context_tokens=4095) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert "CONTEXTUAL_CONTEXT_WINDOW" not in env
        result = contextual(["-p", "read every part file", "--permission-mode", "bypass"], project, env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert srv.violations == [], f"requests over n_ctx: {srv.violations}"
    assert len(srv.requests) >= 6
    assert max(srv.token_counts) > 4096 * 0.6, "the session must get near the window for this test to mean anything"
    calibration = json.loads((home_of(project) / "calibration.json").read_text())
    assert 1.25 < max(calibration["fake-model"]) < 1.35


def test_llamacpp_context_error_is_recognised_and_retried_lower_once(project: Path):
    flavor = Flavor("llamacpp", n_ctx=4096)
    with FakeLLMServer("openai", [Fault("400_context_length"), "Thought: ok\nAction: Finish[recovered]"],
                       flavor=flavor) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "recovered\n"
    assert "over the model's window" in result.stderr


def test_llamacpp_context_error_twice_ends_with_one_clear_line(project: Path):
    flavor = Flavor("llamacpp", n_ctx=4096)
    with FakeLLMServer("openai", [], flavor=flavor, max_context_tokens=10) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1
    line = one_line_error(result.stderr)
    assert "exceeds the available context size" in line
    assert len(srv.violations) == 2, "one retry aimed lower, not a loop"


# ---- 13.6: brittle provider parsing ----------------------------------------------------------------------------
# One shape per wire through the CLI (a run, and a resume of the session it stored); every malformed shape on both
# wires is parsed in process by tests/test_provider_hostile.py.
@pytest.mark.parametrize("kind,raw", [
    ("openai", {"prompt_tokens": "1200", "completion_tokens": [3]}),
    ("anthropic", {"input_tokens": -40, "output_tokens": 3}),
], ids=["openai-strings", "anthropic-negative"])
def test_malformed_usage_is_treated_as_absent(project: Path, kind, raw):
    with FakeLLMServer(kind, [Reply(FINISH, raw_usage=raw), FINISH]) as srv:
        env = cli_env(home_of(project), srv.base_url, kind)
        result = contextual(["-p", "hi"], project, env)
        again = contextual(["-p", "more", "-c"], project, env)
    assert result.returncode == 0 and result.stdout == "all done\n", result.stderr
    assert again.returncode == 0, again.stderr


def test_endless_stream_ends_with_one_error_line(project: Path):
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text("output_reserve = 64\n")
    started = time.monotonic()
    with FakeLLMServer("openai", [Fault("endless_text", seconds=120, interval=0.001)]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url), timeout=90)
    assert result.returncode == 1
    line = one_line_error(result.stderr)
    assert "without ending" in line and "max_tokens 64" in line
    assert time.monotonic() - started < 60
    assert len(srv.requests) == 1


def test_deeply_nested_action_is_a_format_error_not_a_crash(project: Path):
    deep = 'Thought: try\nAction: Read[{"file_path": ' + "[" * DEEP + "]" * DEEP + "}]"
    with FakeLLMServer("openai", [deep, FINISH]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "all done\n"
    assert "RecursionError" not in result.stderr
    assert "nested deeper" in json.dumps(srv.requests[1]["messages"])


# ---- 13.3: keys echoed by the server ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("where", ["http", "stream"])
def test_server_echoing_any_known_key_is_scrubbed(project: Path, kind, where):
    keys = {"CONTEXTUAL_API_KEY": "ctx-main-key-5511", "OPENAI_API_KEY": "sk-openai-seen-7722",
            "ANTHROPIC_API_KEY": "sk-ant-seen-9933"}
    echoed = "keys: " + " ".join(keys.values())
    # An in-stream invalid_request_error is final on both wires (no retry backoff to wait out).
    fault = Fault("401", message=echoed) if where == "http" else Fault(
        "error_event", message=echoed, error_type="invalid_request_error")
    with FakeLLMServer(kind, [fault] * 6) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url, kind, **keys))
    assert result.returncode == 1
    assert "keys:" in result.stderr
    for value in keys.values():
        assert value not in result.stderr and value not in result.stdout


def test_a_rejection_teaches_the_ratio_and_the_retry_fits(project: Path):
    # A tokenizer far from ours (×1.7: past the 15 % margin even with a 4k window's 25 % answer reserve), no tokenizer endpoint (vLLM) and a first prompt
    # that fills the window: the server rejects it, its error says how many tokens it counted ("resulted in N
    # tokens"), and the one retry is aimed by that.
    flavor = Flavor("vllm", n_ctx=4096, token_ratio=1.7)
    with FakeLLMServer("openai", [FINISH], flavor=flavor, max_context_tokens=4095) as srv:
        result = contextual(["-p", "please consider " * 5000], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "all done\n"
    assert len(srv.violations) == 1 and len(srv.requests) == 2
    calibration = json.loads((home_of(project) / "calibration.json").read_text())
    assert 1.65 < max(calibration["fake-model"]) < 1.75
