"""`-p` with standard input (issue 25): piped text joins the prompt after the task; a silent pipe is left alone
after a second; `-p -` takes the task from it; over the limit nothing is sent; /dev/null is never read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from contextual.piped_input import LIMIT_BYTES
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

FINISH = "Thought: done\nAction: Finish[reviewed]"


def last_user_text(srv: FakeLLMServer) -> str:
    message = srv.requests[-1]["messages"][-1]
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def test_a_piped_file_is_added_after_the_task(project: Path, tmp_path: Path):
    diff = tmp_path / "change.diff"
    diff.write_text("-    return a - b\n+    return a + b\n")
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "review this"], project, cli_env(home_of(project), srv.base_url), stdin=diff)
    assert result.returncode == 0, result.stderr
    text = last_user_text(srv)
    assert text.index("review this") < text.index("+    return a + b")


def test_a_pipe_is_read_and_dash_takes_the_task_from_it(project: Path):
    with FakeLLMServer(kind="openai", script=[FINISH, FINISH]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        command = [sys.executable, "-m", "contextual", "-p"]
        piped = subprocess.run([*command, "review this"], input="PIPED-DIFF-LINE\n", cwd=project, env=env,
                               capture_output=True, text=True, timeout=60)
        assert piped.returncode == 0, piped.stderr
        assert "review this" in last_user_text(srv) and "PIPED-DIFF-LINE" in last_user_text(srv)
        task = subprocess.run([*command, "-"], input="fix the typo in README\n", cwd=project, env=env,
                              capture_output=True, text=True, timeout=60)
    assert task.returncode == 0, task.stderr
    assert "fix the typo in README" in last_user_text(srv)


def test_a_silent_pipe_is_left_alone_with_one_line(project: Path):
    read_end, write_end = os.pipe()       # held open and never written, as a CI runner holds stdin
    try:
        with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
            result = subprocess.run([sys.executable, "-m", "contextual", "-p", "hi"], stdin=read_end, cwd=project,
                                    env=cli_env(home_of(project), srv.base_url), capture_output=True, text=True,
                                    timeout=60)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "reviewed\n"
    notices = [line for line in result.stderr.splitlines() if "standard input" in line]
    assert len(notices) == 1 and "sent nothing within 1 s" in notices[0]
    assert last_user_text(srv).strip().endswith("hi")


def test_input_over_the_limit_sends_nothing(project: Path, tmp_path: Path):
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * (LIMIT_BYTES + 1))
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "summarise", "--output-format", "json"], project,
                            cli_env(home_of(project), srv.base_url), stdin=big)
    assert result.returncode == 1 and srv.requests == []
    record = json.loads(result.stdout)
    assert record["is_error"] is True and "standard input is over" in record["result"]


def test_dash_without_piped_input_is_one_clear_line(project: Path):
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        result = contextual(["-p", "-"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and srv.requests == []
    assert result.stderr.strip().count("\n") == 0 and "nothing is piped" in result.stderr
