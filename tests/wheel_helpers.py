"""The artefact users install: the wheel built from this checkout, installed without network into a folder.

``build_and_install(dest)`` copies what the wheel is built from (so parallel test workers never share a build
folder in the checkout), builds it with the environment's own setuptools (``--no-build-isolation``: no download),
and installs it with ``--no-index --no-deps`` into ``dest/site``: the dependencies already installed serve, and the
folder goes first on PYTHONPATH so the checkout is never what runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "contextual", "core", "tui", "prompts")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    site: Path             # the folder the wheel was installed into (goes first on PYTHONPATH)

    @property
    def script(self) -> Path:
        return self.site / "bin" / "contextual"

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env["PYTHONPATH"] = str(self.site)
        return env


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def build_and_install(dest: Path) -> Installed:
    src = dest / "src"
    src.mkdir(parents=True)
    for name in SOURCES:
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif origin.is_file():
            shutil.copy2(origin, src / name)
    _pip("wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(dest / "dist"), "./src", cwd=dest)
    wheel = next((dest / "dist").glob("contextual-*.whl"))
    _pip("install", "--no-index", "--no-deps", "--target", str(dest / "site"), str(wheel), cwd=dest)
    return Installed(wheel, dest / "site")
