"""The artefact users install (issue 25): the wheel built from this checkout, installed without network into a
folder, run from a project outside the source tree that has its own `core/` and `tui/` packages.

Every entry point a user reaches goes through the installed console script: `--version`, a `-p` turn (text and
json) against the scripted server, `contextual context --json`, `contextual replay` on a fixture trajectory, and
the app's first frame in a pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import tomllib

from tests.cli_helpers import end_in_terminal, home_of
from tests.fakes.llm_server import FakeLLMServer
from tests.wheel_helpers import REPO, Installed

FIXTURE = REPO / "tests" / "fixtures" / "trajectories" / "mini_toolcall.traj.json"


@pytest.fixture()
def project(project: Path) -> Path:
    """A user's project with packages named like ours: the installed tool must never import them."""
    for name in ("core", "tui", "prompts"):
        (project / name).mkdir()
        (project / name / "__init__.py").write_text("raise ImportError('the project\\'s own package was imported')\n")
    (project / "notes.txt").write_text("hello\n")
    return project


def run(installed: Installed, args: list[str], project: Path, env: dict[str, str], *,
        stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(installed.script), *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def user_env(installed: Installed, project: Path, base_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTUAL_", "OPENAI_", "ANTHROPIC_"))}
    env = installed.env(env)
    env["CONTEXTUAL_HOME"] = str(home_of(project))
    if base_url:
        env.update(CONTEXTUAL_BASE_URL=base_url, CONTEXTUAL_MODEL="fake-model", CONTEXTUAL_PROVIDER="openai")
    return env


def test_the_wheel_holds_one_top_level_package_and_its_data(installed_wheel: Installed):
    with zipfile.ZipFile(installed_wheel.wheel) as wheel:
        names = wheel.namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"contextual"}
    for data in ("contextual/core/model_table.toml", "contextual/core/data/cl100k_base.tiktoken",
                 "contextual/tui/app.tcss"):
        assert data in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def _wheel_version(installed: Installed) -> str:
    with zipfile.ZipFile(installed.wheel) as wheel:
        metadata = next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
        return re.search(r"^Version: (.+)$", wheel.read(metadata).decode(), re.M).group(1)


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapped = {"core": "contextual.core", "tui": "contextual.tui", "prompts": "contextual.prompts",
              "contextual": "contextual"}
    found = set()
    for top, name in mapped.items():
        for init in (REPO / top).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO / top).parts
            found.add(".".join((name, *parts)) if parts else name)
    assert found == listed


def test_version_and_a_turn_from_a_project_with_its_own_core(installed_wheel: Installed, project: Path):
    env = user_env(installed_wheel, project)
    version = run(installed_wheel, ["--version"], project, env)
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"contextual {_wheel_version(installed_wheel)}\n"     # one version, not two to keep in step
    # `python -m contextual` puts the project folder first on sys.path: its own core/ must not shadow ours.
    as_module = subprocess.run([sys.executable, "-m", "contextual", "--version"], cwd=project,
                               env=env, capture_output=True, text=True, timeout=60)
    assert as_module.returncode == 0, as_module.stderr

    script = ["Thought: read it\nAction: Read[{\"file_path\": \"notes.txt\"}]",
              "Thought: done\nAction: Finish[the note says hello]",
              "Thought: done\nAction: Finish[json answer]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = user_env(installed_wheel, project, srv.base_url)
        text = run(installed_wheel, ["-p", "what does notes.txt say?"], project, env)
        as_json = run(installed_wheel, ["-p", "again", "--output-format", "json"], project, env)
    assert text.returncode == 0, text.stderr
    assert text.stdout == "the note says hello\n"
    assert "Traceback" not in text.stderr
    assert as_json.returncode == 0, as_json.stderr
    record = json.loads(as_json.stdout)
    assert record["result"] == "json answer" and record["is_error"] is False


def test_context_and_replay_run_from_the_wheel(installed_wheel: Installed, project: Path, tmp_path: Path):
    env = user_env(installed_wheel, project, "http://127.0.0.1:9")      # nothing listens: context never calls it
    context = run(installed_wheel, ["context", "--json"], project, env)
    assert context.returncode == 0, context.stderr
    prompt = json.loads(context.stdout)
    assert prompt["window"] > 0 and prompt["tokens"] > 0
    report = tmp_path / "replay.json"
    replay = run(installed_wheel, ["replay", str(FIXTURE), "--summary-only", "--json", str(report)], project, env)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(report.read_text())


def _read_screen(fd: int, marks: tuple[str, ...], deadline: float) -> str:
    """What the app has painted (escape sequences removed) once every mark is on it, or all of it at the deadline."""
    raw = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        raw += chunk
        text = re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]", "", raw.decode(errors="replace"))
        if all(mark in text for mark in marks):
            return text
    return re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", raw.decode(errors="replace"))


@contextmanager
def app_in_pty(installed: Installed, project: Path, base_url: str) -> Iterator[tuple[int, int]]:
    """The installed console script in a 100x30 pseudo-terminal, from the project: (pid, the terminal's fd)."""
    env = user_env(installed, project, base_url)
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="30")
    pid, fd = pty.fork()
    if pid == 0:      # the child: the installed console script in the pseudo-terminal
        os.chdir(project)
        os.execve(str(installed.script), [str(installed.script)], env)
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        yield pid, fd
    finally:
        end_in_terminal(pid, fd)


def test_the_app_paints_its_first_frame_from_the_wheel(installed_wheel: Installed, project: Path):
    with FakeLLMServer(kind="openai", script=[]) as srv, app_in_pty(installed_wheel, project, srv.base_url) as (pid, fd):
        screen = _read_screen(fd, ("Contextual", "estimate"), time.monotonic() + 60)
        assert "Contextual" in screen and "estimate" in screen, screen[-2000:]
        assert "Traceback" not in screen
        os.write(fd, b"\x11")          # ctrl+q
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                assert os.waitstatus_to_exitcode(status) == 0
                break
            _read_screen(fd, ("\x00never",), time.monotonic() + 0.2)    # drain, so the app can write
        else:
            pytest.fail("the app did not quit on ctrl+q")


def test_a_turn_in_the_app_then_quit_prints_how_to_resume(installed_wheel: Installed, project: Path):
    """What a user does first: one message, the answer, ctrl+q; the terminal is left with the line that brings
    the session back (taken before the session closes: a closed engine has no session id)."""
    answer = "Thought: done\nAction: Finish[hello from the scripted model]"
    with FakeLLMServer(kind="openai", script=[answer]) as srv, \
            app_in_pty(installed_wheel, project, srv.base_url) as (pid, fd):
        screen = _read_screen(fd, ("estimate",), time.monotonic() + 60)
        assert "estimate" in screen, screen[-2000:]
        os.write(fd, b"hi")
        os.write(fd, b"\r")
        screen = _read_screen(fd, ("hello from the scripted model",), time.monotonic() + 60)
        assert "hello from the scripted model" in screen, screen[-2000:]
        os.write(fd, b"\x11")          # ctrl+q
        after = _read_screen(fd, ("contextual -c",), time.monotonic() + 30)
        after += _read_screen(fd, ("\x00never",), time.monotonic() + 2)     # what it prints as it exits
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, after[-3000:]
        session = next((home_of(project) / "projects").rglob("*.jsonl")).stem
        assert f"Resume this session with `contextual -c` (or `contextual -r {session[:8]}`)." in after


@pytest.mark.parametrize("args", [["-p", "hi"], ["-p", "hi", "--output-format", "json"], ["context", "--json"],
                                  ["replay", str(FIXTURE), "--summary-only"], []])
def test_a_damaged_install_says_which_file_it_lacks(installed_wheel: Installed, project: Path, tmp_path: Path,
                                                    args: list[str]):
    damaged = Installed(installed_wheel.wheel, tmp_path / "site")
    shutil.copytree(installed_wheel.site, damaged.site)
    (damaged.site / "contextual" / "core" / "model_table.toml").unlink()
    result = run(damaged, args, project, user_env(damaged, project, "http://127.0.0.1:9"))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    said = result.stdout if "json" in args else result.stderr
    assert "contextual/core/model_table.toml" in said and "reinstall" in said
    if "json" in args:
        assert json.loads(said)["is_error"] is True
    else:
        assert len(result.stderr.strip().splitlines()) == 1
