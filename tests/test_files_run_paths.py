"""Files a Bash line has a program read by itself, for the deny rules (helper-152's red team): the lines of a script,
startup file, hook or alias a line runs are judged by the Read and Edit deny rules as the line's own words are
(core/files_run.py, core/permission_rules.py); a value the line gives a variable is a path it hands a program
(core/bash_files/reads.py, writes.py); `$SHELL` runs `-c` lines, less's key files set its environment and
GCONV_PATH names a library (core/shell/variables.py, wrappers.py); xargs hands its command the words of a file it
reads."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.shell.parse import parse_command

PATHS = PermissionRules.from_tables({"deny": ["Read(secrets/**)", "Edit(.env)"]})
DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})
# a shell script of the kind a virtualenv or a version manager's shim is: words only known when it runs, globs
SHIM = ('#!/usr/bin/env bash\nset -e\nfor f in *; do :; done\ncase "$1" in *) x="$HOME/.x" ;; esac\n'
        'cat "$x" > "$f.out"\nrm -rf "${TMPDIR:-/tmp}/$f"\nexec "$@"\n')


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A git repository holding secrets/k, .env and the files given (a file starting with `#!` or in
    .git/hooks made executable; a name ending in `+` appended to)."""
    root = tmp_path / "proj"
    (root / "secrets").mkdir(parents=True)
    (root / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "secrets" / "k").write_text("SECRET\n")
    (root / ".env").write_text("E=1\n")
    for name, text in files.items():
        path = root / name.rstrip("+")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a" if name.endswith("+") else "w") as out:
            out.write(text)
        if text.startswith("#!") or "hooks/" in name:
            path.chmod(0o755)
    return root


@pytest.mark.parametrize("files, command, denied", [
    # a script, a sourced file, a program bash runs, a startup file, a hook, an alias: each read as `bash -c` is
    ({"s.sh": "cat secrets/k\n"}, "bash s.sh", "Read(secrets/**)"),
    ({"s.sh": "echo x > .env\n"}, "bash s.sh", "Edit(.env)"),
    ({"s.sh": "head -1 secrets/k\n"}, ". ./s.sh", "Read(secrets/**)"),
    ({"s.sh": "#!/bin/sh\ncp /dev/null .env\n"}, "./s.sh", "Edit(.env)"),
    ({"f": "cat secrets/k\n"}, "BASH_ENV=f bash -c true", "Read(secrets/**)"),
    ({"f": "echo x >> .env\n"}, "bash --rcfile f -ic true", "Edit(.env)"),
    ({"sub/s.sh": "cat ../secrets/k\n"}, "cd sub && bash s.sh", "Read(secrets/**)"),     # from the folder it is in
    ({"s.sh": "cat ../secrets/k\n"}, "cd sub && bash ../s.sh", "Read(secrets/**)"),
    ({".git/hooks/pre-commit": "#!/bin/sh\necho x > .env\n"}, "git commit -q --allow-empty -m x", "Edit(.env)"),
    ({".git/config+": "[alias]\n\tx = !cat secrets/k\n"}, "git x", "Read(secrets/**)"),
    ({".git/config+": "[core]\n\tfsmonitor = cp /dev/null .env\n"}, "git status", "Edit(.env)"),
    # a file's words only known when it runs are let be, as for Bash rules (a shim's globs and variables)
    ({"s.sh": "cat \"$F\"\nls *\n"}, "bash s.sh", None), ({"s.sh": SHIM}, "bash s.sh", None),
    ({"s.sh": "cat README\necho x > out\n"}, "bash s.sh", None),
    # with no Bash deny rule, what cannot be checked is let be, as an opaque line is by these rules
    ({}, "printf 'cat secrets/%s' k > s.sh; bash s.sh", None)])
def test_the_lines_of_a_file_a_line_runs_are_judged_by_read_and_edit_deny_rules(tmp_path, files, command, denied):
    rule = PATHS.denies("Bash", {"command": command}, str(project(tmp_path, files)))
    assert (rule.text if rule else None) == denied, command


def test_a_file_that_cannot_be_checked_still_holds_a_bash_deny_rule_beside_path_rules(tmp_path):
    rules = PermissionRules.from_tables({"deny": ["Read(secrets/**)", "Bash(curl:*)"]})
    root = project(tmp_path, {"s.sh": "cat secrets/k\n"})
    assert rules.denies("Bash", {"command": "bash s.sh"}, str(root)).text == "Read(secrets/**)"
    made = "printf 'cat secrets/%s' k > t.sh; bash t.sh"
    assert rules.denies("Bash", {"command": made}, str(root)).text == "Bash(curl:*)"


@pytest.mark.parametrize("command, denied", [
    # a value given a variable names a file the program opens: bash's startup file, Python's, git's config
    ("BASH_ENV=secrets/k bash -c true", "Read(secrets/**)"), ("ENV=secrets/k sh -i -c true", "Read(secrets/**)"),
    ("PYTHONSTARTUP=secrets/k python3 -i", "Read(secrets/**)"),
    ("GIT_CONFIG_GLOBAL=secrets/k git config -l", "Read(secrets/**)"),
    ("export LESSKEYIN=./secrets/k; less README", "Read(secrets/**)"),
    ("PYTHONPATH=src:secrets python3 -c 1", "Read(secrets/**)"),
    # … or one a program writes: git's traces and index, a shell's history, Python's caches
    ("GIT_TRACE={root}/.env git status", "Edit(.env)"), ("export GIT_TRACE2_EVENT={root}/.env; git status",
                                                         "Edit(.env)"),
    ("GIT_INDEX_FILE=.env git add README", "Edit(.env)"), ("HISTFILE=.env bash -ic true", "Edit(.env)"),
    ("PYTHONPYCACHEPREFIX=. python3 -c 1", "Edit(.env)"),
    ("GIT_TRACE=1 git status", None), ("GIT_INDEX_FILE=.git/other git add README", None),
    ("HISTFILE=.hist bash -ic true", None), ("X=.env.example cat README", None)])
def test_a_file_a_variable_hands_a_program_is_named_for_read_and_edit_rules(tmp_path, command, denied):
    root = project(tmp_path, {})
    rule = PATHS.denies("Bash", {"command": command.format(root=root)}, str(root))
    assert (rule.text if rule else None) == denied, command


@pytest.mark.parametrize("files, command, denied", [
    # `$SHELL -c TEXT`: flock, script, sudo -s … run the program SHELL names
    ({"s.sh": "#!/bin/sh\nrm victim\n"}, "SHELL=./s.sh flock lk -c true", True),
    ({}, "SHELL=/bin/rm script -qc victim /dev/null", True), ({}, "export SHELL=\"$X\"; flock lk -c true", True),
    ({"s.sh": "#!/bin/sh\necho hi\n"}, "SHELL=./s.sh flock lk -c true", False),
    ({}, "SHELL=/bin/bash flock lk -c true", False),
    # less's key files set LESSOPEN, which it runs on opening a file: in its options, in any case, or LESS
    ({}, "less --lesskey-src=k README", True), ({}, "less --LESSKEY-S=k README", True), ({}, "less -Sk k f", True),
    ({}, "LESS=--lesskey-src=k less README", True), ({}, "LESSKEYIN=k less README", True),
    ({}, "LESSKEYIN_SYSTEM=k less README", True), ({}, "less -N README", False), ({}, "LESS=-R less README", False),
    # glibc loads a character set's module from GCONV_PATH (its gconv_init ran rm), as LD_PRELOAD's library
    ({}, "GCONV_PATH=. iconv -f PWN -t UTF-8 /dev/null", True), ({}, "export GCONV_PATH=$PWD; iconv -l", True)])
def test_the_program_shell_names_less_s_key_files_and_gconv_modules_hold_bash_deny_rules(tmp_path, files, command,
                                                                                         denied):
    root = project(tmp_path, files)
    assert (DENY_RM.denies("Bash", {"command": command}, str(root)) is not None) is denied, command


def test_less_is_opaque_only_where_a_key_file_sets_its_environment():
    assert parse_command("LESSKEYIN=k less README").opaque and parse_command("less --lesskey-file=k f").opaque
    assert not parse_command("less -R +G README").opaque and not parse_command("git log | less").opaque


@pytest.mark.parametrize("files, command, denied", [
    ({"list": "secrets/k\n"}, "xargs -a list cat", True), ({"list": "secrets/k\n"}, "xargs --arg-file=list cat", True),
    ({"list": "a 'secrets/k'\n"}, "xargs cat < list", True), ({"list": "README\n"}, "xargs -a list cat", False),
    # a command's output is not read, as `cat $(cat list)` is not
    ({"list": "secrets/k\n"}, "cat list | xargs cat", False)])
def test_the_words_xargs_reads_from_a_file_the_line_names_are_paths_it_hands_its_command(tmp_path, files, command,
                                                                                         denied):
    root = project(tmp_path, files)
    assert (PATHS.denies("Bash", {"command": command}, str(root)) is not None) is denied, command
