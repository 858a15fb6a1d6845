"""Plan mode (Claude Code's, which its users reach for first): the model reads and searches, every edit and
unallowed command is held back with an observation saying what to do instead, and each input carries a reminder
in the user message (never in L1, whose cached prefix stays fixed). Through the real CLI and a fake server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

EDIT = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
SCRIPT = [
    'Thought: look\nAction: Read[{"file_path": "calc.py"}]',
    f"Thought: fix it\nAction: Edit[{json.dumps(EDIT)}]",
    'Thought: run it\nAction: Bash[{"command": "touch ran"}]',
    "Thought: done\nAction: Finish[Plan: in calc.py change `a - b` to `a + b`, then run the tests.]",
]


def test_plan_mode_reads_holds_back_edits_and_commands_and_answers_with_the_plan(project: Path):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeLLMServer(kind="openai", script=list(SCRIPT)) as srv:
        result = contextual(["-p", "fix add()", "--permission-mode", "plan"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Plan: in calc.py change")
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a - b\n" and not (project / "ran").exists()
    read, edit, bash = [r["messages"][-1]["content"] for r in srv.requests[1:4]]
    assert "return a - b" in read
    for held in (edit, bash):
        assert "[error plan_mode:" in held and "does not run in plan mode" in held
    first = srv.requests[0]["messages"]
    user = next(m["content"] for m in first if m["role"] == "user")
    assert user.startswith("fix add()") and "Plan mode is on" in user
    assert "Plan mode" not in first[0]["content"]                # L1 is the same in every mode


def test_without_plan_mode_no_reminder_is_sent(project: Path):
    with FakeLLMServer(kind="openai", script=[SCRIPT[-1]]) as srv:
        result = contextual(["-p", "fix add()"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    assert not any("Plan mode" in str(m["content"]) for m in srv.requests[0]["messages"])
