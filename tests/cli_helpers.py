"""Run the real `contextual` CLI as a subprocess in a temporary project, and read back what it left.

The CLI tests share these: a project folder sits beside its CONTEXTUAL_HOME (``home_of``), so a test needs one
``tmp_path`` (the ``project`` fixture in tests/conftest.py makes the folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def cli_env(home: Path, base_url: str | None = None, kind: str = "openai", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CONTEXTUAL_", "OPENAI_", "ANTHROPIC_"))}
    env["CONTEXTUAL_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    if base_url:
        env.update(CONTEXTUAL_BASE_URL=base_url, CONTEXTUAL_MODEL="fake-model", CONTEXTUAL_PROVIDER=kind)
    env.update(extra)
    return env


def contextual(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "contextual", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def home_of(project: Path) -> Path:
    """The CONTEXTUAL_HOME the CLI tests give a project: its sibling folder `home`."""
    return project.parent / "home"


def session_files(home: Path) -> list[Path]:
    return sorted((home / "projects").rglob("*.jsonl"))


def session_text(home: Path) -> str:
    """Every session file under ``home``, concatenated (to search for what must never be stored)."""
    return "".join(path.read_text(encoding="utf-8") for path in session_files(home))


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr and "Error:" not in result.stderr.replace("error:", ""), result.stderr


def one_line_error(stderr: str) -> str:
    """The one error line a failed run prints (and that it is only one, with no traceback)."""
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith(("error:", "contextual:"))]
    assert len(errors) == 1, stderr
    return errors[0]
