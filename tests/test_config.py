"""Configuration precedence (CONTRACT): flags > environment > project config > user config > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextual.core.config import ConfigError, load_config


def _files(tmp_path: Path, user: str = "", project: str = "") -> tuple[Path, Path]:
    home, root = tmp_path / "home", tmp_path / "proj"
    (root / ".contextual").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text(user)
    (root / ".contextual" / "config.toml").write_text(project)
    return home, root


def test_precedence_flags_env_project_user_defaults(tmp_path: Path):
    home, root = _files(tmp_path, user='model = "u"\nkeep_rounds = 3\nmax_steps = 7\ncontext_window = 1000',
                        project='model = "p"\nkeep_rounds = 4')
    env = {"CONTEXTUAL_HOME": str(home), "CONTEXTUAL_KEEP_ROUNDS": "5", "CONTEXTUAL_TRUST_PROJECT": "1"}
    cfg = load_config(root, {"max_steps": 9}, env)
    assert (cfg.model, cfg.keep_rounds, cfg.max_steps, cfg.context_window) == ("p", 5, 9, 1000)
    assert cfg.summary_timeout == 120 and cfg.permission_mode == "default"      # defaults


def test_an_untrusted_projects_model_choice_waits_and_the_users_own_wins_unsaid(tmp_path: Path):
    """A checkout's `model`/`summary_model` pick what the user's key pays for: the user's own file's model until
    the project is trusted; with the user's own choice by flag or environment it is moot, so not said."""
    home, root = _files(tmp_path, user='model = "u"', project='model = "p"\nsummary_model = "ps"')
    env = {"CONTEXTUAL_HOME": str(home)}
    cfg = load_config(root, {}, env)
    assert (cfg.model, cfg.effective_summary_model) == ("u", "u")
    assert [item.kind for item in cfg.unapproved] == ["model"]
    assert 'model = "p", summary_model = "ps" in' in cfg.trust_notices[0]
    assert load_config(root, {"model": "f"}, env).trust_notices != ()          # its summary_model still waits
    both = load_config(root, {"model": "f"}, {**env, "CONTEXTUAL_SUMMARY_MODEL": "s"})
    assert (both.model, both.summary_model, both.unapproved) == ("f", "s", ())


def test_ecosystem_keys_follow_the_provider_in_force(tmp_path: Path):
    home, root = _files(tmp_path)
    env = {"CONTEXTUAL_HOME": str(home), "OPENAI_API_KEY": "sk-openai", "ANTHROPIC_API_KEY": "sk-ant",
           "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"}
    assert load_config(root, {}, env).api_key == "sk-openai"
    anthropic = load_config(root, {"provider": "anthropic"}, env)
    assert anthropic.api_key == "sk-ant" and anthropic.base_url == "http://127.0.0.1:1"
    assert load_config(root, {"provider": "anthropic"}, {**env, "CONTEXTUAL_API_KEY": "sk-c"}).api_key == "sk-c"


def test_auto_compact_from_env_and_file(tmp_path: Path):
    home, root = _files(tmp_path, project="auto_compact = false\noutput_reserve = 1000")
    env = {"CONTEXTUAL_HOME": str(home)}
    cfg = load_config(root, {}, env)
    assert cfg.auto_compact is False and cfg.output_reserve == 1000
    assert load_config(root, {}, {**env, "CONTEXTUAL_AUTO_COMPACT": "1"}).auto_compact is True


@pytest.mark.parametrize("content, word", [("context_window = -5", "context_window"), ("nonsense = 1", "nonsense"),
                                           ("model = ", "cannot read")])
def test_bad_config_files_are_one_clear_line(tmp_path: Path, content: str, word: str):
    home, root = _files(tmp_path, project=content)
    with pytest.raises(ConfigError) as err:
        load_config(root, {}, {"CONTEXTUAL_HOME": str(home)})
    assert word in str(err.value) and "\n" not in str(err.value).strip()


def test_compaction_preview_is_off_by_default_and_set_in_a_config_file(tmp_path: Path):
    home, root = _files(tmp_path, user="compaction_preview = true")
    env = {"CONTEXTUAL_HOME": str(home)}
    assert load_config(root, {}, env).compaction_preview is True
    home2, root2 = _files(tmp_path / "other")
    assert load_config(root2, {}, {"CONTEXTUAL_HOME": str(home2)}).compaction_preview is False
    (root / ".contextual" / "config.toml").write_text('compaction_preview = "maybe"')
    with pytest.raises(ConfigError, match="compaction_preview"):
        load_config(root, {}, env)


def test_max_retries_may_be_zero_and_reaches_the_providers_retry_policy(tmp_path: Path):
    from contextual.core.providers.factory import make_provider
    home, root = _files(tmp_path, user="max_retries = 0", project='base_url = "http://127.0.0.1:9/v1"')
    env = {"CONTEXTUAL_HOME": str(home), "CONTEXTUAL_TRUST_PROJECT": "1"}
    assert load_config(root, {}, env).max_retries == 0
    cfg = load_config(root, {}, {**env, "CONTEXTUAL_MAX_RETRIES": "2"})
    assert cfg.max_retries == 2 and make_provider(cfg).policy.max_retries == 2     # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="CONTEXTUAL_MAX_RETRIES"):
        load_config(root, {}, {**env, "CONTEXTUAL_MAX_RETRIES": "-1"})


def test_warn_ratio_is_a_config_key(tmp_path: Path):
    """The README names `warn_ratio` (0.7) among the config keys; a file that set it was refused as unknown."""
    home, root = _files(tmp_path, user="warn_ratio = 0.5\ncontext_window = 100000")
    env = {"CONTEXTUAL_HOME": str(home)}
    cfg = load_config(root, {}, env)
    assert cfg.warn_ratio == 0.5
    (home / "config.toml").write_text("warn_ratio = 1.5")
    with pytest.raises(ConfigError, match="warn_ratio"):
        load_config(root, {}, env)


def test_an_unknown_key_names_the_key_it_most_likely_meant(tmp_path: Path):
    home, root = _files(tmp_path, user="context_windw = 8192")
    with pytest.raises(ConfigError) as err:
        load_config(root, {}, {"CONTEXTUAL_HOME": str(home)})
    assert "context_windw (did you mean context_window?)" in str(err.value)


@pytest.mark.parametrize("content, said", [
    ('[models."fake"]\nwindw = 1000\n', '[models."fake"] of'),
    # a setting appended below the table went into it: the model ran at the default window, no word said
    ('[models."fake"]\nwindow = 1000\ncontext_window = 8192\n', "context_window (a setting: TOML puts a key below "
                                                                '[models."fake"] into that table; move it above')])
def test_an_unknown_key_in_a_models_table_is_an_error_not_dropped(tmp_path: Path, content: str, said: str):
    home, root = _files(tmp_path, project=content)
    with pytest.raises(ConfigError) as err:
        load_config(root, {"model": "fake"}, {"CONTEXTUAL_HOME": str(home)})
    assert said in str(err.value) and "\n" not in str(err.value)
    if "windw" in content:
        assert "windw (did you mean window?)" in str(err.value)
