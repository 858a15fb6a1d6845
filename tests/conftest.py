"""Fixtures every test module may use: a project folder for the CLI tests, and both wire formats."""

from __future__ import annotations

from pathlib import Path

import pytest

WIRES = ["openai", "anthropic"]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """An empty project folder; its CONTEXTUAL_HOME is the sibling tests.cli_helpers.home_of gives. A module that
    needs files in it overrides this fixture by the same name and asks for it."""
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture(params=WIRES)
def kind(request: pytest.FixtureRequest) -> str:
    """Each test that asks for it runs once per wire format (a test's own parametrize of `kind` overrides this)."""
    return request.param
