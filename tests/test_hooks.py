"""Hooks (issue 30.4): shell commands on PreToolUse, PostToolUse, PreCompact and Stop, through the real CLI and a
fake model server; a project's own hooks inert until approved (core/trust.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import FakeLLMServer

READ = 'Thought: look\nAction: Read[{"file_path": "calc.py"}]'
TOUCH = 'Thought: make it\nAction: Bash[{"command": "touch made.txt"}]'
FINISH = "Thought: done\nAction: Finish[all done]"


def _hooks_file(path: Path, event: str, command: str, matcher: str = "", timeout: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = f", timeout = {timeout}" if timeout is not None else ""
    with path.open("a", encoding="utf-8") as out:
        out.write(f"[[hooks.{event}]]\nmatcher = {json.dumps(matcher)}\n"
                  f"hooks = [{{ type = \"command\", command = {json.dumps(command)}{extra} }}]\n")


def _run(project: Path, script: list[str], *args: str, **env_extra: str):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeLLMServer("openai", script) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", **env_extra)
        result = contextual(["-p", "go", "--permission-mode", "bypass", *args], project, env)
    return result, srv


def _sent(srv: FakeLLMServer, index: int) -> str:
    return json.dumps(srv.requests[index]["messages"])


def test_a_pre_tool_use_hook_blocks_a_bash_call_and_the_model_reads_why(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "echo 'no shell here: use Read' >&2; exit 2", "Bash")
    result, srv = _run(project, [TOUCH, FINISH])
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "no shell here: use Read" in _sent(srv, 1) and "blocked_by_hook" in _sent(srv, 1)


def test_claude_codes_json_deny_blocks_the_call_and_the_model_reads_why(project: Path):
    # Claude Code's documented PreToolUse answer; ignored, a ported guard failed open and the command ran
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "no touching in this repo"}}
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", f"echo '{json.dumps(deny)}'", "Bash")
    result, srv = _run(project, [TOUCH, FINISH])
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "no touching in this repo" in _sent(srv, 1) and "blocked_by_hook" in _sent(srv, 1)


def test_a_hook_command_finds_the_project_through_claude_project_dir(project: Path):
    # the form Claude Code's docs give for a project's hook scripts; unset, it ran /.claude/hooks/… and failed open
    guard = project / ".claude" / "hooks" / "guard.sh"
    guard.parent.mkdir(parents=True)
    guard.write_text("#!/bin/sh\necho 'guard says no' >&2\nexit 2\n")
    guard.chmod(0o755)
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', "Bash")
    result, srv = _run(project, [TOUCH, FINISH])
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "guard says no" in _sent(srv, 1)


def test_a_hook_for_another_tool_lets_the_call_run(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "exit 2", "Write|Edit")
    result, _ = _run(project, [TOUCH, FINISH])
    assert result.returncode == 0, result.stderr
    assert (project / "made.txt").exists()


def test_post_tool_use_and_stop_hooks_get_json_on_stdin(project: Path):
    config = home_of(project) / "config.toml"
    _hooks_file(config, "PostToolUse", "cat > post.json", "Read")
    _hooks_file(config, "Stop", "cat > stop.json")
    result, _ = _run(project, [READ, FINISH])
    assert result.returncode == 0, result.stderr
    post = json.loads((project / "post.json").read_text())
    assert (post["hook_event_name"], post["tool_name"], post["tool_input"]) == ("PostToolUse", "Read",
                                                                               {"file_path": "calc.py"})
    assert "return a - b" in json.dumps(post["tool_response"])
    assert post["cwd"] == str(project.resolve())
    assert any(post["session_id"] in path.name for path in session_files(home_of(project)))
    stop = json.loads((project / "stop.json").read_text())
    assert (stop["hook_event_name"], stop["answer"], stop["session_id"]) == ("Stop", "all done", post["session_id"])


def test_a_post_tool_use_hooks_reason_reaches_the_model_with_the_result(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PostToolUse",
                """echo '{"decision": "block", "reason": "lint says: E501 line too long"}'""", "*")
    result, srv = _run(project, [READ, FINISH])
    assert result.returncode == 0, result.stderr
    assert "lint says: E501 line too long" in _sent(srv, 1) and "return a - b" in _sent(srv, 1)


def test_a_hook_past_its_timeout_is_stopped_said_and_the_call_goes_on(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "sleep 30", timeout=0.5)
    result, srv = _run(project, [READ, FINISH])
    assert result.returncode == 0, result.stderr
    assert "'sleep 30' ran past 0.5 s and was stopped" in result.stderr
    assert "return a - b" in _sent(srv, 1)


def test_a_projects_hooks_are_inert_until_the_project_is_trusted(project: Path):
    _hooks_file(project / ".contextual" / "config.toml", "PreToolUse", "touch ran.txt")
    result, _ = _run(project, [READ, FINISH], CONTEXTUAL_TRUST_PROJECT="")
    assert result.returncode == 0, result.stderr
    assert not (project / "ran.txt").exists()
    assert "not approved, so not used: hooks in" in result.stderr
    result, _ = _run(project, [READ, FINISH], "--trust-project", CONTEXTUAL_TRUST_PROJECT="")
    assert result.returncode == 0, result.stderr
    assert (project / "ran.txt").exists()


def test_malformed_hooks_are_one_clear_line(project: Path):
    (home_of(project)).mkdir(parents=True, exist_ok=True)
    (home_of(project) / "config.toml").write_text('[[hooks.BeforeEverything]]\nhooks = [{ command = "true" }]\n')
    result, srv = _run(project, [FINISH])
    assert result.returncode != 0 and srv.requests == []
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown hook event 'BeforeEverything'" in lines[0]


async def test_the_app_shows_a_projects_hooks_before_they_run_and_an_approval_runs_them(
        tmp_path: Path, monkeypatch):
    from contextual.core.config import load_config
    from contextual.tui.app import ContextualApp
    from contextual.tui.host import RealHost
    from contextual.tui.screens.trust import TrustModal
    from tests.tui_helpers import SIZE, type_and_send, wait_for

    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT", raising=False)
    root = tmp_path / "proj"
    _hooks_file(root / ".contextual" / "config.toml", "PostToolUse", "cat > seen.json", "Read")
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeLLMServer("openai", [READ, FINISH]) as srv:
        config = load_config(root, {"model": "fake-model", "base_url": srv.base_url, "api_key": "sk-test"},
                             env={"CONTEXTUAL_HOME": str(tmp_path / "home")})
        assert not config.hooks.for_event("PostToolUse", "Read")          # held back until the user says yes
        app = ContextualApp(RealHost(config), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
            assert "on PostToolUse Read: run cat > seen.json" in str(app.screen.query_one("#trust-question").render())
            await pilot.press("a")
            await wait_for(pilot, lambda: not isinstance(app.screen, TrustModal))
            await type_and_send(pilot, "look at calc.py")
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.engine.running)
    assert json.loads((root / "seen.json").read_text())["tool_name"] == "Read"


async def test_a_pre_compact_hook_hears_the_trigger_before_the_summary_is_asked(tmp_path: Path):
    from contextual.core.hooks import parse_hooks
    from tests.engine_helpers import engine_with, finish, read_action, run
    from tests.fakes.scripted_model import Model

    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    hooks = parse_hooks({"PreCompact": [{"hooks": [{"command": "cat > compact.json"}]}]}, "test")
    model = Model([read_action("calc.py"), finish("one"), read_action("calc.py"), finish("two")])
    async with engine_with(root, [model] * 5, hooks=hooks) as (engine, srv):
        await run(engine, "first")
        await run(engine, "second")
        assert not (root / "compact.json").exists()
        [ev async for ev in engine.compact(keep_rounds=1)]
    said = json.loads((root / "compact.json").read_text())
    assert (said["hook_event_name"], said["trigger"]) == ("PreCompact", "manual")
    assert len(model.summary_requests) == 1
