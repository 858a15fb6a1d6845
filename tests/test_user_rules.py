"""The user's own AGENTS.md in $CONTEXTUAL_HOME (issue 30.5) through the real CLI: it leads L2, before the
project's rules files, and the next call's request carries both in that order."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of


def test_the_users_agents_md_leads_l2_before_the_projects(project: Path):
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "AGENTS.md").write_text("USER-RULE-u1: answer in British English.\n")
    (project / "AGENTS.md").write_text("PROJECT-RULE-p1: run make test.\n")
    shown = contextual(["context", "--json"], project, cli_env(home, "http://127.0.0.1:9/v1"))
    assert shown.returncode == 0, shown.stderr
    sent = json.dumps(json.loads(shown.stdout)["request"])
    assert "USER-RULE-u1" in sent and "PROJECT-RULE-p1" in sent
    assert sent.index("USER-RULE-u1") < sent.index("PROJECT-RULE-p1")
    assert "AGENTS.md in $CONTEXTUAL_HOME" in sent
    (home / "AGENTS.md").unlink()                                            # gone: gone from the prompt too
    again = contextual(["context", "--json"], project, cli_env(home, "http://127.0.0.1:9/v1"))
    assert "USER-RULE-u1" not in again.stdout and "PROJECT-RULE-p1" in again.stdout
