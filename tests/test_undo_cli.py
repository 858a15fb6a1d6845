"""`contextual undo [-r ID]`: the latest session of this project (or one by id), recorded back into the session."""

from __future__ import annotations

import asyncio
import os
import pty
import select
import signal
import sys
import time

from pathlib import Path

import pytest

from contextual.core.session.schema import CompactionRecord
from contextual.core.messages import Message
from contextual.core.session import SessionWriter, load_session
from contextual.core.snapshot import GhostSnapshots
from contextual.undo_cmd import undo_main
from tests.cli_helpers import cli_env, end_in_terminal
from tests.git_helpers import make_repo, tree_files


async def record_turn(home: Path, repo: Path, session_id: str) -> dict[str, bytes]:
    """A session with one turn that edits, creates and deletes; returns the tree as it was before."""
    before = tree_files(repo)
    writer = SessionWriter.create(home, repo, session_id=session_id)
    writer.append_message(Message("user", "refactor please", meta={"turn": "t1"}))
    snaps = GhostSnapshots(repo, session_id, home)
    hook = snaps.before_change_hook("t1", writer.append_entry)
    await hook([repo / "a.py"])
    (repo / "a.py").write_text("agent\n")
    (repo / "new.py").write_text("agent\n")
    (repo / "c.py").unlink()
    writer.append_entry(await snaps.finish_turn("t1"))
    writer.append_message(Message("assistant", "done", meta={"final": True}))
    await writer.close()
    return before


def test_cli_undoes_the_latest_session_and_records_the_note(tmp_path, monkeypatch, capsys):
    repo, home = make_repo(tmp_path), tmp_path / "home"
    before = asyncio.run(record_turn(home, repo, "sess-a"))
    monkeypatch.chdir(repo)
    env = {"CONTEXTUAL_HOME": str(home)}
    assert undo_main([], env=env) == 0
    out = capsys.readouterr().out
    assert "restored   a.py" in out and "deleted    new.py" in out and "recreated  c.py" in out
    assert tree_files(repo) == before
    loaded = load_session(home / "projects" / str(repo.resolve()).replace("/", "-") / "sess-a.jsonl")
    undo = [e for e in loaded.entries if e.get("subtype") == "undo"]
    assert len(undo) == 1 and undo[0]["turnId"] == "t1" and undo[0]["sessionId"] == "sess-a"
    assert loaded.history[-1].role == "user" and loaded.history[-1].content.startswith("[undo]")
    assert "a.py" in loaded.history[-1].content

    assert undo_main(["-r", "sess-a"], env=env) == 1
    assert "Nothing to undo" in capsys.readouterr().out


def test_cli_refuses_a_session_open_elsewhere_and_points_to_slash_undo(tmp_path, monkeypatch, capsys):
    repo, home = make_repo(tmp_path), tmp_path / "home"
    asyncio.run(record_turn(home, repo, "sess-b"))
    changed = tree_files(repo)
    path = home / "projects" / str(repo.resolve()).replace("/", "-") / "sess-b.jsonl"
    holder = SessionWriter.reopen(path)
    try:
        monkeypatch.chdir(repo)
        assert undo_main(["-r", "sess-b"], env={"CONTEXTUAL_HOME": str(home)}) == 1
        err = capsys.readouterr().err
        assert "/undo" in err and "sess-b" in err
        assert tree_files(repo) == changed
    finally:
        holder.close_sync()


def test_cli_without_a_session_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert undo_main(["-r", "nope"], env={"CONTEXTUAL_HOME": str(tmp_path / "home")}) == 1
    assert "no session nope found" in capsys.readouterr().err


def _until_said(fd: int, mark: bytes, deadline: float) -> bytes:
    """What the terminal shows until ``mark`` (all of it at the deadline, or once the child closed it)."""
    seen = b""
    while mark not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        try:
            chunk = os.read(fd, 4096) if ready else b""
        except OSError:           # the child exited: its side of the terminal is closed
            break
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.parametrize("key, code", [(b"\x03", 130), (b"\x04", 0)], ids=["ctrl-c", "ctrl-d"])
def test_ctrl_c_or_ctrl_d_at_the_overwrite_question_ends_it_at_once_and_keeps_the_hand_edit(tmp_path, key, code):
    """At "Overwrite them …? [y/N]" in a terminal, Ctrl-C did nothing until Enter (the question was read in a
    worker thread) and Ctrl-D ended in an EOFError traceback. Ctrl-C now stops before any file changes; Ctrl-D is
    a no: the other files of the turn go back, the one edited by hand stays."""
    repo, home = make_repo(tmp_path), tmp_path / "home"
    asyncio.run(record_turn(home, repo, "sess-q"))
    (repo / "a.py").write_text("edited by hand after the turn\n")
    changed = tree_files(repo)
    pid, fd = pty.fork()
    if pid == 0:         # the child: `contextual undo` in a terminal, Ctrl-C at its default as a shell starts it
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        # … and unblocked: a blocked signal stays blocked across fork and exec, and the test process (an xdist worker
        # that ran other tests) may have it blocked; the full suite then saw Ctrl-C ignored
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        os.chdir(repo)
        os.execve(sys.executable, [sys.executable, "-m", "contextual", "undo"], cli_env(home))
    try:
        asked = _until_said(fd, b"[y/N]", time.monotonic() + 60)
        assert b"[y/N]" in asked, asked
        os.write(fd, key)
        deadline = time.monotonic() + 20         # far below a hang: it waited for ever
        said, done, status = b"", 0, 0
        while not done and time.monotonic() < deadline:
            said += _until_said(fd, b"\x00never", min(deadline, time.monotonic() + 0.2))
            done, status = os.waitpid(pid, os.WNOHANG)
        assert done, f"still waiting after the key: {said!r}"
        assert os.waitstatus_to_exitcode(status) == code, said
        assert b"Traceback" not in said
        assert (repo / "a.py").read_text() == "edited by hand after the turn\n"
        assert (tree_files(repo) == changed) == (key == b"\x03")
    finally:
        end_in_terminal(pid, fd)


def test_snapshots_stay_out_of_history_and_survive_a_compaction_and_a_resume(tmp_path, monkeypatch, capsys):
    repo, home = make_repo(tmp_path), tmp_path / "home"
    before = asyncio.run(record_turn(home, repo, "sess-c"))
    path = home / "projects" / str(repo.resolve()).replace("/", "-") / "sess-c.jsonl"
    writer = SessionWriter.reopen(path)                   # a resume, then a compaction archiving everything
    writer.append_compaction(CompactionRecord("manual", 900, 100, kept_from_id=None),
                             Message("summary", "the user asked for a refactor"))
    writer.close_sync()
    loaded = load_session(path)
    assert [m.role for m in loaded.history] == ["summary"]
    assert not any("ghost" in m.content or "snapshot" in str(m.meta) for m in loaded.full_record)
    assert [e["subtype"] for e in loaded.entries if "ghost" in str(e.get("subtype"))] == \
        ["ghost_snapshot", "ghost_snapshot_after"]
    monkeypatch.chdir(repo)
    assert undo_main([], env={"CONTEXTUAL_HOME": str(home)}) == 0
    assert tree_files(repo) == before


async def test_slash_undo_in_the_app_holding_the_session(tmp_path):
    from contextual.core.snapshot.undo import undo_in_open_session

    repo, home = make_repo(tmp_path), tmp_path / "home"
    before = await record_turn(home, repo, "sess-d")
    path = home / "projects" / str(repo.resolve()).replace("/", "-") / "sess-d.jsonl"
    writer = SessionWriter.reopen(path)                   # the app holds the lock
    try:
        result = await undo_in_open_session(repo, writer)
        assert result.turn_id == "t1" and tree_files(repo) == before
        assert result.message.role == "user" and result.message.content == result.note
        again = await undo_in_open_session(repo, writer)
        assert again.turn_id is None and again.message is None
    finally:
        await writer.close()
    loaded = load_session(path)
    assert [e["turnId"] for e in loaded.entries if e.get("subtype") == "undo"] == ["t1"]
    assert loaded.history[-1].id == result.message.id


def test_the_undo_command_names_the_turn_by_its_prompt_and_time_as_slash_undo_does(tmp_path):
    # `contextual undo` said "turn b4c4be712c56" where /undo said “make f1 add 100” (05:33)
    from tests.cli_helpers import contextual, home_of
    from tests.fakes.llm_server import FakeLLMServer
    project = tmp_path / "proj"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    edit = ('Thought: fix\nAction: Edit[{"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}]')
    with FakeLLMServer(kind="openai", script=[edit, "Thought: ok\nAction: Finish[fixed]"]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        ran = contextual(["-p", "fix   the sign\nof add", "--permission-mode", "bypass"], project, env)
    assert ran.returncode == 0, ran.stderr
    undone = contextual(["undo"], project, env)
    assert undone.returncode == 0, undone.stderr
    first = undone.stdout.splitlines()[0]
    assert first.startswith("Undid the file changes of the turn “fix the sign of add” (") and first.endswith("):")
    assert "return a - b" in (project / "calc.py").read_text()


def test_the_note_to_the_model_names_the_turn_by_its_number_and_first_words(tmp_path):
    """The model was told "the file changes of turn 555704035999": an id it never saw. It is told the turn's number
    in the session and its first words, and the resumed chat still names the turn as the user knows it."""
    import json

    from tests.cli_helpers import contextual, home_of
    from tests.fakes.llm_server import FakeLLMServer
    project = tmp_path / "proj"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    edit = ('Thought: fix\nAction: Edit[{"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}]')
    script = ["Thought: ok\nAction: Finish[looked]", edit, "Thought: ok\nAction: Finish[fixed]",
              "Thought: ok\nAction: Finish[noted]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        for argv in (["-p", "look around"], ["-c", "-p", "fix   the sign of add, the one in calc.py that subtracts "
                                                         "where it should add", "--permission-mode", "bypass"]):
            assert contextual(argv, project, env).returncode == 0
        assert contextual(["undo"], project, env).returncode == 0
        assert contextual(["-c", "-p", "what now?"], project, env).returncode == 0
        sent = json.dumps(srv.requests[-1]["messages"], ensure_ascii=False)
    turn = load_session(next((home_of(project) / "projects").glob("*/*.jsonl"))).full_record[2].meta["turn"]
    assert ("[undo] The user undid the file changes of turn 2 (“fix the sign of add, the one in calc.py…”): "
            "restored calc.py.") in sent
    assert turn not in sent
    exported = contextual(["export", "-c", "-o", str(tmp_path / "t.md")], project, env)
    assert exported.returncode == 0, exported.stderr
    assert "↶ Undid the file changes of the turn “fix the sign of add, the one in calc.py that subtracts" \
        in (tmp_path / "t.md").read_text()            # the user's label (turn_label), read back from the new note
