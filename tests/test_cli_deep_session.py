"""A session line nested 100,000 levels deep (issue 26.8) through the real CLI: skipped with a warning."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer


def test_context_and_print_continue_past_a_session_line_nested_100000_levels(project: Path):
    """Issue 26.8: the line is skipped with a warning; `context -c` and `-p -c` keep working."""
    from contextual.core.session import latest_session
    home = home_of(project)
    with FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[first]",
                                              "Thought: ok\nAction: Finish[second]"]) as srv:
        env = cli_env(home, srv.base_url)
        assert contextual(["-p", "one"], project, env).returncode == 0
        path = latest_session(home, project)
        with open(path, "ab") as handle:
            handle.write(b'{"type": "user", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
        shown = contextual(["context", "-c", "--json"], project, env)
        resumed = contextual(["-p", "two", "-c"], project, env)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert "nested deeper than 200 levels, skipped" in shown.stderr
    assert "one" in json.dumps(json.loads(shown.stdout))
    assert resumed.returncode == 0 and resumed.stdout == "second\n", resumed.stderr
