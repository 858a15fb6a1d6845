"""What npm, yarn, pnpm and bun run from package.json's scripts, read for the deny rules (core/package_scripts.py,
read by core/files_run.py): `npm test` ran a test script's `rm` past `Bash(rm:*)` (helper-152)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from contextual.core.package_scripts import Scripts, scripts_run
from contextual.core.permission_rules import PermissionRules

RULES = PermissionRules.from_tables({"deny": ["Bash(rm:*)", "Read(secrets/**)", "Edit(.env)"]})


def package(folder: Path, **scripts: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}))
    return folder


@pytest.mark.parametrize("scripts, command, denied", [
    ({"test": "rm victim"}, "npm test", "Bash(rm:*)"), ({"pretest": "rm -f x", "test": "true"}, "npm t", "Bash(rm:*)"),
    ({"posttest": "rm -f x", "test": "true"}, "npm test", "Bash(rm:*)"),
    ({"build": "rm -rf dist"}, "npm run build", "Bash(rm:*)"), ({"b": "rm"}, "npm run b -- victim", "Bash(rm:*)"),
    ({"build": "bash b.sh"}, "npm run-script build", "Bash(rm:*)"),            # a script it runs is read too
    ({"build": "cat secrets/k"}, "npm run build", "Read(secrets/**)"),
    ({"build": "echo x > .env"}, "npm run build", "Edit(.env)"),
    ({"postinstall": "rm -rf x"}, "npm ci", "Bash(rm:*)"), ({"prepare": "rm -rf x"}, "yarn", "Bash(rm:*)"),
    ({"build": "rm -rf x"}, "yarn build", "Bash(rm:*)"), ({"lint": "rm -rf x"}, "pnpm run lint", "Bash(rm:*)"),
    ({"dev": "rm -rf x"}, "bun dev", "Bash(rm:*)"), ({"test": "rm -rf x"}, "cd sub && npm test", "Bash(rm:*)"),
    # the line writes package.json first, or names another package's folder: not known, every Bash rule holds
    ({"test": "true"}, "echo '{}' > package.json; npm test", "Bash(rm:*)"),
    ({"test": "true"}, "npm --prefix \"$D\" test", "Bash(rm:*)"), ({"test": "true"}, "npm run \"$X\"", "Bash(rm:*)"),
    # the folder an option names, and an option's value that is not the sub-command
    ({"test": "true"}, "npm --prefix sub test", None), ({"test": "rm -f x"}, "yarn --cwd sub/.. test", "Bash(rm:*)"),
    ({"test": "rm -f x"}, "pnpm --filter web test", "Bash(rm:*)"), ({"test": "rm -f x"}, "npm -w test run lint", None),
    # what it does not run, and scripts without a denied command
    ({"test": "jest", "clean": "rm -rf dist"}, "npm test", None), ({"clean": "rm -rf dist"}, "npm run build", None),
    ({"test": "rm -rf x"}, "bun test", None), ({"test": "rm -rf x"}, "npm view x", None),
    ({"test": "pytest -q"}, "npm install-test", None)])
def test_the_scripts_a_package_manager_runs_are_read_for_the_deny_rules(tmp_path, scripts, command, denied):
    root = package(tmp_path / "proj", **scripts)
    (root / "sub").mkdir()
    (root / "b.sh").write_text("rm -rf build\n")
    rule = RULES.denies("Bash", {"command": command}, str(root))
    assert (rule.text if rule else None) == denied, command


def test_the_nearest_package_json_up_is_read_and_its_scripts_run_in_its_folder(tmp_path):
    root = package(tmp_path / "proj", test="bash t.sh --ci")
    (root / "a" / "b").mkdir(parents=True)
    assert scripts_run(("npm", "test"), str(root / "a" / "b")) == Scripts(("bash t.sh --ci",), str(root),
                                                                           str(root / "package.json"))
    assert scripts_run(("npm", "run", "test", "--", "-k", "x y"), str(root)).lines == ("bash t.sh --ci -k 'x y'",)
    assert scripts_run(("npm", "test"), str(tmp_path)) == Scripts()        # none up from here: nothing runs


def test_a_package_json_that_is_not_a_file_or_not_json_is_not_read_as_scripts(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    os.mkfifo(root / "package.json")                     # it would block the check for good
    assert scripts_run(("npm", "test"), str(root)) is None
    (root / "package.json").unlink()
    (root / "package.json").write_text("{not json")      # npm stops at it: no script runs
    assert scripts_run(("npm", "test"), str(root)).lines == ()


def test_more_script_text_than_a_check_reads_holds_every_bash_rule(tmp_path):
    """Each command read costs about a millisecond: a checkout's test script of 500,000 harmless `true;` (under the
    1 MB a package.json may have) held the check of `npm test` for minutes once its own deny rule had it checked.
    Past MAX_TEXT of text in one check, what runs is not known: every Bash deny rule holds it."""
    from contextual.core.files_run import MAX_TEXT
    root = package(tmp_path / "p", test="true;" * (MAX_TEXT // 5 + 1))
    assert RULES.denies("Bash", {"command": "npm test"}, str(root)).text == "Bash(rm:*)"
    assert RULES.denies("Bash", {"command": "npm test"}, str(package(tmp_path / "q", test="true;" * 1000))) is None
