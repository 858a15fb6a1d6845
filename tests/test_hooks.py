"""Hooks (issue 30.4): shell commands on PreToolUse, PostToolUse, UserPromptSubmit, PreCompact and Stop, through the
real CLI and a fake model server; a project's own hooks inert until approved (core/trust.py). A Stop hook's block
and SessionStart: tests/test_hooks_stop_session.py."""

from __future__ import annotations

import json
import shlex
import sys
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


def _run(project: Path, script: list[str], *args: str, mode: str = "bypass", **env_extra: str):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeLLMServer("openai", script) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", **env_extra)
        result = contextual(["-p", "go", "--permission-mode", mode, *args], project, env)
    return result, srv


def _answer(answer: dict) -> str:
    """A hook command that prints `answer` as its JSON on stdout and exits 0."""
    return "echo " + shlex.quote(json.dumps(answer))


def _pre(**specific: object) -> str:
    return _answer({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})


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



def test_a_setting_written_below_a_hook_table_is_refused_and_said_to_belong_above_it(project: Path):
    """TOML puts `context_window = 8192` appended after a [[hooks.Stop]] entry into that entry: it was dropped
    without a word and the window stayed 200k. A key no hook has is an error now, one line before any request."""
    config = home_of(project) / "config.toml"
    _hooks_file(config, "Stop", "true")
    with config.open("a") as out:
        out.write("context_window = 8192\n")
    result, srv = _run(project, [FINISH])
    assert result.returncode != 0 and srv.requests == [] and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "unknown key(s) in a [[hooks.Stop]] entry" in line
    assert "context_window (a setting: TOML puts a key below [[hooks.Stop]] into that table; move it above" in line
    config.write_text('[[hooks.Stop]]\nhooks = [{ command = "true", timout = 5 }]\n')     # a typo in a hook
    result, srv = _run(project, [FINISH])
    assert result.returncode != 0 and srv.requests == []
    assert "timout (did you mean timeout?)" in result.stderr


def test_a_guard_whose_matcher_names_a_tool_in_other_letters_is_refused_not_left_to_fail_open(project: Path):
    """`matcher = "bash"` is an exact name, and no tool is called bash: the guard never ran and every command
    went through. The run now stops before any request and names the tool meant."""
    (home_of(project)).mkdir(parents=True, exist_ok=True)
    (home_of(project) / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "bash|Write"\nhooks = [{ command = "exit 2" }]\n')
    result, srv = _run(project, [FINISH])
    assert result.returncode != 0 and srv.requests == [] and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "invalid matcher 'bash|Write' in hooks.PreToolUse" in line and "Bash, not bash" in line

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
    hooks = parse_hooks({"PreCompact": [{"matcher": "manual", "hooks": [{"command": "cat > compact.json"}]},
                                        {"matcher": "auto", "hooks": [{"command": "touch auto.txt"}]}]}, "test")
    model = Model([read_action("calc.py"), finish("one"), read_action("calc.py"), finish("two")])
    async with engine_with(root, [model] * 5, hooks=hooks) as (engine, srv):
        await run(engine, "first")
        await run(engine, "second")
        assert not (root / "compact.json").exists()
        [ev async for ev in engine.compact(keep_rounds=1)]
    said = json.loads((root / "compact.json").read_text())
    assert (said["hook_event_name"], said["trigger"]) == ("PreCompact", "manual")
    assert not (root / "auto.txt").exists()          # matched on the trigger, as Claude Code's PreCompact matchers
    assert len(model.summary_requests) == 1


# ---- Claude Code's hook contract, as its users' scripts expect it ----------------------------------------------

def test_a_hook_gets_claude_codes_common_fields_and_the_call_id(project: Path):
    # transcript_path, permission_mode and tool_use_id were missing: a Claude Code script reading them got null
    config = home_of(project) / "config.toml"
    _hooks_file(config, "PreToolUse", "tee pre.json | " + shlex.quote(sys.executable) + " -c " + shlex.quote(
        "import json, shutil, sys; shutil.copy(json.load(sys.stdin)['transcript_path'], 'seen.jsonl')"), "Read")
    _hooks_file(config, "PostToolUse", "cat > post.json", "Read")
    result, _ = _run(project, [READ, FINISH])
    assert result.returncode == 0, result.stderr
    pre, post = (json.loads((project / name).read_text()) for name in ("pre.json", "post.json"))
    assert pre["permission_mode"] == "bypassPermissions" and pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_use_id"] and pre["tool_use_id"] == post["tool_use_id"]
    transcript = Path(pre["transcript_path"])
    assert transcript in session_files(home_of(project))
    # what the transcript held when the hook ran: the call it is asked about
    assert pre["tool_use_id"] in (project / "seen.jsonl").read_text()


def test_permission_decision_allow_runs_a_call_the_mode_would_refuse(project: Path):
    # in -p's default mode Bash is refused without a user; a hook's "allow" was read as nothing at all
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", _pre(permissionDecision="allow"), "Bash")
    result, srv = _run(project, [TOUCH, FINISH], mode="default")
    assert result.returncode == 0, result.stderr
    assert (project / "made.txt").exists()


def test_a_deny_rule_wins_over_a_hooks_allow(project: Path):
    config = home_of(project) / "config.toml"
    _hooks_file(config, "PreToolUse", _pre(permissionDecision="allow"), "Bash")
    with config.open("a") as out:
        out.write('[permissions]\ndeny = ["Bash(touch:*)"]\n')
    result, srv = _run(project, [TOUCH, FINISH], mode="bypass")
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "`touch made.txt` is denied by Bash(touch:*)" in _sent(srv, 1)


def test_permission_decision_ask_holds_a_call_even_in_bypass_without_a_user(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse",
                _pre(permissionDecision="ask", permissionDecisionReason="touching needs a human"), "Bash")
    result, srv = _run(project, [TOUCH, FINISH], mode="bypass")
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "needs the user's confirmation" in _sent(srv, 1) and "touching needs a human" in _sent(srv, 1)


def test_updated_input_rewrites_the_call_and_the_model_hears_of_it(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse",
                _pre(permissionDecision="allow", updatedInput={"command": "touch rewritten.txt"}), "Bash")
    result, srv = _run(project, [TOUCH, FINISH], mode="default")
    assert result.returncode == 0, result.stderr
    assert (project / "rewritten.txt").exists() and not (project / "made.txt").exists()
    assert "a hook changed this call's input" in _sent(srv, 1) and "touch rewritten.txt" in _sent(srv, 1)


def test_additional_context_and_system_message_reach_the_model_and_the_user(project: Path):
    answer = {"systemMessage": "formatter ran", "hookSpecificOutput": {
        "hookEventName": "PostToolUse", "additionalContext": "calc.py has a failing test"}}
    _hooks_file(home_of(project) / "config.toml", "PostToolUse", _answer(answer), "Read")
    result, srv = _run(project, [READ, FINISH])
    assert result.returncode == 0, result.stderr
    assert "calc.py has a failing test" in _sent(srv, 1)
    assert "formatter ran" in result.stderr


def test_continue_false_ends_the_turn_with_the_stop_reason(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PostToolUse",
                _answer({"continue": False, "stopReason": "budget for this task is spent"}), "Bash")
    result, srv = _run(project, [TOUCH, READ, FINISH])
    assert (project / "made.txt").exists()          # the call had run; nothing after it is asked for
    assert len(srv.requests) == 1
    assert result.returncode != 0 and "budget for this task is spent" in result.stderr


def test_json_is_read_only_on_exit_0_and_another_exit_is_a_warning(project: Path):
    # Claude Code drops stdout on a non-zero exit: an "allow" there must not open the gate
    _hooks_file(home_of(project) / "config.toml", "PreToolUse",
                _pre(permissionDecision="allow") + "; echo 'lint crashed' >&2; exit 1", "Bash")
    result, srv = _run(project, [TOUCH, FINISH], mode="default")
    assert result.returncode == 0, result.stderr
    assert not (project / "made.txt").exists()
    assert "exited 1: lint crashed" in result.stderr


def test_a_guards_json_that_does_not_parse_is_said(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "echo '{\"permissionDecision\": deny}'", "Bash")
    result, _ = _run(project, [TOUCH, FINISH], mode="default")
    assert "printed JSON that does not parse" in result.stderr


def test_a_guards_json_nested_too_deeply_is_said_and_the_turn_goes_on(project: Path):
    """updatedInput nested 3,000 levels ended the run in a RecursionError on every Python: in the decoder up to 3.12,
    in the walk of the call's input on 3.13, whose decoder takes it (helper80)."""
    deep = "[" * 3000 + "]" * 3000
    answer = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", ' \
             f'"updatedInput": {{"file_path": "calc.py", "x": {deep}}}}}}}'
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "echo " + shlex.quote(answer), "Read")
    result, srv = _run(project, [READ, FINISH])
    assert result.returncode == 0 and "RecursionError" not in result.stderr, result.stderr[-2000:]
    assert "printed JSON that does not parse" in result.stderr
    assert "def add(a, b)" in _sent(srv, 1)          # the call ran as the model asked


def test_user_prompt_submit_exit_2_keeps_the_message_from_the_model(project: Path):
    _hooks_file(home_of(project) / "config.toml", "UserPromptSubmit",
                "cat > prompt.json; echo 'no secrets in prompts' >&2; exit 2")
    result, srv = _run(project, [FINISH])
    assert srv.requests == [] and result.returncode != 0
    assert "no secrets in prompts" in result.stderr
    said = json.loads((project / "prompt.json").read_text())
    assert (said["hook_event_name"], said["prompt"]) == ("UserPromptSubmit", "go")


def test_user_prompt_submits_stdout_is_context_for_the_model(project: Path):
    _hooks_file(home_of(project) / "config.toml", "UserPromptSubmit", "echo 'current sprint: the parser'")
    result, srv = _run(project, [FINISH])
    assert result.returncode == 0, result.stderr
    assert "current sprint: the parser" in _sent(srv, 0)


def test_claude_code_events_and_hook_types_not_run_here_are_said_once_each(project: Path):
    # a pasted Claude Code config failed to start ("unknown hook event 'SessionEnd'"); now it runs what it can
    config = home_of(project) / "config.toml"
    _hooks_file(config, "SessionEnd", "touch ended.txt")
    with config.open("a") as out:
        out.write('[[hooks.Stop]]\nhooks = [{ type = "prompt", prompt = "is it done?" }, '
                  '{ command = "touch stopped.txt", async = true }]\n')
    result, _ = _run(project, [FINISH])
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert sum("hooks.SessionEnd" in ln and "not run" in ln for ln in lines) == 1
    assert sum("'prompt' hook" in ln and "not run" in ln for ln in lines) == 1
    assert sum("async not supported" in ln for ln in lines) == 1
    assert not (project / "ended.txt").exists() and (project / "stopped.txt").exists()


def test_an_invalid_matcher_is_one_clear_line(project: Path):
    _hooks_file(home_of(project) / "config.toml", "PreToolUse", "exit 2", "Write(*.py)")
    result, srv = _run(project, [FINISH])
    assert result.returncode != 0 and srv.requests == []
    assert "invalid matcher 'Write(*.py)'" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_matchers_follow_claude_codes_rule():
    from contextual.core.hooks import Hook

    def on(matcher: str, tool: str) -> bool:
        return Hook("PreToolUse", matcher, "true", 1.0, "test").matches(tool)
    assert on("Edit|Write", "Write") and not on("Edit|Write", "MultiEdit")       # a list of exact names
    assert on("mcp__.*", "mcp__github__create_issue") and not on("mcp__.*", "Bash")
    assert on("mcp__github__.*", "mcp__github__x") and not on("mcp__github", "mcp__github__x")
    assert on("^Bash", "BashOutput") and on("Notebook.*", "NotebookEdit")           # a regex, searched
    assert on("*", "Read") and on("", "Read")


async def test_the_app_asks_when_a_hook_says_ask_even_in_bypass_and_says_what_it_does_not_run(tmp_path: Path,
                                                                                              monkeypatch):
    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.permission import PermissionModal
    from tests.tui_helpers import SIZE, chat_text, finish, make_host, server, type_and_send, wait_for, shown_screen

    monkeypatch.setattr(PermissionModal, "GRACE_S", 0)
    config = tmp_path / "home" / "config.toml"
    _hooks_file(config, "PreToolUse", _pre(permissionDecision="ask", permissionDecisionReason="a human looks first"),
                "Bash")
    _hooks_file(config, "SessionEnd", "true")
    with server([TOUCH, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: "hooks.SessionEnd" in chat_text(app))
            await type_and_send(pilot, "make the file")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            assert "asks you to confirm this Bash call: a human looks first" in chat_text(app)
            await pilot.press("n")
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.engine.running)
    assert not (app.config.project_root / "made.txt").exists()


def test_post_tool_use_runs_after_a_call_that_succeeded_and_post_tool_use_failure_after_one_that_failed(project: Path):
    """Claude Code's split: a ported formatter on PostToolUse must not run after an Edit that did not happen (it ran
    on every result here), and PostToolUseFailure gets the error."""
    config = home_of(project) / "config.toml"
    _hooks_file(config, "PostToolUse", "cat >> post.jsonl; echo >> post.jsonl", "Read")
    _hooks_file(config, "PostToolUseFailure", "cat > failed.json", "Read")
    missing = 'Thought: read a file that is not there\nAction: Read[{"file_path": "nope.py"}]'
    result, _ = _run(project, [READ, missing, FINISH])
    assert result.returncode == 0, result.stderr
    posts = [json.loads(line) for line in (project / "post.jsonl").read_text().splitlines() if line.strip()]
    assert [p["tool_input"]["file_path"] for p in posts] == ["calc.py"]          # the failed Read ran no PostToolUse
    failed = json.loads((project / "failed.json").read_text())
    assert (failed["hook_event_name"], failed["tool_input"], failed["is_interrupt"]) == (
        "PostToolUseFailure", {"file_path": "nope.py"}, False)
    assert "nope.py" in failed["error"]
