"""Issue 24: the answer's reserve scales with the window and compaction always fires before any cut."""

from pathlib import Path

import pytest

from contextual.core.config import ConfigError, load_config
from contextual.core import window_budget as budget
from contextual.core.model_facts import window_from_table
from tests.cli_helpers import cli_env, contextual, home_of, one_line_error
from tests.engine_helpers import make_config
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor

# window -> (reserve, threshold): the table in docs/small-windows.md
FIGURES = {4096: (1024, 2991), 8192: (2048, 5981), 32768: (8000, 24113), 128000: (8000, 102400),
           200000: (8000, 160000)}


@pytest.mark.parametrize("window", sorted(FIGURES))
def test_reserve_and_trigger_at_each_window(tmp_path: Path, window: int):
    config = make_config(tmp_path, "http://127.0.0.1:1", context_window=window)
    assert (config.output_reserve, config.threshold) == FIGURES[window]
    assert config.threshold < config.prompt_limit            # the trigger comes before the builder's cut
    assert config.threshold <= int(0.8 * window)


def test_at_8192_the_trigger_is_at_most_6144_and_200k_is_seed_a6(tmp_path: Path):
    assert make_config(tmp_path, "http://x", context_window=8192).threshold <= 6144
    assert make_config(tmp_path, "http://x").threshold == int(0.8 * 200_000)


@pytest.mark.parametrize("window", [1024, 4096, 8192, 16000, 32768, 65536, 128000, 200000, 1_000_000])
def test_compaction_always_precedes_the_cut(window: int):
    reserve = budget.auto_reserve(window)
    assert reserve <= min(8000, window // 4)
    assert budget.compaction_threshold(window, reserve) + budget.margin(window) <= window - reserve


def test_the_models_output_limit_caps_the_reserve(tmp_path: Path):
    config = make_config(tmp_path, "http://x", model="tiny", context_window=32768,
                         models={"tiny": {"max_output": 2048}})
    assert window_from_table(config).output_reserve == 2048
    assert config.output_reserve == 8000                      # unknown until the table is read


def test_the_users_reserve_is_honoured(tmp_path: Path):
    (tmp_path / ".contextual").mkdir()
    (tmp_path / ".contextual" / "config.toml").write_text("output_reserve = 3000\ncontext_window = 8192\n")
    config = load_config(tmp_path, {}, {"CONTEXTUAL_HOME": str(tmp_path / "home")})
    assert config.output_reserve == 3000 and config.prompt_limit == 8192 - 3000
    assert config.threshold < config.prompt_limit


def test_a_reserve_leaving_no_prompt_is_one_clear_line(tmp_path: Path):
    (tmp_path / ".contextual").mkdir()
    (tmp_path / ".contextual" / "config.toml").write_text("output_reserve = 8000\ncontext_window = 8192\n")
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, {}, {"CONTEXTUAL_HOME": str(tmp_path / "home")})
    line = str(err.value)
    assert "\n" not in line and "output_reserve 8,000" in line and "8,192" in line


def test_a_detected_window_too_small_for_the_users_reserve_falls_back(tmp_path: Path):
    config = make_config(tmp_path, "http://x", reserve_setting=8000).with_window(4096, "server: test")
    assert config.output_reserve == 1024 and config.reserve_problem is not None


# ---- the real CLI: a reserve leaving no prompt is one line, never a crash ------------------------------------
def _reserve(project: Path, reserve: int, window: int | None = None) -> None:
    (project / ".contextual").mkdir(exist_ok=True)
    extra = f"context_window = {window}\n" if window else ""
    (project / ".contextual" / "config.toml").write_text(f"output_reserve = {reserve}\n{extra}")


@pytest.mark.parametrize("args", [["-p", "hi"], []], ids=["print", "app"])
def test_cli_and_app_start_say_one_line_when_the_users_reserve_leaves_no_prompt(project: Path, args: list[str]):
    _reserve(project, 4000, window=4096)
    with FakeLLMServer("openai", [Reply("Thought: ok\nAction: Finish[done]")]) as srv:
        result = contextual(args, project, cli_env(home_of(project), srv.base_url))
    assert result.returncode != 0
    line = one_line_error(result.stderr)
    assert "output_reserve 4,000" in line and "4,096" in line and "at most 3,584" in line
    assert srv.requests == []                          # nothing sent on a reserve that cannot work


def test_a_server_window_too_small_for_the_reserve_is_said_and_the_scaled_reserve_used(project: Path):
    _reserve(project, 8000)
    with FakeLLMServer("openai", [Reply("Thought: ok\nAction: Finish[done]")],
                       flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "output_reserve 8,000" in line]
    assert len(said) == 1 and "using 1,024 for now" in said[0]
    assert [r.get("max_tokens") for r in srv.requests] == [1024]
