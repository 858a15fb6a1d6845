"""/permissions without the screen (core/permission_list.py): every rule with its source and whether it is in force,
and removing or adding one through the local file's one writer, in force for the engine's next decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextual.core.config import load_config
from contextual.core.config_files import approve_local_rules
from contextual.core.engine.settings import Settings
from contextual.core.permission_list import RuleBook, list_rules, parse_entry
from contextual.core.permission_rules import RuleError
from contextual.core.permissions import add_allow_rules, decide
from contextual.core.tools.registry import default_tools

BASH = default_tools()["Bash"]
LOCAL = """# my own rules
model = "kept-model"   # a key of its own

[permissions]
# ask less
allow = [
  "Bash(echo:*)",  # the greeting
  "Bash(ls:*)",
]
"""


@pytest.fixture
def three_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A user config, an unapproved project config and an approved local config, each with rules."""
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT", raising=False)
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".contextual").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text('[permissions]\nallow = ["Bash(git status:*)"]\ndeny = ["Bash(rm:*)"]\n')
    (root / ".contextual" / "config.toml").write_text('[permissions]\nallow = ["Bash(make:*)"]\n'
                                                       'deny = ["Read(.env)"]\n')
    (root / ".contextual" / "config.local.toml").write_text(LOCAL)  # the user's own comments and keys
    approve_local_rules(home, root, None)                           # as the user's "allow always" does
    add_allow_rules(root, ["Bash(pwd)"], home)
    return root, home


def book(root: Path, home: Path, session: set[str] | None = None) -> RuleBook:
    config = load_config(root, {}, env={"CONTEXTUAL_HOME": str(home)})
    return RuleBook(Settings(config, None), session if session is not None else set())


def verdict(rules: RuleBook, command: str) -> str:
    config = rules.settings.config
    return decide(BASH, {"command": command}, config.permission_mode, config.permissions, config.project_root,
                  rules.session)


def test_each_rule_is_listed_deny_first_with_its_file_and_an_unapproved_projects_allow_rule_is_inert(three_files):
    root, home = three_files
    listing = list_rules(root, home, {"Bash(pwd)", "Bash(cat:*)"}, "default")
    shown = [(r.kind, r.text, r.source, r.in_force) for r in listing.rules]
    assert shown == [("deny", "Bash(rm:*)", "user", True), ("deny", "Read(.env)", "project", True),
                     ("allow", "Bash(git status:*)", "user", True), ("allow", "Bash(make:*)", "project", False),
                     ("allow", "Bash(echo:*)", "local", True), ("allow", "Bash(ls:*)", "local", True),
                     ("allow", "Bash(pwd)", "local", True),
                     ("allow", "Bash(cat:*)", "session", True)]     # in memory only: not in the file
    assert [r.removable for r in listing.rules] == [False, False, False, False, True, True, True, True]
    assert listing.rules[0].path == home / "config.toml" and listing.rules[-1].path is None
    assert listing.read_only == (home / "config.toml", root.resolve() / ".contextual" / "config.toml")
    assert listing.local == root.resolve() / ".contextual" / "config.local.toml"     # what a and d change
    (note,) = listing.notes
    assert str(root.resolve() / ".contextual" / "config.toml") in note and "--trust-project" in note
    assert "trusted_projects" in note and "permission_mode" not in note
    # What the listing says is in force is what load_config puts in force (one judgement of approval)
    config = load_config(root, {}, env={"CONTEXTUAL_HOME": str(home)})
    in_force = {(r.kind, r.text) for r in listing.rules if r.in_force and r.source != "session"}
    assert in_force == {("allow", r.text) for r in config.permissions.allow} | {("deny", r.text)
                                                                                for r in config.permissions.deny}


def test_removing_a_local_rule_keeps_the_files_comments_and_the_next_call_asks(three_files):
    root, home = three_files
    rules = book(root, home, {"Bash(echo:*)"})           # "allow always" granted it in memory too
    assert verdict(rules, "echo hi") == "allow"
    echo = next(r for r in rules.listing().rules if r.text == "Bash(echo:*)")
    said = rules.remove(echo)
    assert said.startswith("removed allow Bash(echo:*) from ") and said.endswith("config.local.toml")
    text = (root / ".contextual" / "config.local.toml").read_text()
    assert "Bash(echo:*)" not in text and "Bash(ls:*)" in text
    assert "# my own rules" in text and 'model = "kept-model"   # a key of its own' in text and "# ask less" in text
    assert verdict(rules, "echo hi") == "ask" and verdict(rules, "ls -la") == "allow"
    assert "Bash(echo:*)" not in rules.session
    # the narrower file stays approved: the next launch does not ask about it, nor use the removed rule
    again = load_config(root, {}, env={"CONTEXTUAL_HOME": str(home)})
    # (the file's model key is a piece of its own, asked about apart: core/trust.py)
    assert [i.kind for i in again.unapproved if i.kind != "model"] == ["permissions"]
    assert "Bash(echo:*)" not in {r.text for r in again.permissions.allow}


def test_user_and_project_rules_are_read_only_and_a_session_grant_leaves_memory_only(three_files):
    root, home = three_files
    rules = book(root, home, {"Bash(cat:*)"})
    user_rule = next(r for r in rules.listing().rules if r.source == "user")
    before = (home / "config.toml").read_text()
    with pytest.raises(ValueError, match="edit that file"):
        rules.remove(user_rule)
    assert (home / "config.toml").read_text() == before
    local = (root / ".contextual" / "config.local.toml").read_text()
    assert verdict(rules, "cat a.txt") == "allow"
    grant = next(r for r in rules.listing().rules if r.source == "session")
    assert rules.remove(grant) == "removed allow Bash(cat:*) from this session"
    assert verdict(rules, "cat a.txt") == "ask" and (root / ".contextual" / "config.local.toml").read_text() == local


def test_an_added_rule_is_checked_by_the_rules_parser_and_in_force_at_once(three_files):
    root, home = three_files
    rules = book(root, home)
    path = root / ".contextual" / "config.local.toml"
    before = path.read_text()
    for bad in ("Bash(", "Bash()", "deny", "deny Bash(:*)", "   "):
        with pytest.raises(RuleError):
            rules.add(bad)
    assert path.read_text() == before
    assert verdict(rules, "git push origin") == "ask"
    added = rules.add("deny Bash(git push:*)")
    assert (added.kind, added.source, added.in_force) == ("deny", "local", True)
    assert verdict(rules, "git push origin") == "deny"
    assert rules.add("Bash(npm test:*)").in_force and verdict(rules, "npm test") == "allow"
    assert 'deny = ["Bash(git push:*)"]' in path.read_text() and "# ask less" in path.read_text()


def test_an_entry_names_its_kind_first_or_is_an_allow_rule():
    assert parse_entry("deny  Read(.env) ") == ("deny", "Read(.env)")
    assert parse_entry("allow Bash(git diff:*)") == ("allow", "Bash(git diff:*)")
    assert parse_entry("mcp__tracker__list_items") == ("allow", "mcp__tracker__list_items")
    with pytest.raises(RuleError, match="after deny"):
        parse_entry("deny ")


def test_a_waiting_project_mode_is_named_with_its_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT", raising=False)
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".contextual").mkdir(parents=True)
    (root / ".contextual" / "config.toml").write_text('permission_mode = "bypass"\n[permissions]\nallow = ["Bash"]\n')
    listing = list_rules(root, home, set(), "default")
    assert [(r.text, r.in_force) for r in listing.rules] == [("Bash", False)]
    assert "the allow rules and permission_mode of" in listing.notes[0]


def test_a_checkouts_links_in_dot_contextual_never_have_a_rule_written_outside_the_project(tmp_path: Path):
    """The local file's .gitignore was written through a link a checkout shipped there (to ~/.bashrc, say: our
    line went into it), and a `.contextual` linking elsewhere had the rules file itself written there (red team)."""
    from contextual.core.local_rules import change_local_rules
    outside, root = tmp_path / "outside", tmp_path / "proj"
    outside.mkdir()
    (outside / "victim").write_text("# the user's own file\n")
    (root / ".contextual").mkdir(parents=True)
    (root / ".contextual" / ".gitignore").symlink_to(outside / "victim")
    written = change_local_rules(root, "allow", ["Bash(git status:*)"])
    assert "Bash(git status:*)" in written.read_text() and written.parent == root / ".contextual"
    assert (outside / "victim").read_text() == "# the user's own file\n"
    other = tmp_path / "other"
    other.mkdir()
    (other / ".contextual").symlink_to(outside)
    with pytest.raises(ValueError, match="is a link to .*outside, outside the project"):
        change_local_rules(other, "allow", ["Bash(git status:*)"])
    assert sorted(p.name for p in outside.iterdir()) == ["victim"]
