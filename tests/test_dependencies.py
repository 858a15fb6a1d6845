"""pyproject declares every third-party package the shipped code imports, and none it does not: core/mcp/http_bound.py
imported httpx2, which only the MCP SDK declared, so an SDK that changed its HTTP stack would break us (helper80).
The floors themselves were found by installing them (docs/dependencies.md); no test here can reach an index."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.wheel_helpers import REPO

SHIPPED = ("contextual", "core", "tui", "prompts")      # the folders the wheel holds


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_levels() -> set[str]:
    tops: set[str] = set()
    for folder in SHIPPED:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    tops.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    tops.add(node.module.split(".")[0])
    # `_typeshed`: the type checker's own stubs, imported under TYPE_CHECKING only; no distribution ships it
    return {top for top in tops
            if top not in sys.stdlib_module_names and top not in ("__future__", "contextual", "_typeshed")}


def test_pyproject_declares_every_package_the_code_imports_and_no_other():
    requirements = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    declared = {_normal(re.match(r"[A-Za-z0-9_.-]+", requirement).group()) for requirement in requirements}
    distributions = packages_distributions()
    imported = {_normal(dist) for top in _imported_top_levels() for dist in distributions.get(top, [top])}
    assert imported - declared == set(), "imported but not declared"
    assert declared - imported == set(), "declared but never imported"
