"""A declaration (`export`, `declare`, `typeset`, `local`, `readonly`, `unset`) is a command for the Bash rules, as
any other: `Bash(export:*)` allows `export X=1` and denies it in every spelling; what its values run is read as
nested lines; a variable that changes what later commands run (PATH, BASH_ENV, GIT_DIR, LD_PRELOAD …) leaves the line
opaque once it runs more than declarations. Where behaviour matters the line is first run by bash in a scratch
folder, where it does what it is said to do. Through the CLI: tests/test_permission_rules_cli.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.permissions import decide
from contextual.core.shell.parse import parse_command
from contextual.core.tools.registry import default_tools

DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})

_BASH = default_tools()["Bash"]


def _allow(*rules: str) -> PermissionRules:
    return PermissionRules.from_tables({"allow": list(rules)})


def _bash(line: str, folder: Path) -> subprocess.CompletedProcess:
    """The line as the Bash tool runs it: bash, in the folder, standard input /dev/null."""
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=20, check=False)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "victim").write_text("keep\n")
    for name in ("ls", "s.sh"):                   # a program of the folder, and a startup file, each removing it
        (folder / name).write_text("#!/bin/sh\nrm -f victim\n")
        (folder / name).chmod(0o755)
    return folder


@pytest.mark.parametrize("line, name", [
    ("export X=1", "export"), ("export A=1 B C=$HOME", "export"),
    ("declare -x X=1", "declare"), ("typeset -i n=3", "typeset"), ("readonly R=1", "readonly"),
    ("unset X Y", "unset"), ("f() { local v=1; }", "local"),
])
def test_a_declaration_is_allowed_by_its_own_rule_and_by_no_other(line: str, name: str):
    assert _allow(f"Bash({name}:*)").allows("Bash", {"command": line}, "/") is not None, line
    assert _allow("Bash(echo:*)").allows("Bash", {"command": line}, "/") is None, line
    # on a line with another command, each is covered by a rule of its own
    assert _allow("Bash(echo:*)").allows("Bash", {"command": f"{line}; echo hi"}, "/") is None, line
    assert _allow("Bash(echo:*)", f"Bash({name}:*)").allows("Bash", {"command": f"{line}; echo hi"}, "/"), line


def test_an_exact_declaration_rule_allows_that_value_only():
    exact = _allow("Bash(export X=1)", "Bash(export X)")
    assert exact.allows("Bash", {"command": "export X=1"}, "/") is not None
    assert exact.allows("Bash", {"command": "export 'X'=\"1\""}, "/") is not None
    assert exact.allows("Bash", {"command": "export X"}, "/") is not None
    for other in ("export X=2", "export X=$Y", "export X=1 Y=2", "declare -x X=1"):
        assert exact.allows("Bash", {"command": other}, "/") is None, other


@pytest.mark.parametrize("rule, line", [
    ("export", "export X=1"), ("export", "\\export X=1"), ("export", "'export' X=1"), ("export", "ls; export X=1"),
    ("export", "builtin export X=1"), ("export", "command export X=1"), ("export", "bash -c 'export X=1'"),
    ("export", "eval export X=1"), ("export", "echo $(export X=1)"), ("export", "export X=1 > /dev/null"),
    ("declare", "declare -x X=1"), ("declare", "if true; then declare X; fi"), ("typeset", "typeset X=1"),
    ("readonly", "readonly X"), ("unset", "unset X"), ("unset", "unset -v X; ls"),
    ("local", "f() { local v=$1; }"), ("export", "export PATH=$PATH:/x"),
])
def test_a_deny_rule_for_a_declaration_holds_whatever_the_syntax(rule: str, line: str):
    deny = PermissionRules.from_tables({"deny": [f"Bash({rule}:*)"]})
    assert deny.denies("Bash", {"command": line}, "/") is not None, line


@pytest.mark.parametrize("line", [
    "export X=$(rm victim)", "declare X=`rm victim`", "readonly X=\"$(rm victim)\"", "export A=1 B=$(rm victim)",
    "typeset -a a=($(rm victim))", "export PATH=$(rm victim):$PATH",
])
def test_what_a_declarations_value_runs_is_judged_as_a_nested_line(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)        # bash ran rm from the value
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line
    rules = _allow("Bash(export:*)", "Bash(declare:*)", "Bash(readonly:*)", "Bash(typeset:*)")
    assert rules.allows("Bash", {"command": line}, str(folder)) is None, line


@pytest.mark.parametrize("line", [
    "export PATH=.:$PATH; ls", "declare -x PATH=.:$PATH && ls", "export BASH_ENV=$PWD/s.sh; bash -c :",
    "typeset -x BASH_ENV=$PWD/s.sh; bash -c :",
])
def test_a_variable_changing_what_later_commands_run_keeps_the_line_opaque_when_one_follows(tmp_path: Path,
                                                                                               line: str):
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)        # the later command ran the folder's code
    assert parse_command(line).opaque, line
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line
    rules = _allow("Bash(export:*)", "Bash(declare:*)", "Bash(typeset:*)", "Bash(ls:*)", "Bash(bash:*)")
    assert rules.allows("Bash", {"command": line}, str(folder)) is None, line


@pytest.mark.parametrize("line", [
    "export LD_PRELOAD=$L; ls", "export GIT_DIR=$D; git status", "export GIT_CONFIG_COUNT=1; git status",
    "export PAGER=$P; man ls", "export PATH=$P; export Y=$(ls)", "f() { ls; }; export PATH=$P; f",
    "export PATH=$P; ./export", "readonly PATH; ls", "export PS4=$P; set -x",
])
def test_such_a_variable_before_any_other_command_leaves_it_opaque(line: str):
    assert parse_command(line).opaque, line


@pytest.mark.parametrize("line", [
    "export PATH=$PATH:/x", "export LD_PRELOAD=$L GIT_DIR=$D", "export BASH_ENV=$B; unset X",
    "declare -x PAGER=$P GIT_PAGER=$P", "export PYTHONPATH=.",
])
def test_a_line_of_declarations_alone_changes_nothing_after_it_and_its_rules_allow_it(line: str):
    """Each Bash call is a shell of its own (core/tools/bash.py): what a line of declarations sets is gone after it."""
    assert not parse_command(line).opaque, line
    assert DENY_RM.denies("Bash", {"command": line}, "/") is None, line
    rules = _allow("Bash(export:*)", "Bash(declare:*)", "Bash(unset:*)")
    assert rules.allows("Bash", {"command": line}, "/") is not None, line
    assert rules.allows("Bash", {"command": f"{line}; ls"}, "/") is None, line      # what it changes runs next


def test_a_bare_assignment_alone_is_not_opaque_and_no_rule_names_it():
    assert not parse_command("PATH=/x").opaque and parse_command("PATH=/x").commands == ()
    assert parse_command("PATH=/x; ls").opaque


@pytest.mark.parametrize("line", ["X=1", "A=1 B='two words'", "PATH=/x", "X=1; Y=$X", "n=$((1 + 2))"])
def test_a_line_that_runs_nothing_needs_no_rule_in_any_mode(tmp_path: Path, line: str):
    """Each Bash call is a shell of its own: assignments alone run nothing and leave nothing set after the call."""
    folder = _folder(tmp_path)
    assert _bash(line, folder).returncode == 0 and (folder / "victim").exists()
    for mode in ("default", "plan", "accept-edits"):
        assert decide(_BASH, {"command": line}, mode, PermissionRules(), folder, set()) == "allow", (line, mode)
        assert decide(_BASH, {"command": line}, mode, DENY_RM, folder, set()) == "allow", (line, mode)
    assert decide(_BASH, {"command": line}, "default", PermissionRules.from_tables({"deny": ["Bash"]}), folder,
                  set()) == "deny"


@pytest.mark.parametrize("line", ["X=$(rm victim)", "X=`rm victim`", "a[$(rm victim)]=1", "X=1 > out",
                                  "x='a[$(rm victim)]'; (( x ))", "X=$(./ls)"])
def test_an_assignment_that_runs_a_command_or_writes_a_file_is_judged_as_any_line(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    assert decide(_BASH, {"command": line}, "default", PermissionRules(), folder, set()) == "ask", line
    if "rm" in line:
        ran = _bash(line, folder)
        assert not (folder / "victim").exists(), (line, ran.stderr)      # bash ran rm from the assignment
        assert decide(_BASH, {"command": line}, "bypass", DENY_RM, folder, set()) == "deny", line


def test_export_n_only_stops_exporting_and_is_matched_by_its_own_rule(tmp_path: Path):
    """`export -n X` is not a nameref (only declare, typeset and local take -n so): the child sees no X after it."""
    ran = _bash("export X=1; export -n X; bash -c 'echo ${X-unset}'; export -n Y=2; echo $Y", tmp_path)
    assert ran.stdout.split() == ["unset", "2"]
    for line in ("export -n X", "export -n X=1", "export -nf f"):
        assert not parse_command(line).opaque, line
        assert _allow("Bash(export:*)").allows("Bash", {"command": line}, "/") is not None, line
        assert DENY_RM.denies("Bash", {"command": line}, "/") is None, line
        assert PermissionRules.from_tables({"deny": ["Bash(export:*)"]}).denies("Bash", {"command": line}, "/")
    assert DENY_RM.denies("Bash", {"command": "export -n X=$(rm f)"}, "/") is not None
    assert parse_command("declare -n r=PATH; ls").opaque and parse_command("local -n r=X").opaque


def test_a_new_meaning_for_a_name_stays_opaque_alone():
    for line in ("BASH_ALIASES=([y]=rm)", "declare BASH_CMDS[ls]=/bin/rm", "BASH_ALIASES[y]=rm"):
        assert parse_command(line).opaque, line
