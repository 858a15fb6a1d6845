"""core/permissions.decide: the mode, the rules and the tools' own flags (no list of tool names)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.permissions import always_rules, decide, rule_denial
from contextual.core.tools.registry import default_tools

TOOLS = default_tools()
NONE = PermissionRules()
ROOT = Path("/project")


@pytest.mark.parametrize("mode, expected", [
    ("default", {"Bash": "ask", "Write": "ask", "Edit": "ask", "MultiEdit": "ask", "Read": "allow", "LS": "allow"}),
    ("accept-edits", {"Bash": "ask", "Write": "allow", "Edit": "allow", "MultiEdit": "allow", "Read": "allow"}),
    ("plan", {"Bash": "plan", "Write": "plan", "Edit": "plan", "MultiEdit": "plan", "Read": "allow", "Grep": "allow"}),
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


def test_plan_mode_holds_back_edits_even_when_a_rule_allows_them_and_lets_allowed_commands_run():
    rules = PermissionRules.from_tables({"allow": ["Edit(src/**)", "Bash(git log:*)"]})
    assert decide(TOOLS["Edit"], {"file_path": "src/a.py"}, "plan", rules, ROOT, set()) == "plan"
    assert decide(TOOLS["Edit"], {"file_path": "src/a.py"}, "default", rules, ROOT, set()) == "allow"
    assert decide(TOOLS["Bash"], {"command": "git log -3"}, "plan", rules, ROOT, set()) == "allow"
    assert decide(TOOLS["Bash"], {"command": "rm -rf src"}, "plan", rules, ROOT, set()) == "plan"


def test_session_allowances_are_rules_too():
    bash = TOOLS["Bash"]
    assert decide(bash, {"command": "git log"}, "default", NONE, ROOT, {"Bash(git:*)"}) == "allow"
    assert decide(bash, {"command": "rm x"}, "default", NONE, ROOT, {"Bash(git:*)"}) == "ask"
    assert decide(bash, {"command": "rm x"}, "default", NONE, ROOT, {"Bash"}) == "allow"


def test_a_denial_names_the_call_then_the_rule_whole():
    """"Bash is denied by the permission rule 'Bash(rm:*)'" read as if Bash were off, and a narrow row cut the rule:
    the call is said first (a command's first line, cut), then the rule as written."""
    rules = PermissionRules.from_tables({"deny": ["Bash(rm:*)", "Read(.env)", "Grep"]})

    def said(tool: str, **args: str) -> str:
        error = rule_denial(tool, args, rules, Path("/project"))["error"]
        return f"{error['message']} | {error['rule']}"
    assert said("Bash", command="rm -rf build") == ("`rm -rf build` is denied by Bash(rm:*); do the task another way "
                                                    "or tell the user. | Bash(rm:*)")
    long = "cd " + "x/" * 60 + " && rm -rf build"
    assert said("Bash", command=long).startswith(f"`{long[:100]}…` is denied by Bash(rm:*); ")
    assert said("Bash", command="rm a\nrm b").startswith("`rm a…` is denied by Bash(rm:*); ")
    assert said("Read", file_path=".env").startswith("Read on .env is denied by Read(.env); ")
    assert said("Edit", file_path=".env", old_string="a", new_string="b").startswith("Edit on .env is denied by "
                                                                                     "Read(.env); ")
    assert said("Grep", pattern="x").startswith("Grep is denied by the rule Grep; ")


def test_deny_rules_refuse_even_read_only_tools_and_bypass():
    rules = PermissionRules.from_tables({"deny": ["Read(secrets/**)"]})
    assert decide(TOOLS["Read"], {"file_path": "secrets/key.txt"}, "bypass", rules, ROOT, set()) == "deny"
    assert decide(TOOLS["Read"], {"file_path": "src/a.py"}, "bypass", rules, ROOT, set()) == "allow"


@pytest.mark.parametrize("tool, args, rules", [
    ("Bash", {"command": "git status --short"}, ("Bash(git status:*)",)),
    ("Bash", {"command": "ls -la src"}, ("Bash(ls -la src)",)),
    ("Bash", {"command": "python -m pytest -q 2>&1 | tail -3"}, ("Bash(python -m pytest:*)", "Bash(tail -3)")),
    ("Bash", {"command": "X=1 npm test && npm test"}, ("Bash(npm test:*)",)),
    # a single quote inside: double quotes, as a person writes it (shlex's '"'"' was what the dialog showed)
    ("Bash", {"command": "python -c \"import sys; print('hi')\""}, ("Bash(python -c \"import sys; print('hi')\")",)),
    ("Bash", {"command": "grep -c 'it'\\''s \"so\"'"}, ("Bash(grep -c 'it'\"'\"'s \"so\"')",)),     # both: shlex's
    # an agent's test run that prints its status: echo only prints, so any echo is as harmless as this one
    ("Bash", {"command": "python test_calc.py; echo exit=$?"}, ("Bash(python test_calc.py)", "Bash(echo:*)")),
    ("Bash", {"command": "pytest -q && echo passed"}, ("Bash(pytest -q)", "Bash(echo:*)")),
    ("Edit", {"file_path": "src/a.py"}, ("Edit(src/a.py)",)),
    ("MultiEdit", {"file_path": str(ROOT / "src" / "a.py")}, ("Edit(src/a.py)",)),
    ("mcp__t__x", {"q": 1}, ("mcp__t__x",)),
])
def test_allow_always_proposes_the_narrowest_rules_that_match_the_call_again(tool, args, rules):
    proposal = always_rules(tool, args, ROOT)
    assert proposal.rules == rules and proposal.why == ""
    allowed = PermissionRules.from_tables({"allow": list(rules)})
    runs = TOOLS.get(tool) or SimpleNamespace(name=tool, needs_permission=True, edits_files=False)
    assert decide(runs, args, "default", allowed, ROOT, set()) == "allow"


@pytest.mark.parametrize("command, why", [("echo hi > out.txt", "redirection"), ("$CMD x", "certainty"),
                                          ("cat \"$HOME/x\"", "only known when it runs"), ("ls ((", "certainty")])
def test_allow_always_proposes_nothing_with_the_reason_when_no_rule_would_match_again(command, why):
    proposal = always_rules("Bash", {"command": command}, ROOT)
    assert proposal.rules == () and why in proposal.why


def test_the_old_too_broad_proposal_is_gone():
    assert "Bash(git:*)" not in always_rules("Bash", {"command": "git status --short"}, ROOT).rules
    proposal = PermissionRules.from_tables({"allow": list(always_rules("Bash", {"command": "git status"}, ROOT).rules)})
    assert proposal.allows("Bash", {"command": "git push --force"}, str(ROOT)) is None
    echoes = PermissionRules.from_tables({"allow": list(always_rules("Bash", {"command": "echo $?"}, ROOT).rules)})
    for command in ("echo $(rm -rf build)", "echo $X > out.txt", "echo `rm x`"):
        assert echoes.allows("Bash", {"command": command}, str(ROOT)) is None


@pytest.mark.parametrize("command, denied", [
    ("rm -rf build", True), ("rm -fr build", True), ("rm -r -f build", True), ("rm -f -r build", True),
    ("rm -rfv build", True), ("rm build -rf", True), ("sudo rm -fr build", True), ("x=$(rm -r -f build)", True),
    ("rm -r build", False), ("rm -f build", False), ("rm -- -rf", False), ("rmdir -rf build", False),
    ("git push -f", True), ("git push origin main -f", True), ("git -C repo push -fu origin", True),
    ("git push origin main", False), ("git pull -f", False),
])
def test_a_deny_rules_short_options_hold_in_any_order_or_bundle(command, denied):
    """`Bash(rm -rf:*)` compared its words whole, so `rm -fr build` and `rm -r -f build` went through it: a
    user writes the options one way, the model another."""
    rules = PermissionRules.from_tables({"deny": ["Bash(rm -rf:*)", "Bash(git push -f:*)"]})
    assert (rules.denies("Bash", {"command": command}, "/project") is not None) is denied


@pytest.mark.parametrize("rule, command, denied", [
    ("Bash(rm -rf:*)", "rm --recursive --force x", True), ("Bash(rm -rf:*)", "rm -R -f x", True),
    ("Bash(rm -rf:*)", "rm --rec --f x", True), ("Bash(rm -rf:*)", "rm --force -r x", True),
    ("Bash(rm -rf:*)", "rm --recursive=x --force y", True), ("Bash(rm -rf:*)", "sudo rm x --for -R", True),
    ("Bash(rm -rf:*)", "rm --verbose x", False), ("Bash(rm -rf:*)", "rm --recursive --interactive x", False),
    ("Bash(rm -rf:*)", "rm -- --recursive --force", False), ("Bash(rm -rf:*)", "rm --v -r x", False),
    ("Bash(git push --force:*)", "git push -f", True), ("Bash(git push --force:*)", "git push --forc", True),
    ("Bash(git push --force:*)", "git push origin main --force", True),
    ("Bash(git push --force:*)", "git push --force-with-lease", False),     # another option; only a start is both
    ("Bash(git push --force:*)", "git pull --force", False),
    ("Bash(git push -f:*)", "git push --force origin", True), ("Bash(git push -f:*)", "git push --dry-run", False),
    ("Bash(git push -f:*)", "git -C repo push --fo origin", True),
    ("Bash(git branch -D:*)", "git branch --delete --force x", True),
    ("Bash(git branch -D:*)", "git branch -d -f x", True),
    ("Bash(git branch -D:*)", "git branch -d x", False),
    ("Bash(git branch -D:*)", "git -C repo branch -d x", False),          # git's own -C is no `branch -C`
    ("Bash(git branch -d:*)", "git branch -D x", True), ("Bash(git branch -d:*)", "git branch --del x", True),
    ("Bash(git commit --no-verify:*)", "git commit -nm x", True),
    ("Bash(git commit --no-verify:*)", "git commit -m x", False),
    ("Bash(git reset --hard:*)", "git reset --har HEAD~", True),
    ("Bash(git reset --hard:*)", "git reset --soft", False),
    ("Bash(git clean -fd:*)", "git clean --force -d", True), ("Bash(git clean -fd:*)", "git clean -d --dry-run", False),
    ("Bash(sed -i:*)", "sed --in-place=.bak s/a/b/ f", True), ("Bash(sed -i:*)", "sed --expression=s/a/b/ f", False),
    ("Bash(chmod -R:*)", "chmod --rec 777 d", True), ("Bash(cp -r:*)", "cp --archive a b", True),
    ("Bash(docker rm -f:*)", "docker rm --force c", True),
    ("Bash(kubectl delete --force:*)", "kubectl delete -f x.yaml", False),           # kubectl's -f is --filename
    ("Bash(pip uninstall -y:*)", "pip uninstall --yes x", True),
    ("Bash(apt-get install -y:*)", "apt-get --assume-yes install x", True),
    ("Bash(mytool --force:*)", "mytool -f", False),                         # not in the table: words as written
    # an option that must have a value takes a `--` after it as that value (helper-102): the options go on
    ("Bash(git push --force:*)", "git push -o -- -f origin", True),
    ("Bash(git push -f:*)", "git push --repo -- -f", True),
    ("Bash(git push -f:*)", "git push --push -- --force", True), ("Bash(sed -i:*)", "sed -f -- -i f", True),
    ("Bash(git push -f:*)", "git push -v -- -f", False), ("Bash(rm -rf:*)", "rm -r -- -f", False),
    ("Bash(rm -rf:*)", "rm -- -rf", False),                                 # a file named -rf
])
def test_a_deny_rules_options_hold_in_their_long_spellings_and_synonyms(rule, command, denied):
    """`Bash(rm -rf:*)` let `rm --recursive --force x` and `rm -R -f x` through (helper-98): the program reads each
    as -rf, and getopt_long takes any unique start of a long option (`--rec`). An ambiguous start (`--forc` of git
    push: --force, --force-with-lease, --force-if-includes) counts as each; the program refuses it anyway."""
    rules = PermissionRules.from_tables({"deny": [rule]})
    assert (rules.denies("Bash", {"command": command}, "/project") is not None) is denied


@pytest.mark.parametrize("rule, command, denied", [
    ("Bash(kill -9:*)", "kill -KILL 42", True), ("Bash(kill -9:*)", "kill -SIGKILL 42", True),
    ("Bash(kill -9:*)", "kill -s KILL 42", True), ("Bash(kill -9:*)", "kill -s 9 42", True),
    ("Bash(kill -9:*)", "kill --signal=KILL 42", True), ("Bash(kill -9:*)", "kill -n 9 42", True),
    ("Bash(kill -9:*)", "kill -sigkill 42", True), ("Bash(kill -9:*)", "kill -s $SIG 42", True),
    ("Bash(kill -9:*)", "kill -TERM 42", False), ("Bash(kill -9:*)", "kill 42", False),
    ("Bash(kill -9:*)", "kill -l", False),
    ("Bash(kill -s KILL:*)", "kill -9 42", True), ("Bash(kill -TERM:*)", "kill 42", True),     # TERM is kill's default
    ("Bash(pkill -9:*)", "pkill --signal KILL x", True), ("Bash(pkill -9:*)", "pkill -KILL -f x", True),
    ("Bash(pkill -9:*)", "pkill -s 9 x", False),                             # pkill's -s is a session id
    ("Bash(killall -KILL:*)", "killall -s 9 x", True), ("Bash(killall -KILL:*)", "killall -HUP x", False),
    # the signal given in the option's word, after flags, or as bash reads a number (helper-102)
    ("Bash(kill -9:*)", "kill -s9 42", True), ("Bash(kill -9:*)", "kill -sKILL 42", True),
    ("Bash(kill -9:*)", "kill -n9 42", True), ("Bash(kill -9:*)", "kill -+9 42", True),
    ("Bash(kill -9:*)", "kill -s ' 9' 42", True), ("Bash(kill -9:*)", "kill --signal=+9 42", True),
    ("Bash(killall -KILL:*)", "killall -vs KILL x", True), ("Bash(killall -KILL:*)", "killall -vs9 x", True),
    ("Bash(kill -9:*)", "kill -s15 42", False), ("Bash(kill -9:*)", "kill -- -9", True),
    # helper-106, each killed a process with KILL here (procps-ng 4.0.2, psmisc 23.6): procps' kill and pkill take a
    # `-SIGNAL` word anywhere (`/bin/kill -- -9 p`; bash's own `kill -- -9` is a process group, refused alike);
    # killall reads `-signal KILL` as getopt_long_only does, and a value's leading digits (`-s 9x`) as atoi
    ("Bash(kill -9:*)", "/bin/kill -- -9 42", True), ("Bash(kill -9:*)", "sudo kill 42 -- -KILL", True),
    ("Bash(pkill -9:*)", "pkill -e -- -9 x", True), ("Bash(pkill -9:*)", "pkill --signal 9x x", True),
    ("Bash(killall -9:*)", "killall -signal KILL x", True), ("Bash(killall -9:*)", "killall -sig=KILL x", True),
    ("Bash(killall -9:*)", "killall -s 9x x", True), ("Bash(killall -9:*)", "killall -9x x", True),
    ("Bash(killall -9:*)", "killall -Z -- -9 x", True), ("Bash(kill -TERM:*)", "kill -- -1234", True),
    ("Bash(kill -9:*)", "kill -- -1234", False), ("Bash(killall -9:*)", "killall -- -9 x", False),
    ("Bash(killall -9:*)", "killall -exact x", False), ("Bash(pkill -9:*)", "pkill -O 9 x", False),
])
def test_a_deny_rules_signal_holds_in_each_spelling_of_it(rule, command, denied):
    """`Bash(kill -9:*)` read `kill -KILL p` as the letters K, I, L and let it through (helper-98)."""
    rules = PermissionRules.from_tables({"deny": [rule]})
    assert (rules.denies("Bash", {"command": command}, "/project") is not None) is denied


def test_an_allow_rule_still_compares_options_as_written():
    """Spellings widen what a deny rule refuses; an allow rule must never grow with them."""
    rules = PermissionRules.from_tables({"allow": ["Bash(rm -rf:*)", "Bash(kill -9:*)"]})
    for command in ("rm --recursive --force x", "rm -fr x", "kill -KILL 42"):
        assert rules.allows("Bash", {"command": command}, "/project") is None, command
    assert rules.allows("Bash", {"command": "rm -rf x"}, "/project") is not None


def test_a_deny_rule_for_edit_or_write_keeps_every_editing_tool_off_its_paths_and_allow_stays_as_named():
    """`Edit(secrets/**)` as a deny rule let Write replace secrets/k (seventh red team): the user meant "do not
    change these files". An allow rule still allows only the tools it names."""
    rules = PermissionRules.from_tables({"deny": ["Edit(secrets/**)", "Write(locked.txt)"], "allow": ["Edit(src/**)"]})
    for tool, args in [("Write", {"file_path": "secrets/k", "content": "x"}),
                       ("MultiEdit", {"file_path": "secrets/k", "edits": []}),
                       ("Edit", {"file_path": "secrets/k", "old_string": "a", "new_string": "b"}),
                       ("Edit", {"file_path": "locked.txt", "old_string": "a", "new_string": "b"})]:
        assert decide(TOOLS[tool], args, "bypass", rules, ROOT, set()) == "deny", (tool, args)
    assert rules.denies("Read", {"file_path": "secrets/k"}, str(ROOT)) is None          # reading is another rule
    assert rules.allows("Write", {"file_path": "src/a.py", "content": ""}, str(ROOT)) is None
    assert rules.allows("MultiEdit", {"file_path": "src/a.py", "edits": []}, str(ROOT)) is not None


@pytest.mark.parametrize("command, denied", [
    ("git push origin main", True), ("git push -f origin", True), ("git push -- origin", True),
    ("git -C repo push --force-with-lease origin", True), ("git push --repo=x origin", True),
    ("git push upstream", False), ("git commit -m push origin", False), ("git push", False)])
def test_a_deny_rules_later_words_hold_with_options_between_them(command, denied):
    """`Bash(git push origin:*)` compared the words after `push` in a row: `git push -f origin` went through it
    (seventh red team)."""
    rules = PermissionRules.from_tables({"deny": ["Bash(git push origin:*)"]})
    assert (rules.denies("Bash", {"command": command}, "/project") is not None) is denied


def test_the_file_systems_case_folding_is_read_from_the_file_system(tmp_path):
    project = tmp_path / "Proj"
    project.mkdir()
    from contextual.core.permission_rules import folds_case
    assert folds_case(str(project)) == (tmp_path / "pROJ").exists()     # ext4 here: False; macOS, Windows: True


def test_on_a_file_system_that_folds_case_a_read_rule_covers_the_names_in_other_case(tmp_path, monkeypatch):
    """macOS and Windows open `.env` for `.ENV`: `Read(.env)` let `Read(.ENV)` through there (seventh red team).
    This kernel has no case-folding file system to test on, so the file system's answer is given here; the
    question itself is asked of the real one above."""
    from contextual.core import permission_rules
    rules = PermissionRules.from_tables({"deny": ["Read(.env)", "Edit(Secrets/**)"]})
    root = str(tmp_path)
    assert rules.denies("Read", {"file_path": ".ENV"}, root) is None            # a case-keeping file system
    monkeypatch.setattr(permission_rules, "folds_case", lambda root: True)
    assert rules.denies("Read", {"file_path": ".ENV"}, root) is not None
    assert rules.denies("Write", {"file_path": "secrets/k", "content": ""}, root) is not None
    assert rules.withholds(".Env", root) and not rules.withholds(".envrc", root)
    assert rules.denies("Bash", {"command": "cat .ENV"}, root) is not None


def test_a_path_rule_reads_the_file_a_tool_opens_for_a_name_with_an_undecodable_byte(tmp_path):
    """LS shows a name holding a byte that is not UTF-8 as `l\\x80`, and the tools open that file for it; the check
    read the name as written, a file that is not there: a link so named let Read through to .env and Write through
    to secrets/k (tenth red team)."""
    import os
    from contextual.core.tools.base import ToolContext
    (tmp_path / "secrets").mkdir()
    (tmp_path / ".env").write_text("SECRET\n")
    (tmp_path / "secrets" / "k").write_text("k\n")
    try:
        os.symlink(".env", os.path.join(os.fsencode(tmp_path), b"l\x80"))
        os.symlink("secrets/k", os.path.join(os.fsencode(tmp_path), b"m\x80"))
    except OSError:
        pytest.skip("this file system keeps names UTF-8")
    root = str(tmp_path)
    assert ToolContext(root=tmp_path).resolve("l\\x80") == tmp_path / ".env"        # what the tool opens
    rules = PermissionRules.from_tables({"deny": ["Read(.env)", "Edit(secrets/**)"]})
    assert rules.denies("Read", {"file_path": "l\\x80"}, root) is not None
    assert rules.denies("Write", {"file_path": "m\\x80", "content": ""}, root) is not None
    assert rules.denies("Read", {"file_path": "x\\x80"}, root) is None             # no such file: nothing to hide


def test_a_deny_rule_covers_a_name_in_the_other_unicode_form():
    """macOS opens `schlüssel` for its decomposed spelling (u and a combining diaeresis): a rule written in one form
    let the other through (tenth red team). Refused on every file system: the two look the same to the user."""
    import unicodedata
    rules = PermissionRules.from_tables({"deny": ["Read(schlüssel/**)", "Edit(caf\u0065\u0301.txt)"]})
    for tool, path in [("Read", "schlüssel/k"), ("Read", unicodedata.normalize("NFD", "schlüssel/k")),
                       ("Write", "café.txt"), ("Write", "cafe\u0301.txt")]:
        assert rules.denies(tool, {"file_path": path, "content": ""}, str(ROOT)) is not None, (tool, ascii(path))
    assert rules.denies("Read", {"file_path": "schlussel/k"}, str(ROOT)) is None
    assert rules.denies("Bash", {"command": "cat " + unicodedata.normalize("NFD", "schlüssel/k")}, str(ROOT))
