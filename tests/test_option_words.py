"""Words bash expands to options (core/bash_files/option_words.py): a glob naming a file whose name starts with `-`,
a brace word spelling one, a variable the line gives such a value. `sed -n p *` beside a file named `-e1e rm
victim`, and `F='-e1e rm victim'; sed -n p "$F" x`, removed victim past `Bash(rm:*)`: the word was read as an
operand. Each case is first run by bash, where it does what it is said to do.

Also: a variable that makes an innocent program load code from a file (`LD_LIBRARY_PATH`, `PYTHONPATH`) is allowed
by no allow rule (core/permission_rules.py: loads_code)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules

DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})


def _folder(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "victim").write_text("keep\n")
    (folder / "x").write_text("rm victim\n")
    for name in names:
        (folder / name).write_text("a\n")
    return folder


def _bash(line: str, folder: Path) -> None:
    subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                   check=False)


@pytest.mark.parametrize("line, names", [
    ("sed -n p *", ("-e1e rm victim",)),
    ("tar cf a.tar *", ("--checkpoint=1", "--checkpoint-action=exec=sh x")),     # tar was opaque already
    ("F='-e1e rm victim'; sed -n p \"$F\" x", ()),
    ("sed -n p {'-e1e rm victim',x}", ()),
    ("cd sub && sed -n p *", ("sub/-e1e cd ..;rm victim", "sub/a"))])
def test_a_word_bash_expands_to_an_option_is_judged_as_that_option(tmp_path: Path, line: str, names: tuple[str, ...]):
    if shutil.which(line.split()[0] if "sed" not in line else "sed") is None:
        pytest.skip("not installed")
    folder = _folder(tmp_path)
    for name in names:
        (folder / name).parent.mkdir(exist_ok=True)     # a file of `sub`, named with its folder
        (folder / name).write_text("a\n")
    _bash(line, folder)
    assert not (folder / "victim").exists(), line
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line


@pytest.mark.parametrize("line", ["sed -n p *", "sed -n p -- *", "tar cf a.tar -- *", "sed -n p ./*", "ls *"])
def test_a_glob_that_names_no_option_or_comes_after_dashdash_is_read_as_before(tmp_path: Path, line: str):
    folder = _folder(tmp_path, "a.txt", *(["-e1e rm victim"] if "--" in line or "./" in line else []))
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is None, line
    _bash(line, folder)
    assert (folder / "victim").exists(), line


def test_a_variable_that_makes_a_program_load_the_folder_s_code_is_allowed_by_no_rule_but_its_interpreter(
        tmp_path: Path):
    """`LD_LIBRARY_PATH=. ls` loads a libc the folder may hold, `PYTHONPATH=. pip list` a sitecustomize.py: the
    allow rule named ls and pip. Python under PYTHONPATH runs what it runs anyway (its own code)."""
    allow = PermissionRules.from_tables({"allow": ["Bash(ls:*)", "Bash(pip list)", "Bash(python -m pytest:*)",
                                                   "Bash(node:*)", "Bash(python3:*)", "Bash(export:*)"]})
    for line in ("LD_LIBRARY_PATH=. ls", "PYTHONPATH=. pip list", "export PYTHONPATH=$PWD; pip list",
                 "env NODE_OPTIONS=--require=./x.js ls", "LD_LIBRARY_PATH=. python -m pytest"):
        assert allow.allows("Bash", {"command": line}, str(tmp_path)) is None, line
    for line in ("ls", "pip list", "PYTHONPATH=. python -m pytest -q", "NODE_OPTIONS=--require=./x.js node a.js",
                 "export PYTHONPATH=$PYTHONPATH:.; python3 x.py"):
        assert allow.allows("Bash", {"command": line}, str(tmp_path)) is not None, line
