"""Read, Edit and Write deny rules and git's commands that run or write in folders the line does not name: `git
submodule foreach CMD` runs CMD in each submodule's folder (core/bash_files/git_submodules.py), `git clone`
and `git init` make a folder (core/bash_files/git_writes.py). Before, `git submodule foreach 'echo x >
../.env'` was read from the project's top and rewrote the protected .env under `Edit(.env)`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x",
           "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x", "GIT_ALLOW_PROTOCOL": "file"}


def _git(project: Path, line: str) -> None:
    env = {**os.environ, **GIT_ENV, "HOME": str(project.parent / "home")}
    subprocess.run(line, shell=True, cwd=project, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with a submodule `libs/a` that has a submodule `deep/b` of its own; .env and secrets/k at the top."""
    base = tmp_path_factory.mktemp("sub")
    for name in ("b", "a"):
        origin = base / f"origin-{name}"
        origin.mkdir()
        _git(origin, "git init -q -b main && echo x > f && git add f && git commit -q -m x")
    _git(base / "origin-a", f"git -c protocol.file.allow=always submodule -q add {base / 'origin-b'} deep/b && "
                            "git commit -q -m b")
    project = base / "proj"
    project.mkdir()
    _git(project, f"git init -q -b main && git -c protocol.file.allow=always submodule -q add {base / 'origin-a'} "
                  "libs/a && git -c protocol.file.allow=always submodule -q update --init --recursive && "
                  "mkdir secrets && echo k > secrets/k && echo SECRET > .env && git commit -q -m a")
    return project


def _denied(project: Path, rule: str, command: str) -> bool:
    rules = PermissionRules.from_tables({"deny": [rule]})
    return rules.denies("Bash", {"command": command}, str(project)) is not None


def test_the_premise_foreach_runs_its_command_in_each_submodule_s_folder(repo: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    _git(tmp_path, f"cp -a {repo} {copy}")
    _git(copy, f"git submodule foreach --recursive 'pwd >> {tmp_path / 'where'}'")
    where = (tmp_path / "where").read_text().split()
    assert where == [str(copy / "libs/a"), str(copy / "libs/a/deep/b")]


@pytest.mark.parametrize("rule, command", [
    ("Edit(.env)", "git submodule foreach 'echo x > ../../.env'"),
    ("Edit(.env)", "git submodule foreach --recursive 'rm -f ../../../../.env'"),
    ("Edit(.env)", "git submodule --quiet foreach 'cp f ../../.env'"),
    ("Edit(secrets/**)", "git submodule foreach 'echo x > ../../secrets/k'"),
    ("Read(.env)", "git submodule foreach 'cat ../../.env'"),
    ("Read(.env)", "git submodule foreach --recursive 'cat ../../../../.env'"),
    ("Read(secrets/**)", "git -C libs submodule foreach 'head ../../secrets/k'"),
])
def test_a_command_foreach_runs_is_read_from_each_submodule_s_folder(repo: Path, rule: str, command: str) -> None:
    assert _denied(repo, rule, command)


@pytest.mark.parametrize("command", [
    "git submodule foreach git status", "git submodule foreach --recursive 'git pull -q'",
    "git submodule foreach 'echo $name > log.txt'", "git submodule foreach 'cat f'",
])
def test_the_usual_foreach_lines_stay_allowed(repo: Path, command: str) -> None:
    assert not any(_denied(repo, rule, command) for rule in ("Edit(.env)", "Read(.env)", "Edit(secrets/**)"))


def test_where_gitmodules_does_not_say_a_path_may_be_the_project_s_own(tmp_path: Path) -> None:
    """A .gitmodules this reading cannot read (a quoted path): what CMD writes may be any file of the project, and
    a path above its folder is read from the top as well."""
    project = tmp_path / "p"
    project.mkdir()
    _git(project, "git init -q && echo SECRET > .env")
    (project / ".gitmodules").write_text('[submodule "a"]\n\tpath = "libs/a"\n\turl = x\n')
    assert _denied(project, "Edit(.env)", "git submodule foreach 'echo x > ../../.env'")
    assert _denied(project, "Edit(.env)", "git submodule foreach 'echo x > log.txt'")     # the cost
    assert _denied(project, "Read(.env)", "git submodule foreach 'cat ../../.env'")
    assert not _denied(project, "Edit(.env)", "git submodule foreach git status")


@pytest.mark.parametrize("rule, command, denied", [
    ("Edit(secrets/**)", "git clone https://example.com/x/y.git secrets/y", True),
    ("Edit(secrets/**)", "git clone -q --depth 1 https://example.com/x/secrets.git/", True),
    ("Edit(secrets/**)", "git clone --bare ../secrets", False),        # makes secrets.git
    ("Edit(secrets/**)", "git -C secrets clone https://example.com/x/y", True),
    ("Edit(secrets/**)", "git init secrets/new", True),
    ("Edit(secrets/**)", "git init --separate-git-dir=secrets/g vendor/x", True),
    ("Edit(secrets/**)", "git clone https://example.com/x/y.git vendor/y", False),
    ("Edit(.env)", "git init", False),
])
def test_clone_and_init_write_the_folder_they_make(repo: Path, rule: str, command: str, denied: bool) -> None:
    assert _denied(repo, rule, command) is denied


def test_a_line_that_rewrites_gitmodules_first_leaves_the_submodules_unsaid(repo: Path):
    """The files as they are say where CMD runs only until the line changes them: a new .gitmodules may name a
    submodule folder it did not."""
    line = "printf '[submodule \"x\"]\\n\\tpath = libs/a/deep\\n' > .gitmodules; git submodule foreach 'echo x > log'"
    assert _denied(repo, "Edit(.env)", line)
    assert not _denied(repo, "Edit(.env)", "git submodule foreach 'echo x > log'")
