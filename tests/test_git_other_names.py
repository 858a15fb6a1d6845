"""git under its other names and spellings, against the deny rules, each line run by the real git to show what it
does (helper-151's red team): git's own program named `git-SUB` (in its exec path, a link so named, `exec -a`),
`git --help`/`-h` (the `help` sub-command: the man viewer a config names), `git submodule--helper foreach`, a
viewer's or tool's `.path` setting, `/usr/bin/git show REV:PATH`, object names read on standard input, and the files
sub-commands write by a name (`--output` of any sub-command, `bundle create F`, `config -f F` …). Before, each of
these ran past the rule it meets here. The deny rules' reading of a git line's own options is core/git_line.py's
now, as for the other readers: a line git refuses or runs nothing for is not read as running its sub-command."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.shell.parse import parse_command

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x", "GIT_EDITOR": "true", "GIT_PAGER": "cat"}
SCRIPT = "#!/bin/sh\ntouch made\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with secrets/k (committed, then changed), two commits, pushed once to a bare `remote.git`."""
    monkeypatch.setenv("HOME", str(tmp_path))          # no config of this machine's
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "proj"
    (root / "secrets").mkdir(parents=True)
    (root / "secrets" / "k").write_text("committed\n")
    (root / "a").write_text("a\n")
    _git(tmp_path, "git init -q --bare remote.git")
    _git(root, "git init -q -b main && git add . && git commit -qm one && git remote add origin ../remote.git "
               "&& git push -q origin main && echo b > a && git commit -qam two")
    (root / "secrets" / "k").write_text("changed\n")
    return root


def _git(folder: Path, line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=folder, check=False, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def _denied(root: Path, rule: str, command: str) -> bool:
    return PermissionRules.from_tables({"deny": [rule]}).denies("Bash", {"command": command}, str(root)) is not None


def _pushed(root: Path) -> bool:
    return _git(root, "git rev-parse main").stdout == _git(root, "git --git-dir=../remote.git rev-parse main").stdout


def _exec_path() -> Path:
    return Path(_git(Path.cwd(), "git --exec-path").stdout.strip())


@pytest.mark.parametrize("command", [
    "exec -a git-push git origin main", "./git-push origin main", "EXEC/git-push origin main",
    "bash -c 'exec -a git-push git origin main'"])
def test_git_started_as_git_push_is_a_git_push(project: Path, command: str) -> None:
    """git reads its own name first: run as `git-push` it pushes, whatever words follow."""
    push = _exec_path() / "git-push"
    if "EXEC/" in command and not push.exists():
        pytest.skip("this git keeps no git-push in its exec path")
    command = command.replace("EXEC/", f"{_exec_path()}/")
    os.symlink(shutil.which("git") or "git", project / "git-push")
    assert _denied(project, "Bash(git push:*)", command)
    assert not _pushed(project) and _git(project, command).returncode == 0 and _pushed(project)


@pytest.mark.parametrize("rule, command", [
    ("Bash(git reset:*)", "exec -a git-reset git HEAD~1 --hard"),
    ("Edit(secrets/**)", "exec -a git-reset git HEAD~1 --hard"),
    ("Edit(secrets/**)", "exec -a git-checkout git -- secrets/k"),
    ("Edit(secrets/**)", "./git-stash"),
])
def test_git_started_as_git_sub_holds_that_sub_command_s_rules(project: Path, rule: str, command: str) -> None:
    os.symlink(shutil.which("git") or "git", project / "git-stash")
    assert _denied(project, rule, command), command
    assert _git(project, command).returncode == 0 and (project / "secrets" / "k").read_text() == "committed\n"


def test_a_rebase_started_as_git_rebase_runs_its_exec_line(project: Path) -> None:
    _git(project, "git stash -q")
    command = "exec -a git-rebase git HEAD~1 -x 'touch made'"
    assert _denied(project, "Bash(touch:*)", command)
    assert _git(project, command).returncode == 0 and (project / "made").exists()


@pytest.mark.parametrize("command", ["git --help push", "git -h push", "git -C . --help push", "git help push"])
def test_git_help_in_each_spelling_runs_the_man_viewer_the_config_names(project: Path, command: str) -> None:
    """`git --help push` is `git help push`: it runs `man.<viewer>.cmd` from the repository's config."""
    _git(project, "git config man.viewer v && git config man.v.cmd 'touch made #'")
    assert _denied(project, "Bash(touch:*)", command)
    assert _git(project, command).returncode == 0 and (project / "made").exists()


@pytest.mark.parametrize("command, config", [
    ("git -c man.viewer=man -c man.man.path=./v.sh help push", ""),
    ("git help push", "git config man.viewer man && git config man.man.path ./v.sh"),
    ("git -c diff.tool=vimdiff -c difftool.vimdiff.path=./v.sh difftool -y HEAD~1", ""),
    ("git difftool -y -t vimdiff HEAD~1", "git config difftool.vimdiff.path ./v.sh"),
])
def test_the_program_a_viewer_s_or_tool_s_path_setting_names_is_read(project: Path, command: str,
                                                                     config: str) -> None:
    (project / "v.sh").write_text(SCRIPT)
    (project / "v.sh").chmod(0o755)
    if config:
        _git(project, config)
    assert _denied(project, "Bash(touch:*)", command)
    assert _git(project, command).returncode == 0 and (project / "made").exists()


def test_submodule_helper_foreach_runs_its_command_in_each_submodule(project: Path) -> None:
    source = project.parent / "lib"
    _git(project.parent, "git init -q -b main lib && git -C lib commit -q --allow-empty -m s")
    _git(project, f"git -c protocol.file.allow=always submodule add -q {source} sm && git commit -qm sm")
    command = "git submodule--helper foreach 'touch ../made'"
    assert _denied(project, "Bash(touch:*)", command)
    assert not _denied(project, "Bash(touch:*)", "git submodule--helper foreach 'ls'")
    assert _git(project, command).returncode == 0 and (project / "made").exists()


@pytest.mark.parametrize("command", [
    "GIT show HEAD:secrets/k", "git cat-file --batch <<< HEAD:secrets/k", "echo HEAD:secrets/k | git cat-file --batch",
    "git show --stdin <<< HEAD:secrets/k"])
def test_a_committed_file_shown_by_git_s_path_or_named_on_its_input_holds_the_read_rule(project: Path,
                                                                                         command: str) -> None:
    command = command.replace("GIT ", f"{shutil.which('git')} ")
    assert _denied(project, "Read(secrets/**)", command)
    assert not _denied(project, "Read(secrets/**)", command.replace("secrets/k", "a"))
    assert "committed" in _git(project, command).stdout


@pytest.mark.parametrize("command", [
    "git rev-list --all --output secrets/k", "git blame a --output=secrets/k", "git shortlog -1 HEAD --output=secrets/k",
    "git reflog --output=secrets/k", "git fast-export HEAD --output=secrets/k", "git bundle create secrets/k HEAD",
    "git -C secrets bundle create -q k HEAD", "git config -f secrets/k a.b c", "git config --file=secrets/k a.b c",
    "git fast-export --export-marks=secrets/k HEAD", "git read-tree --index-output=secrets/k HEAD",
    "git checkout -- 'secrets\\/k'", "git restore -- 'secret\\s/k'", "git mailinfo secrets/k p < m",
    "git credential-store --file secrets/k store < c", "git index-pack -o secrets/k p.pack",
])
def test_a_file_a_git_sub_command_writes_by_its_name_holds_the_edit_rule(project: Path, command: str) -> None:
    (project / "m").write_text("From: a <a@b>\nSubject: x\n\nbody\n")
    (project / "c").write_text("protocol=https\nhost=x\nusername=u\npassword=p\n\n")
    _git(project, "git rev-parse HEAD | git pack-objects --revs p > /dev/null && mv p-*.pack p.pack")
    assert _denied(project, "Edit(secrets/**)", command)
    if "\\" not in command:        # a pathspec with a backslash is a glob: the folder before it counts
        assert not _denied(project, "Edit(secrets/**)", command.replace("secrets", "out"))
    assert _git(project, command).returncode == 0 and (project / "secrets" / "k").read_bytes() != b"changed\n"


@pytest.mark.parametrize("command", ["git diagnose -o secrets", "git pack-objects secrets/k < o",
                                     "git mailsplit -osecrets m"])
def test_a_new_file_a_git_sub_command_writes_into_a_protected_folder_holds_the_edit_rule(project: Path,
                                                                                        command: str) -> None:
    (project / "m").write_text("From x Mon Sep 17 00:00:00 2001\nFrom: a <a@b>\nSubject: x\n\nbody\n")
    _git(project, "git rev-parse HEAD > o")
    assert _denied(project, "Edit(secrets/**)", command)
    assert _git(project, command).returncode == 0 and len(os.listdir(project / "secrets")) > 1


@pytest.mark.parametrize("command", [
    "git --version rebase -x 'touch made' HEAD~1", "git -v rebase -x 'touch made' HEAD~1",
    "git --html-path rebase -x 'touch made' HEAD~1", "git -c alias.x=rebase --help x -x 'touch made' HEAD~1"])
def test_a_line_git_runs_nothing_of_is_not_read_as_running_its_sub_command(project: Path, command: str) -> None:
    """`--version`, `--html-path` and `--help` end what git reads of the line (`git --help x` says what the alias
    x is): the rules' reading of git's own options is core/git_line.py's, as for the other readers."""
    _git(project, "git stash -q")
    assert not _denied(project, "Bash(touch:*)", command)
    _git(project, command)
    assert not (project / "made").exists()
    assert _denied(project, "Bash(touch:*)", "git -C . -c alias.x=rebase x -x 'touch made' HEAD~1")


@pytest.mark.parametrize("command", ["git -calias.x='!touch made' x", "git --git-d .git rebase -x 'touch made' HEAD~1",
                                     "git -pc alias.x='!touch made' x"])
def test_a_line_git_refuses_is_not_read_as_running_what_its_options_name(project: Path, command: str) -> None:
    """git takes no bundle, attached value or start of its own options: it refuses the line (the rule still holds,
    as git fails where it is asked about the repository with those options)."""
    assert not any("touch" in words for words in parse_command(command).commands)
    assert _git(project, command).returncode == 129 and not (project / "made").exists()
    assert any("touch" in words for words in parse_command("git -c alias.x='!touch made' x").commands)
