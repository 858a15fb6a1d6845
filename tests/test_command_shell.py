"""A custom command's shell lines and allowed-tools (issue 30.3) through the real engine and a fake server: a
line's output takes its place in the prompt sent; a deny rule holds over the command's own grant; a line no rule
allows is not run; the run is bounded and never sees the agent's keys; allowed-tools hold for the command's one
turn only (core/command_shell.py, Engine.run_command); `-p "/name args"` runs one, a project's only when trusted."""

from __future__ import annotations

from pathlib import Path

from contextual.core import command_shell
from contextual.core.custom_commands import CustomCommand, load_commands
from contextual.core.events import Notice, ToolFinished
from contextual.core.permission_rules import PermissionRules
from tests.cli_helpers import cli_env, contextual
from tests.engine_helpers import engine_with, finish, finished, run
from tests.fakes.llm_server import FakeLLMServer


def _command(root: Path, text: str) -> CustomCommand:
    home = root.parent / (root.name + "-home")         # engine_helpers.make_config's home: a user-level command
    (home / "commands").mkdir(parents=True, exist_ok=True)
    (home / "commands" / "go.md").write_text(text)
    return {c.name: c for c in load_commands(root, home)}["/go"]


async def _run_command(engine, command: CustomCommand, arguments: str = "") -> list:
    return [ev async for ev in engine.run_command(command, arguments)]


def _sent(srv) -> str:
    return str(srv.requests[0]["messages"])


async def test_a_lines_output_is_sent_in_its_place(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    command = _command(root, "---\nallowed-tools: Bash(cat:*)\n---\nThe notes:\n!`cat notes.txt`\nSum up $1.\n")
    async with engine_with(root, [finish("ok")], permission_mode="default") as (engine, srv):
        events = await _run_command(engine, command, "them")
    finished(events)
    assert "The notes:\\nalpha\\nbeta\\nSum up them." in _sent(srv)
    assert [e.message for e in events if isinstance(e, Notice)] == ["ran !`cat notes.txt`: 2 lines put into the prompt"]


async def test_deny_rules_hold_and_an_unallowed_line_does_not_run(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "victim").write_text("keep me")
    command = _command(root, "---\nallowed-tools: Bash(rm:*), Bash(sh:*)\n---\nA: !`rm victim`\nB: !`touch made`\n"
                             "C: !`echo rm victim | sh`\n")
    deny = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})
    async with engine_with(root, [finish("ok")], permission_mode="default", permissions=deny) as (engine, srv):
        events = await _run_command(engine, command)
    finished(events)
    assert (root / "victim").read_text() == "keep me" and not (root / "made").exists()
    sent = _sent(srv)
    assert "A: [`rm victim` was not run: denied by Bash(rm:*)]" in sent
    assert "B: [`touch made` was not run: no permission rule or the command's allowed-tools allows it]" in sent
    assert ("C: [`echo rm victim | sh` was not run: denied by Bash(rm:*): part of it is only known when it runs, so "
            "the rule cannot be checked]") in sent


async def test_a_line_is_bounded_in_time_and_never_sees_the_agents_keys(tmp_path, monkeypatch):
    monkeypatch.setattr(command_shell, "LINE_TIMEOUT", 0.3)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-in-env")
    root = tmp_path / "proj"
    root.mkdir()
    command = _command(root, "Key: !`echo key=${OPENAI_API_KEY:-none}`\nSlow: !`sleep 30`\n")
    async with engine_with(root, [finish("ok")]) as (engine, srv):         # bypass: every line may run
        events = await _run_command(engine, command)
    finished(events)
    sent = _sent(srv)
    assert "Key: key=none" in sent and "sk-secret-in-env" not in sent
    assert "Slow: [`sleep 30` ran past 0.3 s and was stopped]" in sent


async def test_allowed_tools_hold_for_the_commands_turn_only(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    command = _command(root, "---\nallowed-tools: Bash(touch:*)\n---\nMake the files.\n")
    touch = 'Thought: make it\nAction: Bash[{{"command": "touch {}"}}]'
    script = [touch.format("first"), finish("made"), touch.format("second"), finish("refused")]
    async with engine_with(root, script, permission_mode="default", interactive=False) as (engine, srv):
        granted = await _run_command(engine, command)
        plain = await run(engine, "make another")
    finished(granted), finished(plain)
    assert (root / "first").exists() and not (root / "second").exists()
    second = [e for e in plain if isinstance(e, ToolFinished)]
    assert second and second[0].result["status"] == "error"


def test_the_cli_runs_a_custom_command_and_a_projects_only_when_trusted(tmp_path):
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".claude" / "commands").mkdir(parents=True)
    (root / ".claude" / "commands" / "status.md").write_text(
        "---\nallowed-tools: Bash(echo:*)\n---\nState: !`echo state-of-$1`\n")
    untrusted = {"CONTEXTUAL_TRUST_PROJECT": ""}
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        refused = contextual(["-p", "/status main"], root, cli_env(home, srv.base_url, **untrusted))
        assert refused.returncode != 0 and "inert until you approve it" in refused.stderr, refused.stderr
        assert not srv.requests                                                 # nothing ran, nothing sent
        ran = contextual(["--trust-project", "-p", "/status main"], root, cli_env(home, srv.base_url, **untrusted))
    assert ran.returncode == 0, ran.stderr
    assert "State: state-of-main" in str(srv.requests[-1]["messages"])
    assert "ran !`echo state-of-main`: 1 line put into the prompt" in ran.stderr


async def test_a_commands_model_is_used_for_its_turn_only(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    command = _command(root, "---\nmodel: big-reviewer\n---\nReview it.\n")
    async with engine_with(root, [finish("reviewed"), finish("plain")]) as (engine, srv):
        session_model = engine.config.model
        with_model = await _run_command(engine, command)
        plain = await run(engine, "and now?")
    finished(with_model), finished(plain)
    assert session_model and session_model != "big-reviewer"
    assert [r["model"] for r in srv.requests] == ["big-reviewer", session_model]
    assert engine.config.model == session_model
