"""The permission dialog's "runs" line reads a Bash line's simple commands as written (core/shell/written.py): each
once, quotes kept, a wrapped command inside its wrapper's text, redirections with their command, and a script a
shell reads from a here-document listed after that shell."""

from __future__ import annotations

import pytest

from contextual.core.shell.written import commands_as_written
from contextual.tui.screens.permission import runs_line


@pytest.mark.parametrize("line,commands", [
    # the review's line: `grep -n def` was listed a second time, and `'*.py'` lost its quotes
    ("find . -name '*.py' | xargs grep -n def", ("find . -name '*.py'", "xargs grep -n def")),
    ("sudo rm -rf build && bash -c 'rm x'", ("sudo rm -rf build", "bash -c 'rm x'")),
    ("echo $(rm -rf x) 2>/dev/null; ls *.py", ("echo $(rm -rf x) 2>/dev/null", "ls *.py")),
    ("grep \"a b\" f && echo a\\ b", ("grep \"a b\" f", "echo a\\ b")),
    # tree-sitter hangs the redirections of `cd … && cat > f <<EOF` on the list; bash gives them to cat
    ("cd src && cat > gen.txt <<'EOF'\nline\nEOF\nrm -rf ./build", ("cd src", "cat > gen.txt <<'EOF'",
                                                                    "rm -rf ./build")),
    ("bash <<E\nrm y\nE\necho done", ("bash <<E", "rm y", "echo done")),
    ("python -m pytest -q \\\n  tests/", ("python -m pytest -q tests/",)),
])
def test_each_simple_command_once_as_written(line: str, commands: tuple[str, ...]):
    assert commands_as_written(line) == commands


def test_the_runs_line_names_each_command_once_with_its_quotes():
    assert str(runs_line("find . -name '*.py' | xargs grep -n def")) == \
        "runs find . -name '*.py'  ·  xargs grep -n def"
    assert runs_line("ls -la") is None                  # one command on one line: the preview shows it
