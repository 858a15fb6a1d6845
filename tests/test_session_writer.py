"""The writer: entry format, lock, permissions, secrets, flushing without blocking."""

from __future__ import annotations

import asyncio
import threading
import json
import os
import socket
import stat

import pytest

from contextual.core.session.schema import CompactionRecord, PermissionRecord
from contextual.core.events import UsageEvent
from contextual.core.messages import Message
from contextual.core.session import SessionError, SessionLocked, SessionWriter, is_locked, load_session, sessions_dir


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    return root


def entries(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_entries_carry_the_contract_fields(tmp_path, project):
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    writer = SessionWriter.create(tmp_path / "home", project, session_id="abc123", version="9.9")
    user = Message("user", "refactor utils")
    step = Message("assistant", "Thought: read\nAction: Read", meta={"step": 1, "call_id": "t1", "tool_name": "Read"})
    result = Message("tool", '{"status":"success","text":"short"}', full='{"status":"success","text":"long"}',
                     meta={"tool_name": "Read", "call_id": "t1", "step": 1})
    writer.append_message(user)
    writer.append_message(step)
    writer.append_tool_use("t1", "Read", {"file_path": "src/utils.ts"}, step)
    writer.append_message(result)
    writer.append_usage(UsageEvent(1200, 80, cached_tokens=1000))
    writer.append_permission(PermissionRecord("Bash", "allow_once"))
    writer.append_entry({"type": "system", "subtype": "ghost_snapshot", "snapshot": {"tree": "abc"}})
    await writer.close()

    assert writer.path == sessions_dir(tmp_path / "home", project) / "abc123.jsonl"
    assert writer.path.parent.name == str(project.resolve()).replace("/", "-")
    rows = entries(writer.path)
    for row in rows:
        assert row["sessionId"] == "abc123" and row["version"] == "9.9"
        assert row["cwd"] == str(project.resolve()) and row["gitBranch"] == "feature/x"
        assert row["timestamp"].endswith("Z") and "T" in row["timestamp"]
    assert [r["type"] for r in rows] == ["user", "assistant", "tool_use", "tool_result", "system", "system", "system"]
    assert rows[0]["parentUuid"] is None and rows[0]["uuid"] == user.id
    assert [r["parentUuid"] for r in rows[1:]] == [r["uuid"] for r in rows[:-1]]
    assert rows[0]["message"] == {"role": "user", "content": "refactor utils"}
    assert rows[2]["tool"] == {"name": "Read", "input": {"file_path": "src/utils.ts"}, "callId": "t1"}
    assert rows[3]["toolResult"] == {"callId": "t1", "name": "Read", "output": '{"status":"success","text":"long"}',
                                     "stored": '{"status":"success","text":"short"}', "status": "success"}
    assert rows[4]["subtype"] == "usage" and rows[4]["usage"]["cached_tokens"] == 1000
    assert rows[5]["permission"] == {"tool": "Bash", "decision": "allow_once"}
    assert rows[6]["subtype"] == "ghost_snapshot" and rows[6]["snapshot"] == {"tree": "abc"}


async def test_compaction_writes_boundary_then_summary(tmp_path, project):
    writer = SessionWriter.create(tmp_path / "home", project)
    kept = Message("user", "kept")
    writer.append_message(Message("user", "old"))
    writer.append_message(kept)
    writer.append_usage(UsageEvent(5000, 100))
    writer.append_compaction(CompactionRecord("auto", 5100, 900, files_included=("a.py",), kept_from_id=kept.id),
                             Message("summary", "## Summary"))
    writer.append_todos([{"content": "step", "status": "in_progress"}])
    await writer.close()
    rows = entries(writer.path)
    boundary, summary = rows[3], rows[4]
    assert boundary["type"] == "system" and boundary["subtype"] == "compact_boundary"
    assert boundary["compactMetadata"] == {"trigger": "auto", "preTokens": 5100, "postTokens": 900,
                                           "filesIncluded": ["a.py"]}
    assert summary["type"] == "system" and summary["isCompactSummary"] is True
    loaded = load_session(writer.path)
    assert [m.content for m in loaded.history] == ["## Summary", "kept"]
    assert loaded.last_usage is None  # the usage before the compaction is stale
    assert loaded.todos == [{"content": "step", "status": "in_progress"}]


async def test_no_git_branch_outside_a_repository(tmp_path, project):
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message("user", "x"))
    await writer.close()
    assert "gitBranch" not in entries(writer.path)[0]


async def test_second_writer_is_refused_naming_the_holder(tmp_path, project):
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message("user", "x"))
    await writer.flush()
    with pytest.raises(SessionLocked) as refused:
        SessionWriter.reopen(writer.path)
    message = str(refused.value)
    assert f"process {os.getpid()} on {socket.gethostname()}" in message
    assert "close it there" in message
    assert is_locked(writer.path) == {"pid": os.getpid(), "host": socket.gethostname()}
    await writer.close()
    assert is_locked(writer.path) is None
    again = SessionWriter.reopen(writer.path)  # free once closed
    again.append_message(Message("user", "y"))
    await again.close()
    assert [m.content for m in load_session(writer.path).history] == ["x", "y"]


async def test_folders_0700_files_0600(tmp_path, project):
    old_umask = os.umask(0o022)
    try:
        writer = SessionWriter.create(tmp_path / "home", project)
        writer.append_message(Message("user", "x"))
        await writer.close()
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(writer.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "home" / "projects").stat().st_mode) == 0o700
    for item in writer.path.parent.iterdir():
        assert stat.S_IMODE(item.stat().st_mode) == 0o600, item.name


async def test_a_configured_secret_never_reaches_the_file(tmp_path, project):
    key = "sk-live-0123456789abcdef"
    writer = SessionWriter.create(tmp_path / "home", project, secrets=[key, "", "x"])
    writer.append_message(Message("user", f"my key is {key}", meta={key: key, "nested": [f"Bearer {key}"]}))
    writer.append_tool_use("c", "Bash", {"command": f"curl -H 'Authorization: {key}'"}, Message("assistant", "a"))
    writer.append_entry({"type": "system", "subtype": "note", "text": key})
    await writer.close()
    raw = writer.path.read_bytes() + b"".join(p.read_bytes() for p in writer.path.parent.iterdir())
    assert key.encode() not in raw
    loaded = load_session(writer.path)
    assert loaded.history[0].content == "my key is [redacted]"
    assert loaded.history[0].meta == {"[redacted]": "[redacted]", "nested": ["Bearer [redacted]"]}
    # Reopened writers scrub too.
    again = SessionWriter.reopen(writer.path, secrets=[key])
    again.append_message(Message("user", key))
    await again.close()
    assert key.encode() not in writer.path.read_bytes()


async def test_appending_does_not_wait_for_the_disk(tmp_path, project, monkeypatch):
    writer = SessionWriter.create(tmp_path / "home", project)
    gate = asyncio.Event()
    real_write = writer._write_lines
    loop = asyncio.get_running_loop()

    writing = threading.Event()

    def slow_write(batch, fsync):
        writing.set()
        asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(timeout=5)
        real_write(batch, fsync)

    monkeypatch.setattr(writer, "_write_lines", slow_write)
    for i in range(100):
        writer.append_message(Message("user", f"m{i}"))  # returns at once although the disk is "stuck"
    flushing = asyncio.ensure_future(writer.flush(fsync=True))
    assert await asyncio.to_thread(writing.wait, 5)      # the writer thread is at the disk, held by the gate
    assert not flushing.done()
    gate.set()
    await asyncio.wait_for(flushing, 5)
    await writer.close()
    assert len(load_session(writer.path).history) == 100


async def test_a_close_from_another_thread_while_a_batch_is_at_the_disk_writes_each_line_once(
        tmp_path, project, monkeypatch):
    """The app's hang-up deadline closes the session from its own thread while the loop is stuck (tui/hangup.py),
    maybe with the writer task's batch written but not yet taken off the queue (that was done back on the loop):
    the close wrote those lines a second time."""
    writer = SessionWriter.create(tmp_path / "home", project)
    real_write = writer._write_lines
    written, go = threading.Event(), threading.Event()

    class Watched:
        """The writer's lock, which also says when a close waits for it (the batch's thread goes on then)."""
        def __init__(self) -> None:
            self.lock = threading.Lock()

        def __enter__(self) -> None:
            if not self.lock.acquire(blocking=False):
                go.set()
                self.lock.acquire()

        def __exit__(self, *_: object) -> None:
            self.lock.release()

    def held_write(batch, fsync):
        real_write(batch, fsync)
        if not written.is_set():    # the task's batch: held until the close has written or waits for it
            written.set()
            assert go.wait(5)

    monkeypatch.setattr(writer, "_writing", Watched(), raising=False)
    monkeypatch.setattr(writer, "_write_lines", held_write)
    for i in range(3):
        writer.append_message(Message("user", f"m{i}"))
    assert await asyncio.to_thread(written.wait, 5)

    def close() -> None:
        writer.close_sync()
        go.set()

    await asyncio.to_thread(close)
    assert [m.content for m in load_session(writer.path).history] == ["m0", "m1", "m2"]
    assert len(entries(writer.path)) == 3


async def test_flush_reports_a_disk_error_and_keeps_the_lines(tmp_path, project, monkeypatch):
    writer = SessionWriter.create(tmp_path / "home", project)
    real_write = writer._write_lines
    failures = iter([OSError(28, "No space left on device")])

    def flaky(batch, fsync):
        error = next(failures, None)
        if error:
            raise error
        real_write(batch, fsync)

    monkeypatch.setattr(writer, "_write_lines", flaky)
    writer.append_message(Message("user", "kept"))
    with pytest.raises(SessionError, match="No space left on device"):
        await writer.flush()
    await writer.flush()
    await writer.close()
    assert [m.content for m in load_session(writer.path).history] == ["kept"]


async def test_closed_writer_refuses_more_entries(tmp_path, project):
    writer = SessionWriter.create(tmp_path / "home", project)
    await writer.close()
    await writer.close()  # twice is fine
    with pytest.raises(SessionError, match="closed"):
        writer.append_message(Message("user", "late"))


def test_bad_session_id_and_existing_id_are_refused(tmp_path, project):
    with pytest.raises(SessionError, match="invalid session id"):
        SessionWriter.create(tmp_path / "home", project, session_id="../escape")
    SessionWriter.create(tmp_path / "home", project, session_id="same").close_sync()
    with pytest.raises(SessionError, match="already exists"):
        SessionWriter.create(tmp_path / "home", project, session_id="same")


async def test_meta_and_full_round_trip_exactly(tmp_path, project):
    msg = Message("assistant", "answer", full="the long form",
                  meta={"final": True, "thinking": "hmm", "n": [1, 2.5, None, {"k": "中文"}]})
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(msg)
    await writer.close()
    assert load_session(writer.path).history == [msg]


def test_writer_survives_a_change_of_event_loop_and_works_without_one(tmp_path, project):
    writer = SessionWriter.create(tmp_path / "home", project)

    async def append(text):
        writer.append_message(Message("user", text))
        await writer.flush()

    asyncio.run(append("first loop"))
    asyncio.run(append("second loop"))
    writer.append_message(Message("user", "no loop"))  # written at once
    assert [m.content for m in load_session(writer.path).history] == ["first loop", "second loop", "no loop"]
    asyncio.run(writer.close())


async def test_fsync_at_turn_end_and_right_after_a_compaction(tmp_path, project, monkeypatch):
    import contextual.core.session.writer as writer_module
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(writer_module.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    writer = SessionWriter.create(tmp_path / "home", project)
    synced.clear()
    writer.append_message(Message("user", "x"))
    await writer.flush()
    assert synced == []
    await writer.flush(fsync=True)
    assert len(synced) == 1
    writer.append_compaction(CompactionRecord("auto", 1, 1, fallback="timed out", kept_from_id=None),
                             None)
    await writer.flush()   # a plain flush, yet the compaction is forced to disk
    assert len(synced) == 2
    await writer.close()


async def test_a_flush_waiting_when_the_writer_is_stopped_fails_instead_of_waiting_forever(tmp_path, project):
    """An event loop closing mid-turn cancelled the writer's task while a flush waited on it: the flush, and the
    session's close behind it, never returned (found by helper-127)."""
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message(role="user", content="hello"))
    flushing = asyncio.create_task(writer.flush())
    await asyncio.sleep(0)                      # the flush has queued its waiter and woken the writer
    assert writer._task is not None
    writer._task.cancel()
    with pytest.raises(SessionError, match="its writer was stopped"):
        await asyncio.wait_for(flushing, timeout=10)
    await writer.close()                        # a new writer task writes what stayed queued
    assert any(e.get("type") == "user" for e in entries(writer.path))
