"""A checkout cannot pick the model its requests run on with the user's key (a red team's finding): a project's
`model` and `summary_model` (.contextual/config.toml) and a project command's `model:` front matter wait for the
same trust as its hooks and servers (core/trust.py); until then the user's own model is on the wire and stderr
says, once, which setting was left out and how to trust the folder. The user's own flag or variable always wins.
Each through the real CLI against the fake server."""

from __future__ import annotations

from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer
from tests.test_compaction_e2e import ALPHA, BETA, GAMMA, WINDOW, run_turns

DONE = "Thought: done\nAction: Finish[done]"
SKIPPED = "not approved, so not used"


def _project_config(project: Path, text: str) -> None:
    (project / ".contextual").mkdir(exist_ok=True)
    (project / ".contextual" / "config.toml").write_text(text)


def _users_model(project: Path, base_url: str, **extra: str) -> dict[str, str]:
    """An untrusted checkout, the user's model in their own config file (not a variable: that would win anyway)."""
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('model = "users-model"\n')
    env = cli_env(home, base_url, CONTEXTUAL_TRUST_PROJECT="", **extra)
    env.pop("CONTEXTUAL_MODEL")
    return env


def test_a_checkouts_model_is_not_on_the_wire_until_trusted_and_stderr_says_so(project: Path):
    _project_config(project, 'model = "expensive-x"\n')
    with FakeLLMServer(kind="openai", script=[DONE] * 4) as srv:
        env = _users_model(project, srv.base_url)
        untrusted = contextual(["-p", "go"], project, env)
        trusted = contextual(["-p", "go", "--trust-project"], project, env)
        flag = contextual(["-p", "go", "--trust-project", "--model", "my-flag"], project, env)
        variable = contextual(["-p", "go"], project, {**env, "CONTEXTUAL_MODEL": "my-variable"})
    assert [r.returncode for r in (untrusted, trusted, flag, variable)] == [0] * 4, untrusted.stderr
    assert [r["model"] for r in srv.requests] == ["users-model", "expensive-x", "my-flag", "my-variable"]
    (said,) = [ln for ln in untrusted.stderr.splitlines() if SKIPPED in ln]
    assert f'model = "expensive-x" in {project / ".contextual" / "config.toml"}' in said
    assert "--trust-project" in said and "CONTEXTUAL_TRUST_PROJECT=1" in said     # how to trust the folder
    assert SKIPPED not in trusted.stderr
    assert SKIPPED not in variable.stderr        # the user's own choice wins anyway: nothing of theirs was skipped


def test_a_checkouts_summary_model_writes_no_summary_until_trusted(project: Path):
    model = Model([answer("one"), answer("two"), answer("three")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        _project_config(project, 'summary_model = "expensive-x"\n')
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, [])], CONTEXTUAL_TRUST_PROJECT="")
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW),
                      CONTEXTUAL_TRUST_PROJECT="")
        untrusted = contextual(["-c", "-p", "/compact 1"], project, env)
        run_turns(project, srv, "openai", [(GAMMA, ["--continue"])], CONTEXTUAL_TRUST_PROJECT="")
        trusted = contextual(["-c", "-p", "/compact 1", "--trust-project"], project, env)
    assert untrusted.returncode == 0 and trusted.returncode == 0, untrusted.stderr + trusted.stderr
    assert [r["model"] for r in model.summary_requests] == ["fake-model", "expensive-x"]
    assert any(SKIPPED in ln and 'summary_model = "expensive-x"' in ln for ln in untrusted.stderr.splitlines())


def test_a_checkouts_command_runs_on_the_users_model_until_trusted(project: Path):
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "pricey.md").write_text("---\nmodel: expensive-x\n---\nThink hard.\n")
    with FakeLLMServer(kind="openai", script=[DONE] * 2) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_TRUST_PROJECT="")
        untrusted = contextual(["-p", "/pricey"], project, env)
        trusted = contextual(["-p", "/pricey", "--trust-project"], project, env)
    assert untrusted.returncode == 0 and trusted.returncode == 0, untrusted.stderr + trusted.stderr
    assert [r["model"] for r in srv.requests] == ["fake-model", "expensive-x"]
    assert all("Think hard." in str(r["messages"]) for r in srv.requests)         # the command itself ran both times
    (said,) = [ln for ln in untrusted.stderr.splitlines() if SKIPPED in ln]
    assert "the model expensive-x of the command /pricey in .claude/commands/pricey.md" in said
    assert SKIPPED not in trusted.stderr
