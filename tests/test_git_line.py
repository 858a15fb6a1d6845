"""git's own options before its sub-command, read once (core/git_line.py) for what a git line runs from files, what
it writes and where `git submodule foreach` runs its command. Each case is checked against the real git: the file
it writes is the one an Edit deny rule holds for, and a line git runs nothing for is not refused. Before, the three
readers walked the options apart: `--shallow-file F` (a value-taking option of every git) was missing, so
`git --shallow-file /dev/null checkout -- secrets/k` rewrote a protected file; the writes' reader went on past
`--version`; `git -C ~/p submodule foreach CMD` was read from a folder named `~` below the one git runs in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from contextual.core.git_line import GitLine, git_line
from contextual.core.permission_rules import PermissionRules

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x",
           "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with secrets/k, holding a nested one `sub` with its own secrets/k; both files changed since
    their commits, so a `checkout --` that writes one puts back its committed text."""
    monkeypatch.setenv("HOME", str(tmp_path))          # no config of this machine's
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "proj"
    for repo in (root, root / "sub"):
        (repo / "secrets").mkdir(parents=True)
        (repo / "secrets" / "k").write_text("committed\n")
        _git(repo, "git init -q -b main && git add secrets && git commit -q -m k")
        (repo / "secrets" / "k").write_text("changed\n")
    return root


def _git(folder: Path, line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(line, shell=True, cwd=folder, check=False, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30)


def _denied(root: Path, rule: str, command: str) -> bool:
    rules = PermissionRules.from_tables({"deny": [rule]})
    return rules.denies("Bash", {"command": command}, str(root)) is not None


def _written(root: Path) -> set[str]:
    return {name for name in ("secrets/k", "sub/secrets/k") if (root / name).read_text() == "committed\n"}


@pytest.mark.parametrize("command, writes", [
    ("git --shallow-file /dev/null checkout -- secrets/k", "secrets/k"),
    ("git --shallow-file /dev/null -C sub checkout -- secrets/k", "sub/secrets/k"),
    ("git -C sub checkout -- secrets/k", "sub/secrets/k"),
    ("git -C '' -C sub --no-pager checkout -- secrets/k", "sub/secrets/k"),
    ("git -c core.quotepath=off --literal-pathspecs -C sub checkout -- secrets/k", "sub/secrets/k"),
    ("git -C sub --git-dir=../.git --work-tree .. checkout -- ../secrets/k", "secrets/k"),
])
def test_the_file_git_writes_past_its_own_options_is_the_one_an_edit_rule_holds_for(project: Path, command: str,
                                                                                    writes: str) -> None:
    other = ({"secrets/k", "sub/secrets/k"} - {writes}).pop()
    assert _denied(project, f"Edit({writes})", command), command
    assert not _denied(project, f"Edit({other})", command), command
    assert _git(project, command).returncode == 0
    assert _written(project) == {writes}


@pytest.mark.parametrize("command", [
    "git --version checkout -- secrets/k", "git --exec-path checkout -- secrets/k",
    "git --list-cmds=main checkout -- secrets/k", "git -C sub --html-path checkout -- secrets/k"])
def test_a_line_git_runs_nothing_for_after_an_option_that_ends_it_is_not_refused(project: Path,
                                                                                command: str) -> None:
    assert not _denied(project, "Edit(secrets/**)", command)
    assert not _denied(project, "Edit(sub/**)", command)
    assert _git(project, command).returncode == 0
    assert _written(project) == set()


def test_a_submodule_command_run_from_a_folder_of_home_holds_the_rules_wherever_it_runs(project: Path) -> None:
    """`~/proj/sub` is the nested repository here; its .gitmodules lists `inner`, where foreach runs `rm key`.
    Read from a folder named `~` below the project's top, the submodules were none and `rm key` was judged there."""
    (project / "sub" / ".gitmodules").write_text('[submodule "inner"]\n\tpath = inner\n')
    (project / "sub" / "inner").mkdir()
    (project / "sub" / "inner" / "key").write_text("k\n")
    rule = "Edit(sub/inner/key)"
    assert _denied(project, rule, "git -C sub submodule foreach rm key")
    assert _denied(project, rule, "git -C ~/proj/sub submodule foreach rm key")
    assert not _denied(project, rule, "git -C sub submodule foreach ls")


def test_git_s_own_options_its_folders_settings_and_sub_command_are_told_apart() -> None:
    line = git_line(["-C", "a", "-c", "x.y=1", "--no-pager", "--git-dir", "g", "-C", "b", "commit", "-m", "m"])
    assert line == GitLine(options=("-C", "a", "-c", "x.y=1", "--no-pager", "--git-dir", "g", "-C", "b"),
                           folders=("a", "b"), settings=("x.y=1",), git_dirs=("g",),
                           others=("--no-pager", "--git-dir", "g"), sub="commit", args=("-m", "m"))
    assert git_line(["--html-path"]) == GitLine(options=()) and git_line(["-C"]).sub == ""
    assert git_line(["-C", "a", "--help", "push"]) == GitLine(options=("-C", "a"), folders=("a",), sub="help",
                                                              args=("push",))
    assert git_line(["-v", "push"]).sub == "version" and git_line(["-h"]).sub == "help"
    assert git_line(["--work-tree=w", "--shallow-file", "f", "status"]).work_trees == ("w",)
    assert git_line(["--shallow-file", "f", "status"]).sub == "status"
    unknown = git_line(["-C", None, "commit"])
    assert unknown.unknown and unknown.folders_unknown and unknown.sub == "commit"
    guessed = git_line([None, "stash"])                      # `git $OPTS stash`: stash, taken for the sub-command
    assert guessed.unknown and guessed.unknown_option and guessed.sub == "stash"
    assert not git_line(["-C", None, "stash"]).unknown_option          # a value: the sub-command is known
    assert not git_line(["-c", None, "stash"]).folders_unknown    # a setting: no folder of git's
    assert git_line(["-C", "~/p", "stash"]).folders_unknown       # bash makes it $HOME's
    assert not git_line(["--work-tree=~/p", "stash"]).folders_unknown     # git reads `~` here as a folder's name
