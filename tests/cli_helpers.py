"""Run the real `contextual` CLI as a subprocess in a temporary project, and read back what it left.

The CLI tests share these: a project folder sits beside its CONTEXTUAL_HOME (``home_of``), so a test needs one
``tmp_path`` (the ``project`` fixture in tests/conftest.py makes the folder).
"""

from __future__ import annotations

import json
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def sigint_at_default() -> None:
    """preexec_fn for a CLI child a test interrupts: SIGINT at its default disposition, as a terminal starts a program.
    A shell without job control starts background commands with SIGINT ignored, children inherit that, and Python
    keeps an inherited SIG_IGN: a suite started in the background would test a process Ctrl-C cannot reach."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_env(home: Path, base_url: str | None = None, kind: str = "openai", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CONTEXTUAL_", "OPENAI_", "ANTHROPIC_"))}
    env["CONTEXTUAL_HOME"] = str(home)
    env["CONTEXTUAL_TRUST_PROJECT"] = "1"     # a test's project is its own (tests/test_trust.py passes "")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    if base_url:
        env.update(CONTEXTUAL_BASE_URL=base_url, CONTEXTUAL_MODEL="fake-model", CONTEXTUAL_PROVIDER=kind)
    env.update(extra)
    return env


def contextual(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60, *,
               fresh: bool = False, stdin: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m contextual ARGS` in ``cwd`` with ``env``, its output captured, as subprocess.run gives it.

    The run is a child forked from a process that imported the CLI once (tests/cli_zygote.py); ``fresh=True``
    (or CONTEXTUAL_TEST_FRESH=1 for every run) starts a new interpreter, for tests about the process itself.
    Standard input is /dev/null, or the file ``stdin``."""
    command = [sys.executable, "-m", "contextual", *args]
    if fresh or os.environ.get("CONTEXTUAL_TEST_FRESH"):
        with open(stdin or os.devnull, "rb") as source:
            return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                                  stdin=source)
    return _zygote().run(command, args, cwd, env, timeout, stdin)


class _Zygote:
    """The forking process of tests/cli_zygote.py, one per test process, asked one run at a time."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTUAL_", "OPENAI_", "ANTHROPIC_"))}
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "cli_zygote.py")], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pending = b""
        self.lock = threading.Lock()
        if self._line(120) != "ready":
            raise RuntimeError("tests/cli_zygote.py did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _line(self, timeout: float | None) -> str | None:
        """The zygote's next line, or None when ``timeout`` seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            if not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("tests/cli_zygote.py exited")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def run(self, command: list[str], args: list[str], cwd: Path, env: dict[str, str],
            timeout: float, stdin: Path | None = None) -> subprocess.CompletedProcess:
        with self.lock, tempfile.TemporaryDirectory(prefix="contextual-run-") as folder:
            out, err = Path(folder) / "stdout", Path(folder) / "stderr"
            out.touch()
            err.touch()
            request = {"args": list(args), "cwd": str(cwd), "env": dict(env), "out": str(out), "err": str(err),
                       "stdin": str(stdin) if stdin else None}
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            pid = int(self._line(60).removeprefix("pid "))
            answer = self._line(timeout)
            if answer is None:                       # as subprocess.run: kill the run, then say it timed out
                os.kill(pid, signal.SIGKILL)
                self._line(None)
                raise subprocess.TimeoutExpired(command, timeout, _text(out), _text(err))
            code = int(answer.removeprefix("exit "))
            return subprocess.CompletedProcess(command, code, _text(out), _text(err))


def _text(path: Path) -> str:
    """What subprocess.run(text=True) makes of a captured stream: the locale's encoding, universal newlines."""
    data = path.read_bytes().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


_zygotes: list[_Zygote] = []


def _zygote() -> _Zygote:
    if not _zygotes or not _zygotes[0].alive():
        _zygotes[:] = [_Zygote()]
    return _zygotes[0]


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


def end_in_terminal(pid: int, fd: int) -> None:
    """A child started with pty.fork: killed if it still runs, reaped, and its terminal closed."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    os.close(fd)
