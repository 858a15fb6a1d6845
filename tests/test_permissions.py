"""core/permissions.decide: the mode, the rules and the tools' own flags (no list of tool names)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.permissions import decide, suggest_rule
from contextual.core.tools.registry import default_tools

TOOLS = default_tools()
NONE = PermissionRules()
ROOT = Path("/project")


@pytest.mark.parametrize("mode, expected", [
    ("default", {"Bash": "ask", "Write": "ask", "Edit": "ask", "MultiEdit": "ask", "Read": "allow", "LS": "allow"}),
    ("accept-edits", {"Bash": "ask", "Write": "allow", "Edit": "allow", "MultiEdit": "allow", "Read": "allow"}),
    ("bypass", {"Bash": "allow", "Write": "allow", "Edit": "allow", "MultiEdit": "allow", "Read": "allow"}),
])
def test_modes_follow_the_tools_flags(mode, expected):
    for name, verdict in expected.items():
        assert decide(TOOLS[name], {}, mode, NONE, ROOT, set()) == verdict, name


def test_a_new_tool_is_judged_by_its_flags_alone():
    edits = SimpleNamespace(name="Patch", needs_permission=True, edits_files=True)
    looks = SimpleNamespace(name="Peek", needs_permission=False, edits_files=False)
    assert decide(edits, {}, "accept-edits", NONE, ROOT, set()) == "allow"
    assert decide(edits, {}, "default", NONE, ROOT, set()) == "ask"
    assert decide(looks, {}, "default", NONE, ROOT, set()) == "allow"


def test_session_allowances_are_rules_too():
    bash = TOOLS["Bash"]
    assert decide(bash, {"command": "git log"}, "default", NONE, ROOT, {"Bash(git:*)"}) == "allow"
    assert decide(bash, {"command": "rm x"}, "default", NONE, ROOT, {"Bash(git:*)"}) == "ask"
    assert decide(bash, {"command": "rm x"}, "default", NONE, ROOT, {"Bash"}) == "allow"


def test_deny_rules_refuse_even_read_only_tools_and_bypass():
    rules = PermissionRules.from_tables({"deny": ["Read(secrets/**)"]})
    assert decide(TOOLS["Read"], {"file_path": "secrets/key.txt"}, "bypass", rules, ROOT, set()) == "deny"
    assert decide(TOOLS["Read"], {"file_path": "src/a.py"}, "bypass", rules, ROOT, set()) == "allow"


@pytest.mark.parametrize("tool, args, rule", [
    ("Bash", {"command": "git status --short"}, "Bash(git:*)"),
    ("Bash", {"command": "ls -la src"}, "Bash(ls:*)"),
    ("Edit", {"file_path": "src/a.py"}, "Edit(src/a.py)"),
    ("MultiEdit", {"file_path": "src/a.py"}, "Edit(src/a.py)"),
    ("mcp__t__x", {"q": 1}, "mcp__t__x"),
])
def test_allow_always_suggests_a_narrow_rule(tool, args, rule):
    assert suggest_rule(tool, args) == rule
