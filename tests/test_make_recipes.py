"""What make runs from its makefile, read for the deny rules (core/make_recipes.py, read by core/files_run.py): `make
zap` ran a recipe's `rm` past `Bash(rm:*)`, and a recipe's `cat secrets/k` past `Read(secrets/**)`.
Each case is first run by the real make, where it does what it is said to do."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.make_recipes import recipes_run
from contextual.core.permission_rules import PermissionRules

RULES = PermissionRules.from_tables({"deny": ["Bash(rm:*)", "Read(secrets/**)", "Edit(.env)"]})
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

MAKEFILE = """\
CC ?= cc
OBJS = a.o
ifeq ($(X),1)
ZAP = echo
else
ZAP = rm
endif
LIST := $(shell ls)

all: build
\t@echo built

build: $(OBJS)
\t@echo linking $(OBJS)

%.o: %.c
\t@echo compiling $< into $@

clean:
\t$(RM) prog *.o victim

zap: step
\t-$(ZAP) victim

step:
\t@echo step

leak:
\t@cat secrets/k

env:
\techo x > .env

deep:
\t$(MAKE) -C sub

inline: ; rm victim
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    (folder / "secrets").mkdir(parents=True)
    (folder / "secrets" / "k").write_text("TOKEN-hidden\n")
    (folder / ".env").write_text("E=1\n")
    (folder / "victim").write_text("keep\n")
    (folder / "a.c").write_text("int x;\n")
    (folder / "Makefile").write_text(MAKEFILE)
    (folder / "sub").mkdir()
    (folder / "sub" / "Makefile").write_text("all:\n\trm ../victim\n")
    return folder


def _make(line: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=30, check=False)


@pytest.mark.parametrize("line, rule", [
    ("make zap", "Bash(rm:*)"), ("make X=1 zap", "Bash(rm:*)"),           # both branches of the ifeq are read
    ("make clean", "Bash(rm:*)"), ("make inline", "Bash(rm:*)"), ("make deep", "Bash(rm:*)"),
    ("make -C . -s zap", "Bash(rm:*)"), ("cd sub && make", "Bash(rm:*)"), ("make -n zap", "Bash(rm:*)"),
    ("make -f Makefile zap", "Bash(rm:*)"), ("make leak", "Read(secrets/**)"), ("make env", "Edit(.env)")])
def test_the_recipes_make_runs_for_its_targets_are_read_for_the_deny_rules(root: Path, line: str, rule: str):
    if "-n" not in line and "X=1" not in line:
        ran = _make(line, root)
        assert not (root / "victim").exists() or "TOKEN-hidden" in ran.stdout or \
            (root / ".env").read_text() != "E=1\n", (line, ran.stderr)
    found = RULES.denies("Bash", {"command": line}, str(root))
    assert found is not None and found.text == rule, line


@pytest.mark.parametrize("line", ["make", "make build", "make a.o", "make -j4 step", "make test",
                                  "make -f Makefile step"])
def test_a_target_whose_recipes_run_nothing_denied_runs(root: Path, line: str):
    assert RULES.denies("Bash", {"command": line}, str(root)) is None, line
    _make(line, root)
    assert (root / "victim").exists(), line


@pytest.mark.parametrize("line", ["make $T", "make --eval='x:;rm victim' x", "echo 'x:' > Makefile; make",
                                  "make -f - zap"])
def test_recipes_only_known_when_make_runs_hold_every_bash_rule(root: Path, line: str):
    assert PermissionRules.from_tables({"deny": ["Bash(curl:*)"]}).denies("Bash", {"command": line}, str(root))


def test_a_makefile_s_variables_functions_and_includes_are_read_as_make_reads_them(root: Path):
    assert recipes_run(("make", "step"), str(root)).lines == ("ls", "echo step")    # `:=` runs its shell at once
    (root / "inc.mk").write_text("KILL = rm\n")
    (root / "Makefile").write_text("include inc.mk\nx:\n\t$(KILL) -f $@ $(notdir y)\n")
    assert recipes_run(("make",), str(root)).lines == ('rm -f x "$__MAKE__"',)
    (root / "Makefile").write_text("x:\n\t$(eval Y := 1)\n")
    assert recipes_run(("make",), str(root)) is None
    (root / "Makefile").write_text("SHELL = ./s.sh\nx:\n\ttrue\n")
    assert recipes_run(("make",), str(root)) is None                 # recipes run by a program of the project
    # a rule's targets and prerequisites made as make makes them; one made by a function may be any target
    (root / "Makefile").write_text("P = app\nO = $(S:.c=.o)\nS = a.c\nall: app\n$(P): $(O)\n\trm $@\n"
                                   "%.o: %.c\n\tcc $<\n")
    assert recipes_run(("make",), str(root)).lines == ("rm app", "cc a.c")
    (root / "Makefile").write_text("all: $(firstword zap)\nzap:\n\trm victim\n")
    assert recipes_run(("make",), str(root)).lines == ("rm victim",)
    (root / "sub" / "Makefile").write_text("x:\n\t$(CMD) f\n")                 # the line's values, then make's
    assert recipes_run(("make", "CMD=rm", "x"), str(root / "sub"), [("CMD", "ls")]).lines == ("rm f",)
    assert recipes_run(("make", "x"), str(root / "sub"), [("CMD", "rm")]).lines == ("rm f",)
