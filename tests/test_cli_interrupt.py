"""Ctrl-C on the subcommands (issue 26.7): `contextual context` waiting on a silent MCP server ends with one line
and the shell's status 130, no traceback, and the server it started is ended."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import cli_env, home_of, sigint_at_default
from tests.fakes.llm_server import FakeLLMServer
from tests.waits import until

# A stdio MCP server that says it started (a file) and then never answers.
SILENT = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).write_text('up'); time.sleep(120)"


def _wait_for(path: Path, timeout: float) -> None:
    until(path.exists, f"{path} appearing", timeout)


def test_ctrl_c_while_context_waits_on_a_silent_server_is_one_line_and_status_130(project: Path):
    marker = project.parent / "silent-started"
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"silent": {
        "command": sys.executable, "args": ["-c", SILENT, str(marker)]}}}))
    with FakeLLMServer(kind="openai", script=[]) as srv:
        child = subprocess.Popen([sys.executable, "-m", "contextual", "context"], cwd=project,
                                 env=cli_env(home, srv.base_url), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=sigint_at_default)
        try:
            _wait_for(marker, 60)                         # context is now waiting for the server's answer
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert [line for line in err.splitlines() if line.strip()][-1] == "contextual context: interrupted"
    assert out == "" and len([line for line in err.splitlines() if line.strip()]) == 1, err



def test_ctrl_c_while_the_command_line_imports_is_one_line_and_status_130():
    """The command line's imports take about a quarter of a second; a Ctrl-C in them printed Python's traceback
    (exit -2, seen sending SIGINT 50 ms after start). The entry point catches it around the import."""
    probe = ("import builtins, sys\n"
             "real = builtins.__import__\n"
             "def importing(name, *args, **kwargs):\n"
             "    if name == 'contextual.cli':\n"
             "        raise KeyboardInterrupt\n"
             "    return real(name, *args, **kwargs)\n"
             "builtins.__import__ = importing\n"
             "from contextual.entry import main\n"
             "raise SystemExit(main())\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and done.stderr == "contextual: interrupted\n" and done.stdout == ""
