"""`contextual -p` as a subprocess in a temporary project, against both fake servers (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, one_line_error, session_files, sigint_at_default
from tests.fakes.llm_server import Fault, FakeLLMServer

EDIT_TASK = [
    'Thought: look first\nAction: Read[{"file_path": "calc.py"}]',
    'Thought: fix the sign\nAction: Edit[{"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}]',
    'Thought: check\nAction: Bash[{"command": "python3 -c \\"import calc; print(calc.add(2, 3))\\""}]',
    'Thought: verified\nAction: Finish[Fixed add(); it prints 5 now.]',
]


@pytest.fixture()
def project(project: Path) -> Path:
    """The shared empty project (tests/conftest.py) with the file the edit task fixes."""
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return project


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_multi_step_edit_task_reads_edits_runs_and_changes_the_file(project: Path, kind: str):
    with FakeLLMServer(kind=kind, script=list(EDIT_TASK)) as srv:
        env = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_API_KEY="sk-test-secret-123")
        # A new interpreter, as a user starts it (the other CLI tests fork one that imported the CLI already).
        result = contextual(["-p", "fix add() in calc.py", "--permission-mode", "bypass"], project, env, fresh=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fixed add(); it prints 5 now.\n"
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    observation = json.dumps(srv.requests[3]["messages"][-1])
    assert 'Observation: [exit 0]\\n5' in observation      # the Bash result the model saw, as plain text
    sessions = session_files(home_of(project))
    assert sessions and all("sk-test-secret-123" not in p.read_text() for p in sessions)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("fault", [Fault("429", retry_after=1), Fault("500"), Fault("drop_mid_stream")],
                         ids=["429", "500", "drop"])
def test_transient_faults_are_retried_and_the_turn_succeeds(project: Path, kind: str, fault: Fault):
    with FakeLLMServer(kind=kind, script=[fault, "Thought: ok\nAction: Finish[recovered]"]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url, kind))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "recovered\n" and len(srv.requests) == 2


# Each status once and each wire twice: tests/test_provider_faults.py raises every status on both wires in process.
@pytest.mark.parametrize("kind, status", [("openai", "400"), ("anthropic", "401"), ("openai", "403"),
                                          ("anthropic", "404")])
def test_client_errors_give_one_line_at_once_without_retry(project: Path, kind: str, status: str):
    with FakeLLMServer(kind=kind, script=[Fault(status)]) as srv:
        env = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_API_KEY="sk-never-shown")
        result = contextual(["-p", "hi"], project, env)
    assert result.returncode == 1 and result.stdout == ""
    line = one_line_error(result.stderr)
    assert status in line and "sk-never-shown" not in result.stderr
    assert len(srv.requests) == 1


@pytest.mark.parametrize("kind, fault, drop_v1, said", [
    ("openai", "401", False, "check the key: it is read from CONTEXTUAL_API_KEY, else OPENAI_API_KEY"),
    ("anthropic", "403", False, "the key (CONTEXTUAL_API_KEY, else ANTHROPIC_API_KEY) may not give access"),
    ("openai", "404", False, "is the model name one the server serves? (/model in the app lists them)"),
    ("openai", "404", True, "OpenAI-style base URLs usually end in /v1 (this one is http://127.0.0.1:"),
], ids=["401", "403", "404-model", "404-no-v1"])
def test_a_refused_key_or_an_unknown_model_or_route_says_what_to_do(project: Path, kind: str, fault: str,
                                                                     drop_v1: bool, said: str):
    # The server's own words ("Incorrect API key provided") said what failed, never which variable to fix
    with FakeLLMServer(kind=kind, script=[Fault(fault, message="refused: sk-never-shown")]) as srv:
        base = srv.base_url.removesuffix("/v1") if drop_v1 else srv.base_url
        env = cli_env(home_of(project), base, kind, CONTEXTUAL_API_KEY="sk-never-shown")
        result = contextual(["-p", "hi"], project, env)
    assert result.returncode == 1
    line = one_line_error(result.stderr)
    assert said in line and f"HTTP {fault}" in line and "sk-never-shown" not in result.stderr


@pytest.mark.parametrize("fault", ["malformed_chunk", "wrong_content_type"])
def test_persistent_garbage_is_retried_a_few_times_then_one_line(project: Path, fault: str):
    with FakeLLMServer(kind="openai", script=[Fault(fault)] * 6) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1
    one_line_error(result.stderr)
    assert 2 <= len(srv.requests) <= 4


def test_no_model_configured_names_the_variable_to_set(project: Path):
    result = contextual(["-p", "hi"], project, cli_env(home_of(project)))
    assert result.returncode == 1
    assert "CONTEXTUAL_MODEL" in one_line_error(result.stderr)


def test_headless_default_mode_refuses_edits_with_an_observation(project: Path):
    script = [EDIT_TASK[1], "Thought: not allowed\nAction: Finish[I may not edit here.]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "fix"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0
    assert "return a - b" in (project / "calc.py").read_text()
    assert "permission_denied" in srv.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("mode, script, said", [
    ("default", [EDIT_TASK[1], EDIT_TASK[1], "Thought: x\nAction: Finish[Fixed it.]"],
     "2 calls refused (permission mode default, no user to ask): Edit ×2; rerun with --permission-mode "
     "accept-edits (file edits run) or bypass (every call runs)"),
    ("accept-edits", [EDIT_TASK[2], "Thought: x\nAction: Finish[Checked.]"],
     "1 call refused (permission mode accept-edits, no user to ask): Bash; rerun with --permission-mode bypass "
     "(every call runs)"),
], ids=["default", "accept-edits"])
def test_headless_says_last_on_stderr_how_many_calls_its_mode_refused_and_still_exits_0(project: Path, mode: str,
                                                                                         script: list[str], said: str):
    # exit 0 and an answer that claims the work done read as success though every edit was refused
    deny = project / ".contextual" / "config.toml"
    deny.parent.mkdir()
    deny.write_text('[permissions]\ndeny = ["Grep"]\n')      # a deny rule's refusal stands in any mode: not counted
    script = ['Thought: look\nAction: Grep[{"pattern": "add"}]', *script]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "fix", "--permission-mode", mode], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout.strip() in ("Fixed it.", "Checked.")
    assert result.stderr.splitlines()[-1] == f"warning: {said}, or allow them in [permissions] allow"
    assert "  Grep denied: Grep is denied by the rule Grep;" in result.stderr     # not "Grep error"
    assert "return a - b" in (project / "calc.py").read_text()


def test_a_run_that_failed_before_any_reply_is_not_continued_by_c_but_keeps_its_prompt_for_r(project: Path):
    # Every failed run (a refused key, no server) left a session `-c` then continued, the failed prompt inside
    done = "Thought: ok\nAction: Finish[done]"
    with FakeLLMServer(kind="openai", script=[done, Fault("401"), done, done]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "the first task"], project, env).returncode == 0
        failed = contextual(["-p", "the prompt that failed", "--output-format", "json"], project, env)
        assert failed.returncode == 1
        failed_id = json.loads(failed.stdout)["session_id"]
        assert contextual(["-p", "go on", "-c"], project, env).returncode == 0
        again = contextual(["-p", "retry it", "-r", failed_id], project, env)
    assert again.returncode == 0, again.stderr
    continued, resumed = (json.dumps(srv.requests[n]["messages"]) for n in (2, 3))
    assert "the first task" in continued and "the prompt that failed" not in continued
    assert "the prompt that failed" in resumed and "retry it" in resumed


def test_paths_outside_the_project_are_an_error_observation(project: Path):
    secret = project.parent / "secret.txt"
    secret.write_text("TOP-SECRET")
    script = ['Thought: peek\nAction: Read[{"file_path": "../secret.txt"}]', "Thought: x\nAction: Finish[no]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "read it"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0
    sent = json.dumps([r["messages"] for r in srv.requests])
    assert "TOP-SECRET" not in sent and "outside_project" in sent


def test_step_limit_exits_1(project: Path):
    looping = ['Thought: again\nAction: LS[{}]'] * 5
    with FakeLLMServer(kind="openai", script=looping) as srv:
        result = contextual(["-p", "loop", "--max-steps", "3"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and "step limit" in one_line_error(result.stderr)
    assert len(srv.requests) == 3


def test_version_and_help(project: Path):
    env = cli_env(home_of(project))
    assert contextual(["--version"], project, env).stdout.startswith("contextual ")
    helptext = contextual(["--help"], project, {**env, "COLUMNS": "80"}).stdout
    for flag in ("-p", "--continue", "--resume", "--fork", "--provider", "--base-url", "--model",
                 "--context-window", "--permission-mode", "--summary-timeout", "--keep-rounds", "--max-steps",
                 "--summary-model", "--no-auto-compact", "replay", "context", "undo", "export",
                 "CONTEXTUAL_BASE_URL"):
        assert flag in helptext
    # every variable the settings read (the README names them all) is listed, not only the first ones added
    from contextual.core.config import ENV_NAMES
    for name in (*ENV_NAMES.values(), "CONTEXTUAL_HOME", "CONTEXTUAL_TRUST_PROJECT", "CONTEXTUAL_DEBUG"):
        assert name in helptext, name
    # an 80-column terminal shows it without wrapping a line in the middle of a word
    assert [line for line in helptext.splitlines() if len(line) > 80] == []

    # the window's real default, the config files in the order they win, replay's every option
    assert "--context-window N    tokens (default: the window the server states, else\n" in helptext
    assert (".contextual/config.local.toml >\n.contextual/config.toml > $CONTEXTUAL_HOME/config.toml" in helptext)
    assert "[--jobs N] [--progress]" in helptext
    replay = contextual(["replay", "--help"], project, {**env, "COLUMNS": "80"}).stdout
    assert "--jobs N" in replay and "--progress" in replay


@pytest.mark.parametrize("spelling, where", [("acceptEdits", "flag"), ("acceptEdits", "env"),
                                             ("acceptEdits", "config"), ("bypassPermissions", "flag")])
def test_claude_codes_permission_mode_names_are_read_as_ours(project: Path, spelling: str, where: str):
    """`--permission-mode acceptEdits` was refused, though hooks are told the mode in those names: a Claude Code
    user's flag, variable or config file now works; the mode is shown and recorded in ours."""
    from contextual.core.config import load_config
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    if where == "config":
        (home / "config.toml").write_text(f'permission_mode = "{spelling}"\n')
    flags = {"permission_mode": spelling} if where == "flag" else {}
    env = {"CONTEXTUAL_HOME": str(home), **({"CONTEXTUAL_PERMISSION_MODE": spelling} if where == "env" else {})}
    ours = {"acceptEdits": "accept-edits", "bypassPermissions": "bypass"}[spelling]
    assert load_config(project, flags, env).permission_mode == ours
    if where == "flag":        # through the real command line: the edit runs, the command is refused as in ours
        with FakeLLMServer(kind="openai", script=EDIT_TASK) as srv:
            result = contextual(["-p", "fix", "--permission-mode", spelling], project,
                                cli_env(home, srv.base_url))
        assert result.returncode == 0, result.stderr
        assert "return a + b" in (project / "calc.py").read_text()
        assert ("permission_denied" in json.dumps(srv.requests[3]["messages"][-1])) is (ours == "accept-edits")


def test_flags_beat_environment_beat_config_files(project: Path):
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('model = "from-project"\nmax_steps = 2\n')
    with FakeLLMServer(kind="openai", script=["Thought: a\nAction: Finish[ok]"] * 3) as srv:
        env = cli_env(home_of(project), srv.base_url)
        env.pop("CONTEXTUAL_MODEL")
        contextual(["-p", "x"], project, env)
        env["CONTEXTUAL_MODEL"] = "from-env"
        contextual(["-p", "x"], project, env)
        contextual(["-p", "x", "--model", "from-flag"], project, env)
    assert [r["model"] for r in srv.requests] == ["from-project", "from-env", "from-flag"]


@pytest.mark.parametrize("sent", ["SIGINT", "SIGTERM", "SIGHUP"])
def _parent(pid: int) -> int:
    return int((Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[1])


def _sleep_child(pid: int) -> int:
    """The `sleep 30` Bash started under process `pid` (found through /proc: a descendant of the run)."""
    import time
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            try:
                if not entry.name.isdigit() or not (entry / "cmdline").read_bytes().startswith(b"sleep\x0030"):
                    continue
                ancestor = int(entry.name)
                while ancestor > 1 and ancestor != pid:
                    ancestor = _parent(ancestor)
                if ancestor == pid:
                    return int(entry.name)
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.05)
    raise AssertionError("the Bash child never started")


@pytest.mark.parametrize("sent", ["SIGINT", "SIGTERM"])     # SIGHUP takes SIGTERM's path (cli.py)
def test_ctrl_c_mid_tool_records_an_interrupted_turn_that_resumes_cleanly(project: Path, sent: str):
    """Ctrl-C, and SIGTERM (`kill`, a CI timeout) and SIGHUP (the terminal closed) the same way: the Bash child is
    ended, the turn recorded as interrupted, one line, and -c resumes."""
    import signal
    import subprocess
    import sys
    from contextual.core.session import latest_session, load_session
    script = ['Thought: wait\nAction: Bash[{"command": "sleep 30"}]', "Thought: ok\nAction: Finish[resumed fine]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        child = subprocess.Popen([sys.executable, "-m", "contextual", "-p", "wait", "--permission-mode", "bypass"],
                                 cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=sigint_at_default)
        seen = []
        for line in child.stderr:                         # wait until the Bash step has started
            seen.append(line)
            if line.startswith("→ Bash"):
                break
        sleeper = _sleep_child(child.pid)
        child.send_signal(getattr(signal, sent))
        out, err = child.communicate(timeout=20)
        err = "".join(seen) + err
        assert child.returncode == 1 and out == "" and "Traceback" not in err and "interrupted" in err
        assert not Path(f"/proc/{sleeper}").exists()        # the Bash child did not outlive the run
        path = latest_session(home_of(project), project)
        loaded = load_session(path)
        assert loaded.warnings == []
        tool = [m for m in loaded.history if m.role == "tool"][-1]
        assert json.loads(tool.content)["error"]["code"] == "aborted"
        (stopped,) = [e for e in loaded.entries if e.get("subtype") == "interrupted"]
        (turn,) = [m.meta["turn"] for m in loaded.history if m.starts_turn]
        assert stopped["turnId"] == turn and loaded.turn_ends[turn].describe() == "turn interrupted"
        resumed = contextual(["-p", "go on", "-c"], project, env)
    assert resumed.returncode == 0 and resumed.stdout == "resumed fine\n"
    sent = json.dumps(srv.requests[-1]["messages"])
    assert "sleep 30" in sent and "aborted" in sent            # the interrupted round is still a round
