"""Issue 13 (tools): hostile files and patterns through the real `contextual -p` against the fake server.
Each ends in a clear observation to the model and a finished turn, never a hang or a traceback."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, sigint_at_default
from tests.fakes.llm_server import FakeLLMServer

FINISH = "Thought: done\nAction: Finish[finished]"


@pytest.fixture()
def project(project: Path) -> Path:
    """The shared empty project (tests/conftest.py) with a file to work on."""
    (project / "a.txt").write_text("hello\n")
    return project


def _run(project: Path, actions: list[str], timeout: float = 30) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the actions then Finish in bypass mode; returns the process and what the model saw after each."""
    script = [f"Thought: try\nAction: {action}" for action in actions] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project, env, timeout=timeout)
    seen = [json.dumps(srv.requests[i]["messages"], ensure_ascii=False) for i in range(1, len(srv.requests))]
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    return result, seen


def _observation_error(seen: str) -> str:
    """The error header of the newest observation ("[error CODE: message]")."""
    start = seen.rindex("[error ")
    return seen[start:seen.index("]", start) + 1]


def test_fifo_in_the_project_gives_an_error_instead_of_blocking(project: Path):
    os.mkfifo(project / "pipe")
    started = time.monotonic()
    _result, seen = _run(project, ['Read[{"file_path": "pipe"}]', 'Grep[{"pattern": "x", "path": "pipe"}]',
                                   'Write[{"file_path": "pipe", "content": "x"}]',
                                   'Edit[{"file_path": "pipe", "old_string": "a", "new_string": "b"}]',
                                   'Grep[{"pattern": "hello"}]'])
    assert time.monotonic() - started < 30
    for tool, observation in zip(("Read", "Grep", "Write", "Edit"), seen):
        error = _observation_error(observation)
        assert error.startswith("[error not_regular_file: pipe is a named pipe (FIFO)"), (tool, error)
    assert stat.S_ISFIFO(os.stat(project / "pipe").st_mode)       # Write/Edit did not replace it either
    assert "a.txt:1: hello" in seen[4] and "1 special file" in seen[4]     # a tree walk skips it


def _device(project: Path) -> str:
    """A character device inside the project (/dev/zero's numbers), made with mknod where permitted; a symlink
    to /dev/zero would not do (it resolves outside the project and is refused for that), so otherwise skip."""
    try:
        os.mknod(project / "zero", 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"mknod of a character device is not permitted here ({exc})")
    return "zero"


def test_character_device_is_refused_without_reading_it(project: Path):
    name = _device(project)
    _result, seen = _run(project, [f'Read[{{"file_path": "{name}"}}]', f'Grep[{{"pattern": "x", "path": "{name}"}}]',
                                   f'Edit[{{"file_path": "{name}", "old_string": "a", "new_string": "b"}}]'])
    for observation in seen[:3]:
        assert _observation_error(observation).startswith(f"[error not_regular_file: {name} is a character device")


def test_read_slice_of_a_sparse_file_with_a_2gb_hole_stays_small(project: Path):
    path = project / "sparse.log"
    with open(path, "wb") as handle:
        handle.write(b"".join(b"line %d\n" % i for i in range(1, 8001)))      # ~64 KB of text
        handle.truncate(handle.tell() + 2 * 1024 ** 3)                         # then a 2 GB hole
    _result, seen = _run(project, ['Read[{"file_path": "sparse.log", "offset": 7999, "limit": 5}]'], timeout=60)
    assert "line 7999" in seen[0] and "line 8000" in seen[0]
    # The hole is one line: its start is shown, the scan stops at its cap instead of reading 2 GB.
    assert re.search(r"line cut: over [0-9,]+ bytes", seen[0]) and "at least 8001" in seen[0]
    assert len(seen[0]) < 20_000


def test_undecodable_file_names_are_listed_as_valid_text_and_can_be_read_back(project: Path):
    raw = os.fsencode(str(project)) + b"/caf\xe9-\xff.txt"
    with open(raw, "wb") as handle:
        handle.write(b"latin name\n")
    actions = ['LS[{}]', 'Glob[{"pattern": "*.txt"}]', 'Grep[{"pattern": "latin"}]',
               'Read[{"file_path": "caf\\\\xe9-\\\\xff.txt"}]']
    _result, seen = _run(project, actions)
    for observation in seen[:3]:
        assert "caf\\\\xe9-\\\\xff.txt" in observation           # \xNN shown (JSON-escaped backslash)
    assert "latin name" in seen[3]
    # The session holds only valid text, so it can be continued.
    with FakeLLMServer(kind="openai", script=[FINISH]) as srv:
        again = contextual(["-p", "more", "-c"], project, cli_env(home_of(project), srv.base_url))
    assert again.returncode == 0, again.stderr


def test_redos_pattern_on_a_long_line_is_an_error_result_quickly(project: Path):
    (project / "long.txt").write_text("a" * 5000 + "b\n")
    started = time.monotonic()
    _result, seen = _run(project, ['Grep[{"pattern": "(a+)+$"}]'])
    assert time.monotonic() - started < 15
    assert _observation_error(seen[0]).startswith("[error regex_timeout: the pattern took over 1 s on long.txt:1")


def test_glob_with_many_double_stars_over_a_deep_tree_returns_promptly(project: Path):
    deep = project.joinpath(*["a"] * 60)
    deep.mkdir(parents=True)
    (deep / "c.txt").write_text("x\n")
    (deep / "b").write_text("x\n")
    started = time.monotonic()
    _result, seen = _run(project, ['Glob[{"pattern": "**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/b"}]'])
    assert time.monotonic() - started < 15
    assert "/".join(["a"] * 60) + "/b" in seen[0] and "c.txt" not in seen[0]


def test_sigint_during_a_slow_grep_ends_the_process_within_seconds(project: Path):
    # Each line costs the pattern ~0.1 s (under its 1 s timeout): the whole search would take minutes.
    (project / "slow.txt").write_text(("a" * 300 + "b\n") * 2000)
    with FakeLLMServer(kind="openai", script=['Thought: search\nAction: Grep[{"pattern": "(a+)+$"}]', FINISH]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        proc = subprocess.Popen([sys.executable, "-m", "contextual", "-p", "go"], cwd=project, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=sigint_at_default)
        try:
            for line in proc.stderr:                       # wait until the Grep has started
                if line.startswith("→ Grep"):
                    break
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
            elapsed = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # Without the fix the search runs for minutes (2,000 lines × ~0.1 s); a loose bound, not a benchmark.
    assert elapsed < 30, f"took {elapsed:.1f} s to end after SIGINT"
    assert proc.returncode != 0


def test_a_symlink_loop_a_nul_or_an_overlong_name_is_a_tool_error_not_the_end_of_the_turn(project: Path):
    """A checkout can plant a symlink loop; the folder rules' lookup resolved it unguarded and the whole turn
    ended in 'internal error: RuntimeError: Symlink loop' (hostile-input red team)."""
    os.symlink("loopb", project / "loopa")
    os.symlink("loopa", project / "loopb")
    long_name = "x" * 5000
    _result, seen = _run(project, ['Read[{"file_path": "loopa"}]', 'Write[{"file_path": "loopa", "content": "x"}]',
                                   'Read[{"file_path": "a\\u0000b"}]', f'Read[{{"file_path": "{long_name}"}}]',
                                   'LS[{}]'])
    for observation in seen[:4]:
        assert "[error " in observation, observation[-400:]
    listing = seen[4]
    assert "a.txt" in listing, listing[-600:]


def test_a_checkout_whose_git_head_is_a_fifo_starts_its_session_and_answers(project: Path):
    """An unpacked archive can make .git/HEAD a FIFO: reading the branch for the session file blocked open() for
    good, before the first model call (the app's event loop with it; red team)."""
    (project / ".git").mkdir()
    os.mkfifo(project / ".git" / "HEAD")
    _result, seen = _run(project, ['LS[{}]'], timeout=20)
    assert "a.txt" in seen[0]


def test_a_file_the_turn_wrote_then_made_a_fifo_holds_neither_the_turns_end_nor_a_compaction(project: Path):
    """Outside git a turn's snapshot hashes the files it changed when it ends, and a compaction reads the files the
    archived rounds touched: both opened a FIFO a command had put there, and waited for a writer for good."""
    _run(project, ['Write[{"file_path": "p.txt", "content": "x"}]', 'Bash[{"command": "rm p.txt && mkfifo p.txt"}]'],
         timeout=20)
    assert stat.S_ISFIFO(os.stat(project / "p.txt").st_mode)
    with FakeLLMServer(kind="openai", script=[FINISH, "## Summary\nwrote p.txt"]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-c", "-p", "next"], project, env, timeout=20).returncode == 0
        result = contextual(["-c", "-p", "/compact 1"], project, env, timeout=20)
    assert result.returncode == 0 and "compacted" in result.stdout, result.stderr
    summary_request = json.dumps(srv.requests[-1]["messages"])
    assert "p.txt could not be read (not a regular file); skipped" in summary_request, summary_request[-800:]


def test_a_real_repository_whose_head_became_a_fifo_snapshots_by_copies_at_once_and_says_why_once(project: Path):
    """git opens .git/HEAD to tell a repository: each snapshot's git call waited its 60 s timeout, and the warning
    blamed large files ("no large files found"; red team). The FIFO is seen before git runs, said once by name, and
    the turn's edits are saved as copies, so undo still works."""
    for args in (["init", "-q"], ["add", "a.txt"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"]):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)
    (project / ".git" / "HEAD").unlink()
    os.mkfifo(project / ".git" / "HEAD")
    result, _seen = _run(project, ['Write[{"file_path": "b.txt", "content": "b"}]',
                                   'Edit[{"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}]'],
                         timeout=40)
    said = [line for line in result.stderr.splitlines() if "ghost snapshot" in line]
    assert len(said) == 1, result.stderr
    assert f"git cannot read this repository: {project / '.git' / 'HEAD'} is a named pipe (FIFO)" in said[0]
    assert "copies" in said[0] and "large" not in said[0]
    with FakeLLMServer(kind="openai", script=[]) as srv:
        undone = contextual(["undo"], project, cli_env(home_of(project), srv.base_url), timeout=20)
    assert undone.returncode == 0, undone.stderr
    assert (project / "a.txt").read_text() == "hello\n" and not (project / "b.txt").exists()
