"""ARCHITECTURE.md's rule table is real: every row names functions that exist and tests that exist (issue 27).

A row is `| rule | the one function | its test |`; a function cell names `path.py: Name` (and further bare
`names` of the same file), a test cell names `tests/file.py::test_name` — a file alone does not say which test
guards the rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FUNCTION = re.compile(r"`([\w/]+\.py): ([\w.]+)`|`([\w.]+)`")
TEST = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")


def rows() -> list[tuple[str, str, str]]:
    text = (REPO / "ARCHITECTURE.md").read_text()
    table = text.split("| rule | the one function | its test |", 1)[1].split("\n\n", 1)[0]
    out = []
    for line in table.strip().splitlines()[1:]:     # past the |---| line
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"a row of three cells: {line}"
        out.append((cells[0], cells[1], cells[2]))
    return out


def defined(path: Path) -> set[str]:
    """Names a module defines at its top, and Class.attr for what its classes define."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(f"{node.name}.{item.name}")
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(f"{node.name}.{item.target.id}")
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def source(path: str) -> Path:
    """`core/x.py` as written in the table: the top-level package folder in this checkout."""
    found = REPO / path
    assert found.is_file(), f"no file {path}"
    return found


def test_the_table_has_rows():
    assert len(rows()) >= 20


def test_every_function_a_row_names_exists():
    missing = []
    for rule, functions, _ in rows():
        if functions.startswith("pyproject"):
            assert "[tool.mypy]" in (REPO / "pyproject.toml").read_text()
            continue
        module: Path | None = None
        for match in FUNCTION.finditer(functions):
            path, name, bare = match.groups()
            if path:
                module = source(path)
                name = name
            elif bare.endswith(".py"):
                source(bare)
                continue
            else:
                name = bare
            assert module is not None, f"{rule}: `{name}` before any file"
            if name not in defined(module):
                missing.append(f"{rule}: {name} in {module.relative_to(REPO)}")
        assert module is not None, f"{rule}: names no function"
    assert missing == []


def test_every_row_names_a_test_that_exists():
    missing = []
    for rule, _, tests in rows():
        named = TEST.findall(tests)
        assert named, f"{rule}: names no test"
        for path, name in named:
            if not name:
                missing.append(f"{rule}: {path} names no test in it")
            elif name not in defined(source(path)):
                missing.append(f"{rule}: no {name} in {path}")
    assert missing == []
