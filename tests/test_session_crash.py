"""Crash safety: a process appending to a session is SIGKILLed at random moments, 50 times.

After every kill, every complete line is loaded, the messages form an unbroken sequence (nothing lost but the
line being written, nothing duplicated), the index catches up, and the session reopens and continues.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from contextual.core.messages import Message
from contextual.core.session import SessionWriter, list_sessions, load_session

REPO = Path(__file__).resolve().parents[1]
KILLS = 50

# A zygote imports once and forks one appender per round, so 50 kills take seconds, not a minute of
# interpreter start-ups. Each appender prints "ready <pid>"; the zygote reaps it and prints "dead".
ZYGOTE = r"""
import asyncio, os, sys
from pathlib import Path
from contextual.core.messages import Message
from contextual.core.session import SessionWriter

async def append_forever(path, start):
    writer = SessionWriter.reopen(Path(path))
    print("ready", os.getpid(), flush=True)
    n = start
    while True:
        # A mix of small entries and large outputs so kills land inside writes too.
        writer.append_message(Message("user", f"m{n}", full="x" * (n % 7) * 4_000 or None))
        n += 1
        if n % 3 == 0:
            await writer.flush(fsync=n % 9 == 0)
        else:
            await asyncio.sleep(0)

for command in sys.stdin:
    path, start = command.split()
    pid = os.fork()
    if pid == 0:
        try:
            asyncio.run(append_forever(path, int(start)))
        finally:
            os._exit(1)
    os.waitpid(pid, 0)
    print("dead", flush=True)
"""


def complete_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return data.split(b"\n")[:-1]  # the piece after the last newline is not a complete line


def wait_for_a_new_line(path: Path, offset: int) -> None:
    """Until two newlines follow `offset`: a whole line written after it (a torn tail may end at the first)."""
    deadline = time.monotonic() + 30
    with path.open("rb") as f:
        seen = 0
        while seen < 2:
            assert time.monotonic() < deadline, "the appender wrote nothing"
            f.seek(offset)
            chunk = f.read()
            offset += len(chunk)
            seen += chunk.count(b"\n")
            if seen < 2:
                time.sleep(0.001)


def test_sigkill_at_random_moments_loses_no_complete_line(tmp_path):
    rng = random.Random(1234)
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    writer = SessionWriter.create(home, project)
    path = writer.path
    writer.close_sync()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    zygote = subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, cwd=REPO, text=True, bufsize=1)
    assert zygote.stdin is not None and zygote.stdout is not None

    for _ in range(KILLS):
        count = len(load_session(path).history)
        zygote.stdin.write(f"{path} {count}\n")
        zygote.stdin.flush()
        ready = zygote.stdout.readline().split()
        assert ready[:1] == ["ready"], zygote.stderr.read()
        # Wait until this appender has completed at least one line (a condition, not a time), so every round
        # adds to the session however loaded the machine is; then kill at a random moment after that.
        wait_for_a_new_line(path, path.stat().st_size)
        time.sleep(rng.uniform(0, 0.03))
        os.kill(int(ready[1]), signal.SIGKILL)
        assert zygote.stdout.readline() == "dead\n"

        loaded = load_session(path)
        lines = complete_lines(path)
        parsed = []
        for line in lines:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                pass
        # Every complete line that is valid JSON is loaded; the only losses are lines cut by a kill.
        assert loaded.entries == parsed
        assert [m.content for m in loaded.history] == [f"m{i}" for i in range(len(loaded.history))]
        assert len(loaded.history) >= count
        for warning in loaded.warnings:
            assert warning.startswith("line ") and ("torn" in warning or "corrupt" in warning), warning
        # The index catches up with whatever the killed writer never indexed.
        [info] = list_sessions(home, project)
        assert info.rounds == len(loaded.history)

    zygote.stdin.close()
    zygote.wait(timeout=5)
    zygote.stdout.close()
    zygote.stderr.close()
    # Every round added at least one complete line before its kill (whether a kill tears a line depends on
    # timing; the torn-line handling itself is pinned down in test_session_damage).
    assert len(load_session(path).history) >= KILLS

    # The session continues after the last kill.
    final_count = len(load_session(path).history)
    writer = SessionWriter.reopen(path)
    writer.append_message(Message("user", f"m{final_count}"))
    writer.close_sync()
    final = load_session(path)
    assert [m.content for m in final.history] == [f"m{i}" for i in range(final_count + 1)]
    assert not any("torn" in w for w in final.warnings)  # a torn tail was ended before appending
