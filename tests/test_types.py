"""The type check, as part of the suite: mypy on the installed wheel's tree (there the mapped folders are
`contextual.core`, `.tui`, `.prompts`), with pyproject's [tool.mypy]: strict on the whole package. Run as a
module of this interpreter, never from PATH; its cache lives in the test's own folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _mypy(site: Path, config: Path, cache: Path, *target: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache),
                           "--no-error-summary", *(target or ("-p", "contextual"))], cwd=site, capture_output=True,
                          text=True, env=env, timeout=240)


def test_the_type_check_passes(installed_wheel, tmp_path):
    config = tmp_path / "pyproject.toml"
    shutil.copy2(REPO / "pyproject.toml", config)
    out = _mypy(installed_wheel.site, config, tmp_path / "cache")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_type_check_is_strict_everywhere(tmp_path):
    """A planted untyped function fails the check in the engine, the app and the entry code alike (the strict
    settings reach the installed tree). One run of mypy for the three: each file is named in its output."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "contextual", site / "contextual", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("core", "tui", "prompts"):
        shutil.copytree(REPO / folder, site / "contextual" / folder, ignore=shutil.ignore_patterns("__pycache__"))
    planted = ["core/clock.py", "tui/format.py", "cli.py"]
    for module in planted:
        target = site / "contextual" / module
        target.write_text(target.read_text() + "\n\ndef planted(x):\n    return x\n")
    config = tmp_path / "pyproject.toml"
    shutil.copy2(REPO / "pyproject.toml", config)
    names = ["contextual." + module.removesuffix(".py").replace("/", ".") for module in planted]
    modules = [arg for name in names for arg in ("-m", name)]
    out = _mypy(site, config, tmp_path / "cache", "--follow-imports=skip", *modules)     # the planted files only
    untyped = [line for line in out.stdout.splitlines() if "no-untyped-def" in line]
    assert out.returncode != 0 and all(any(module in line for line in untyped) for module in planted), out.stdout
