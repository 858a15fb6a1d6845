"""What make runs from its makefile, read for the deny rules (core/make_recipes.py, read by core/files_run.py): `make
zap` ran a recipe's `rm` past `Bash(rm:*)`, and a recipe's `cat secrets/k` past `Read(secrets/**)`.
Each case is first run by the real make, where it does what it is said to do."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.make_recipes import MAX_FILES, recipes_run
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
    # SHELL as a login shell sets it: make's `--eval` in MAKEFLAGS runs `$(shell …)` before make's own default exists
    env = {**os.environ, "SHELL": "/bin/sh"}
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=30, check=False, env=env)


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


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "q"
    folder.mkdir(parents=True)
    (folder / "victim").write_text("keep\n")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


ALL = "all:\n\t@echo all\n"
ZAP = "all: zap\nzap:\n\trm -f victim\n"


@pytest.mark.parametrize("line, files", [
    # an include's words as make expands them: `$(wildcard …)` as the folder is now, a variable with each value
    ("make", {"Makefile": ALL + "include $(wildcard *.d)\n", "a.d": ZAP, "b.d": "x.o: x.c\n"}),
    ("make INC=b.mk", {"Makefile": "INC = a.mk\ninclude $(INC)\n" + ALL, "a.mk": "X = 1\n", "b.mk": ZAP}),
    ("make -I inc", {"Makefile": ALL + "-include z.mk\n", "inc/z.mk": ZAP}),
    # make updates each makefile first, as a target: a prerequisite's recipe runs
    ("make", {"Makefile": ALL + "Makefile: gen\ngen:\n\trm -f victim\n"}),
    # … and tries to make an `-include`d one that is not there, with a rule it has
    ("make", {"Makefile": ALL + "-include x.d\n%.d:\n\trm -f victim\n"}),
    # MAKEFILES' files are read first; MAKEFLAGS holds make's options
    ("MAKEFILES=x.mk make", {"Makefile": ALL, "x.mk": ZAP}),
    ("export MAKEFILES=x.mk; make", {"Makefile": ALL, "x.mk": ZAP}),
    ("MAKEFLAGS='--eval=$(shell rm -f victim)' make", {"Makefile": ALL}),
])
def test_what_make_reads_besides_its_makefile_is_read_for_the_deny_rules(tmp_path: Path, line: str,
                                                                           files: dict[str, str]):
    folder = _project(tmp_path, files)
    assert RULES.denies("Bash", {"command": line}, str(folder)) is not None, line
    ran = _make(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stdout, ran.stderr)      # make ran rm


def test_a_recipe_that_may_rewrite_a_makefile_leaves_what_make_runs_unknown(tmp_path: Path):
    """make rewrites an included makefile a rule makes and reads it again: the recipes it then runs are in no file
    when the line is checked (the generating recipe itself runs only printf)."""
    generated = "-include gen.mk\ngen.mk:\n\tprintf 'all: zap\\nzap:\\n\\trm -f victim\\n' > $@\n"
    folder = _project(tmp_path, {"Makefile": ALL + generated})
    assert recipes_run(("make",), str(folder)) is None
    assert PermissionRules.from_tables({"deny": ["Bash(curl:*)"]}).denies("Bash", {"command": "make"}, str(folder))
    _make("make", folder)
    assert not (folder / "victim").exists()
    # a dependency file a pattern rule makes from a source that is there: the same
    folder = _project(tmp_path / "d", {"Makefile": ALL + "-include x.d\n%.d: %.c\n\tcc -MM $< > $@\n", "x.c": ""})
    assert recipes_run(("make",), str(folder)) is None


@pytest.mark.parametrize("files", [
    {"Makefile": "SRCS = a.c b.c\n" + ALL + "-include $(SRCS:.c=.d)\ninclude $(wildcard mk/*.mk)\n",
     "a.d": "a.o: a.c a.h\na.h:\n", "mk/x.mk": "CFLAGS += -O2\n"},
    {"Makefile": ALL + "-include $(wildcard *.d)\n"},         # no dependency file yet
])
def test_includes_that_run_nothing_denied_leave_make_allowed(tmp_path: Path, files: dict[str, str]):
    folder = _project(tmp_path, files)
    assert RULES.denies("Bash", {"command": "make"}, str(folder)) is None
    assert recipes_run(("make",), str(folder)).lines == ("echo all",)
    assert _make("make", folder).stdout == "all\n"


@pytest.mark.parametrize("include", ["include $(INC)", "include $(shell echo a.mk)", "include $(wildcard ~/*.mk)",
                                     "include $(firstword a.mk)"])
def test_an_include_named_only_when_make_runs_is_unknown(tmp_path: Path, include: str):
    folder = _project(tmp_path, {"Makefile": f"{include}\n{ALL}", "a.mk": "X = 1\n"})
    assert recipes_run(("make",), str(folder)) is None, include


def test_an_include_of_more_files_than_are_read_is_unknown(tmp_path: Path):
    folder = _project(tmp_path, {"Makefile": ALL + "include $(wildcard *.mk)\n",
                                 **{f"{n}.mk": "" for n in range(MAX_FILES)}})
    assert recipes_run(("make",), str(folder)) is None


def test_a_makefile_whose_variables_multiply_is_not_made_and_holds_every_bash_rule(root: Path):
    """A checkout's makefile whose variables refer to each other thousands of times made terabytes when `make` was
    checked, holding the app for good (its own deny rule is enough to have `make` checked): past a bounded work
    which recipes run is not known, and every Bash deny rule holds it; a `+=` grown over many values alike."""
    (root / "Makefile").write_text(f"A0 := {'x' * 1000}\nA1 := {'$(A0)' * 1000}\nA2 := {'$(A1)' * 9}\n"
                                   "all:\n\techo $(A2)\n")
    assert recipes_run(("make",), str(root)) is None
    assert PermissionRules.from_tables({"deny": ["Bash(curl:*)"]}).denies("Bash", {"command": "make"}, str(root))
    (root / "Makefile").write_text("X = a\n" * 300 + f"X += {'b' * 40}\n" * 3000 + "all:\n\techo hi\n")
    assert recipes_run(("make",), str(root)) is None
