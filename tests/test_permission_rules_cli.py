"""Permission rules (issue 16.3, CONTRACT Additions): `[permissions] allow/deny` in the user and project config,
one test per rule form through the real `contextual -p` (headless `default` mode) against the fake server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from contextual.core.permission_rules import RuleError, parse_rule
from contextual.core.permissions import add_allow_rules
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

FINISH = "Thought: done\nAction: Finish[finished]"
MCP_SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    (root / "top.py").write_text("x = 1\n")
    return root


def _config(project: Path, text: str, user: bool = False) -> None:
    path = home_of(project) / "config.toml" if user else project / ".contextual" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _run(project: Path, actions: list[str], *flags: str) -> list[str]:
    """Run the actions then Finish headless; the error header (or "[ok]"/"[exit N]") of each observation."""
    script = [f"Thought: go\nAction: {action}" for action in actions] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", *flags], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    heads = []
    for request in srv.requests[1:]:
        last = request["messages"][-1]["content"]
        heads.append(last.removeprefix("Observation: ").partition("\n")[0])
    return heads


def _refused(head: str) -> bool:
    return head.startswith("[error permission_denied")


def test_tool_rule_allows_every_call_of_that_tool(project: Path):
    _config(project, '[permissions]\nallow = ["Write"]\n')
    heads = _run(project, ['Write[{"file_path": "new.txt", "content": "hi"}]', 'Bash[{"command": "true"}]'])
    assert heads[0] == "[ok]" and (project / "new.txt").read_text() == "hi"
    assert _refused(heads[1])                                  # unmatched: refused as before


def test_bash_prefix_rule_allows_commands_starting_with_the_prefix_only(project: Path):
    _config(project, '[permissions]\nallow = ["Bash(touch made:*)"]\n')
    heads = _run(project, ['Bash[{"command": "touch made"}]', 'Bash[{"command": "touch made-too"}]',
                           'Bash[{"command": "touch madex"}]', 'Bash[{"command": "touch made; touch sneaky"}]'])
    assert heads[0] == "[exit 0]" and (project / "made").exists()
    assert _refused(heads[1]) and not (project / "made-too").exists()      # the prefix, then a space
    assert _refused(heads[2]) and not (project / "madex").exists()          # a word boundary, not a substring
    assert _refused(heads[3]) and not (project / "sneaky").exists()         # a shell operator never matches allow


def test_a_declaration_rule_allows_a_line_of_declarations_headless(project: Path):
    """`export PATH=$PATH:/x` was refused under `Bash(export:*)`: a declaration was no command a rule could match.
    What a later command on the line may run through it, and what its value runs, stay refused."""
    _config(project, '[permissions]\nallow = ["Bash(export:*)", "Bash(touch made:*)"]\n')
    heads = _run(project, ['Bash[{"command": "export PATH=$PATH:/x"}]',
                           'Bash[{"command": "export MARK=1 && touch made"}]',
                           'Bash[{"command": "export PATH=.:$PATH && touch made"}]',
                           'Bash[{"command": "export X=$(rm top.py)"}]'])
    assert heads[0] == "[exit 0]"
    assert heads[1] == "[exit 0]" and (project / "made").exists()
    assert _refused(heads[2])                      # ./touch would run: the line is opaque, as before
    assert _refused(heads[3]) and (project / "top.py").exists()


def test_edit_glob_rule_allows_edits_under_the_glob_and_multiedit_follows_it(project: Path):
    _config(project, '[permissions]\nallow = ["Edit(src/**)"]\n')
    heads = _run(project, ['Edit[{"file_path": "src/app.py", "old_string": "x = 1", "new_string": "x = 2"}]',
                           'MultiEdit[{"file_path": "src/app.py", "edits": [{"old_string": "x = 2", '
                           '"new_string": "x = 3"}]}]',
                           'Edit[{"file_path": "top.py", "old_string": "x = 1", "new_string": "x = 2"}]',
                           'Write[{"file_path": "src/other.py", "content": "y"}]'])
    assert heads[:2] == ["[ok]", "[ok]"] and (project / "src" / "app.py").read_text() == "x = 3\n"
    assert _refused(heads[2]) and (project / "top.py").read_text() == "x = 1\n"
    assert _refused(heads[3])                                  # an Edit rule does not allow Write


def test_write_glob_rule_matches_the_project_relative_path(project: Path):
    _config(project, '[permissions]\nallow = ["Write(notes/*.md)"]\n')
    root = project.resolve()
    heads = _run(project, ['Write[{"file_path": "notes/a.md", "content": "a"}]',
                           f'Write[{{"file_path": "{root}/notes/b.md", "content": "b"}}]',
                           'Write[{"file_path": "notes/deep/c.md", "content": "c"}]'])
    assert heads[:2] == ["[ok]", "[ok]"] and (project / "notes" / "b.md").read_text() == "b"
    assert _refused(heads[2])                                  # * stays within one folder


def test_deny_wins_over_allow_in_every_mode(project: Path):
    _config(project, '[permissions]\nallow = ["Bash"]\ndeny = ["Bash(rm:*)"]\n')
    heads = _run(project, ['Bash[{"command": "touch kept"}]', 'Bash[{"command": "rm top.py"}]',
                           'Bash[{"command": "true && rm src/app.py"}]'], "--permission-mode", "bypass")
    assert heads[0] == "[exit 0]"
    assert heads[1].startswith("[error permission_denied: `rm top.py` is denied by Bash(rm:*);")
    assert _refused(heads[2])                                  # any part of a compound command
    assert (project / "top.py").exists() and (project / "src" / "app.py").exists()


def test_mcp_tool_rule_allows_that_tool_of_that_server(project: Path):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": sys.executable,
                                                                               "args": [MCP_SERVER]}}}))
    _config(project, '[permissions]\nallow = ["mcp__tracker__list_items"]\n')
    heads = _run(project, ['mcp__tracker__list_items[{"state": "all", "limit": 2}]',
                           'mcp__tracker__broken[{"reason": "x"}]'])
    assert not _refused(heads[0]) and not heads[0].startswith("[error")
    assert _refused(heads[1])


def test_rules_from_user_and_project_files_add_up(project: Path):
    _config(project, '[permissions]\nallow = ["Write(a.txt)"]\n', user=True)
    _config(project, 'keep_rounds = 4\n[permissions]\nallow = ["Write(b.txt)"]\n')
    heads = _run(project, ['Write[{"file_path": "a.txt", "content": "a"}]',
                           'Write[{"file_path": "b.txt", "content": "b"}]'])
    assert heads == ["[ok]", "[ok]"]


def test_allow_always_rules_go_to_the_local_file_kept_out_of_git_keeping_its_content_and_are_honoured(
        project: Path):
    _config(project, '[permissions]\ndeny = ["Bash(rm:*)"]\n')
    local = project / ".contextual" / "config.local.toml"
    local.write_text('# mine\nkeep_rounds = 4  # fewer\n')
    path = add_allow_rules(project, ["Bash(touch:*)"])
    add_allow_rules(project, ["Bash(touch:*)"])                # once only
    text = path.read_text()
    assert path == local and text.startswith("# mine\nkeep_rounds = 4  # fewer\n")
    assert text.count("Bash(touch:*)") == 1
    # the .gitignore names itself: it is the app's, not a change of the turn /undo would take back (tmux QA)
    assert (project / ".contextual" / ".gitignore").read_text().splitlines() == [".gitignore", "config.local.toml"]
    import subprocess
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project, check=True,
                            capture_output=True, text=True).stdout
    assert ".contextual/.gitignore" not in status and "config.local.toml" not in status, status
    assert "touch" not in (project / ".contextual" / "config.toml").read_text()      # the committed file untouched
    heads = _run(project, ['Bash[{"command": "touch yes"}]', 'Bash[{"command": "rm top.py"}]'])
    assert heads[0] == "[exit 0]" and _refused(heads[1])


def test_a_malformed_rule_is_one_line_naming_the_file(project: Path):
    _config(project, '[permissions]\nallow = ["Edit(src/**"]\n')
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert "invalid permission rule 'Edit(src/**' in permissions.allow of " in line and srv.requests == []
    assert str(project / ".contextual" / "config.toml") in line


@pytest.mark.parametrize("text", ["", "Edit()", "Bad Name", "Edit(src/{a)", 3])
def test_parse_rule_rejects_what_it_cannot_read(text):
    with pytest.raises(RuleError):
        parse_rule(text)


def test_a_deny_rule_naming_a_tool_in_other_letters_is_refused_not_left_to_hold_nothing(project: Path):
    """`bash(rm:*)` named no tool (names are case-sensitive), so it denied nothing and said nothing: the agent's
    `rm` ran. Now the run stops before any request and says which name was meant; a tool we do not have at all
    (Claude Code's WebFetch) still parses: no call can match it."""
    _config(project, '[permissions]\ndeny = ["bash(rm:*)"]\nallow = ["WebFetch"]\n')
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and "Traceback" not in result.stderr and srv.requests == []
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    # the line names the file to fix, as a hook's matcher does (helper-96: the rule and its fix, but no file)
    assert (f"invalid permission rule 'bash(rm:*)' in permissions.deny of {project / '.contextual' / 'config.toml'}: "
            "tool names are case-sensitive: Bash, not bash") in line


def test_a_bad_rule_in_the_users_file_names_that_file(project: Path):
    _config(project, '[permissions]\ndeny = ["bash(rm:*)"]\n', user=True)
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and srv.requests == []
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert f"'bash(rm:*)' in permissions.deny of {home_of(project) / 'config.toml'}: " in line
