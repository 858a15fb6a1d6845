"""A word only known when the line runs (`$X`, `$(cat f)`, a glob) may be several words, or none, or an option: bash
splits an unquoted one at blanks, and a program reads a quoted one as any word. Where a wrapper's words say which
one is the command (`nice -n $N CMD`), where find's say which are actions, where getopt reads a later option over an
earlier one (`su root -c ls "$X"`), and where a deny rule names several words (`Bash(git push origin main:*)`), such
a word was read as exactly one word: a file the model wrote (Write is allowed) ran rm past `Bash(rm:*)`. Each line
is first run by bash in a scratch folder, where it does what it is said to do."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.shell.parse import parse_command

DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})


def _bash(line: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=20, check=False)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "victim").write_text("keep\n")
    (folder / "n").write_text("1 rm")                           # `nice -n $(cat n) -f echo victim`
    (folder / "k").write_text("KILL 5 rm -f")                   # `timeout -s $(cat k) 5 echo victim`
    (folder / "o").write_text("-name victim -exec rm {} ;")     # `find . $(cat o)`
    (folder / "a").write_text("x -o -name victim -exec rm {} ;")            # `find . -name $(cat a)`
    (folder / "e").write_text("x ; -name victim -exec rm {}")               # `find . -exec echo $(cat e) ';'`
    (folder / "x").write_text("-crm victim")                    # `su root -c ls "$(cat x)"`
    (folder / "b").write_text("errexit,-c,rm victim")           # `IFS=,; bash -o $(cat b) -c echo`
    return folder


@pytest.mark.parametrize("line", [
    "nice -n $(cat n) -f echo victim", "timeout -s $(cat k) 5 echo victim", "xargs -n $(cat n) -f echo victim <<< ''",
    "IFS=,; bash -o $(cat b) -c echo", "IFS=,; B=$(cat b); bash -o $B -c echo",
    "find . $(cat o)", "find . -name $(cat a)", "find . -exec echo $(cat e) ';'",
])
def test_an_unquoted_unknown_word_in_a_wrappers_words_leaves_what_runs_unknown(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)       # bash ran rm
    assert parse_command(line).opaque, line
    assert PermissionRules.from_tables({"deny": ["Bash(curl:*)"]}).denies("Bash", {"command": line}, str(folder))


@pytest.mark.parametrize("line", [
    'su root -c ls "$(cat x)"', 'X=$(cat x); su root -c ls "$X"',
    "find . -exec echo \"$(printf ';')\" -exec rm victim ';'",
])
def test_a_quoted_unknown_word_that_may_be_an_option_or_an_actions_end_leaves_it_unknown(tmp_path: Path, line: str):
    if line.startswith(("su", "X=")) and (shutil.which("su") is None or _bash("id -u", tmp_path).stdout != "0\n"):
        pytest.skip("su to root needs root")
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)
    assert parse_command(line).opaque, line
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None


@pytest.mark.parametrize("line", [
    'sudo -u "$U" ls', 'kubectl -n "$NS" get pods', 'nice -n "$N" ls', 'ls $HOME', "find . -name '*.py'",
    "exec {fd}>/tmp/lock; flock -n $fd", 'bash -o "$X" -c ls', 'awk -v "$X" 1 f', "sh -c 'echo \"$1\"' _ $X",
])
def test_a_word_that_stays_one_word_is_read_as_before(line: str):
    assert not parse_command(line).opaque, line
    assert DENY_RM.denies("Bash", {"command": line}, "/") is None, line


@pytest.mark.parametrize("line", [
    "exec {fd}>/tmp/lock; fd='x rm'; flock -n $fd", "exec {fd}>/tmp/lock; printf -vfd 'x rm'; flock -n $fd",
    "IFS=1; exec {fd}>/tmp/lock; flock -n $fd",
])
def test_a_descriptors_variable_set_otherwise_on_the_line_may_be_several_words(line: str):
    assert parse_command(line).opaque, line


@pytest.mark.parametrize("rule, line", [
    ("Bash(git push origin main:*)", "git push $(cat r)"), ("Bash(git push origin main:*)", "git $(cat r) main"),
    ("Bash(git push origin main)", "git push $R"), ("Bash(terraform destroy -auto-approve:*)", "terraform $(cat t)"),
    ("Bash(npm publish)", "npm publish $X"),
])
def test_a_deny_rule_of_several_words_holds_where_one_unknown_word_may_be_them(rule: str, line: str):
    assert PermissionRules.from_tables({"deny": [rule]}).denies("Bash", {"command": line}, "/") is not None, line


def test_a_deny_rule_of_several_words_still_needs_the_known_ones():
    deny = PermissionRules.from_tables({"deny": ["Bash(git push origin main:*)", "Bash(npm publish)"]})
    for line in ("git push origin dev", "git status", "git commit -m main", "npm publish x", "ls $X"):
        assert deny.denies("Bash", {"command": line}, "/") is None, line


def test_a_split_word_really_is_several_words(tmp_path: Path):
    """What the deny matcher now assumes, in bash: an unquoted substitution is split at blanks."""
    (tmp_path / "r").write_text("origin main")
    assert _bash("printf '<%s>' git push $(cat r)", tmp_path).stdout == "<git><push><origin><main>"
    assert _bash("printf '<%s>' git push \"$(cat r)\"", tmp_path).stdout == "<git><push><origin main>"
