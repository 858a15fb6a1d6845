"""Instruction files and keys on output (issue 26.10) through the real CLI: a rules file that links outside the
project is refused and named, a cut one is named to the `-p` user, and `context` never prints a key."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

FINISH = "Thought: done\nAction: Finish[finished]"
KEY = "sk-test-0123456789abcdef"


def test_a_rules_file_linking_outside_the_project_is_refused_and_named(project: Path):
    outside = project.parent / "outside-secret.txt"
    outside.write_text("SHADOW-CONTENT\n")
    (project / "AGENTS.md").symlink_to(outside)
    (project / "CLAUDE.md").write_text("Prefer small functions.\n")
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        result = contextual(["-p", "go"], project, env)
        shown = contextual(["context"], project, env)
    sent = json.dumps(srv.requests[0]["messages"])
    assert result.returncode == 0 and "SHADOW-CONTENT" not in sent and "Prefer small functions." in sent
    assert "warning: AGENTS.md is a link to a file outside the project" in result.stderr
    assert "SHADOW-CONTENT" not in shown.stdout and "AGENTS.md is a link to a file outside" in shown.stderr


def test_a_link_inside_the_project_is_read(project: Path):
    (project / "docs").mkdir()
    (project / "docs" / "rules.md").write_text("Use tabs.\n")
    (project / "AGENTS.md").symlink_to(project / "docs" / "rules.md")
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and "Use tabs." in json.dumps(srv.requests[0]["messages"])
    assert "AGENTS.md" not in result.stderr


def test_a_cut_rules_file_is_named_to_the_print_mode_user_once(project: Path):
    (project / "CODE_LAW.md").write_text("rule line\n" * 40_000)
    script = ['Thought: look\nAction: LS[{}]', FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--context-window", "20000"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    named = [line for line in result.stderr.splitlines() if "CODE_LAW.md is larger than its share" in line]
    assert len(named) == 1 and named[0].startswith("warning: ")


def test_context_never_prints_a_key_given_as_input_in_text_or_json(project: Path):
    with FakeLLMServer(kind="openai", script=[]) as srv:
        env = cli_env(home_of(project), srv.base_url, OPENAI_API_KEY=KEY)
        as_json = contextual(["context", "--json", "--input", f"use {KEY} please"], project, env)
        as_text = contextual(["context", "--input", f"use {KEY} please"], project, env)
    assert as_json.returncode == 0 and as_text.returncode == 0, as_json.stderr
    assert KEY not in as_json.stdout and KEY not in as_text.stdout
    assert "use [redacted] please" in json.dumps(json.loads(as_json.stdout))
    assert "use [redacted] please" in as_text.stdout


def test_a_rules_file_that_is_not_text_is_refused_and_named(project: Path):
    """A binary AGENTS.md (here NULs, as a sparse multi-GB file reads) was sent whole to the model as tokens of NUL
    characters; it is named to the user and not sent, and the other rules files still are."""
    (project / "AGENTS.md").write_bytes(b"\x00" * 100_000 + b"BINARY-TAIL")
    (project / "CLAUDE.md").write_text("Prefer small functions.\n")
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    sent = json.dumps(srv.requests[0]["messages"])
    assert result.returncode == 0 and "BINARY-TAIL" not in sent and "\\u0000" not in sent
    assert "Prefer small functions." in sent
    assert "warning: AGENTS.md is not a text file" in result.stderr
