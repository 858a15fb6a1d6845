"""Listing sessions from the index sidecars; latest/find; catching up when the index is stale or missing."""

from __future__ import annotations

import os

from contextual.core.session.schema import CompactionRecord
from contextual.core.events import UsageEvent
from contextual.core.messages import Message
from contextual.core.session import SessionWriter, find_session, latest_session, list_sessions, load_session
from contextual.core.session import index as session_index
from contextual.core.session.paths import sessions_dir


def make_session(home, project, prompts, *, session_id=None, usage=None, compact=False):
    writer = SessionWriter.create(home, project, session_id=session_id)
    for prompt in prompts:
        writer.append_message(Message("user", prompt))
        writer.append_message(Message("assistant", f"answer to {prompt}", meta={"final": True}))
    if usage:
        writer.append_usage(UsageEvent(*usage))
    if compact:
        writer.append_compaction(CompactionRecord("manual", 900, 120, kept_from_id=None),
                                 Message("summary", "S"))
    writer.close_sync()
    return writer.path


def test_listing_reads_the_index_not_the_sessions(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    make_session(home, project, ["first question", "second"], session_id="s1", usage=(1000, 50))
    make_session(home, project, ["  other  "], session_id="s2", compact=True)

    def no_session_reads(*args, **kwargs):
        raise AssertionError("a session file was read while listing")

    monkeypatch.setattr(session_index, "_observe_bytes", no_session_reads)
    infos = {info.id: info for info in list_sessions(home, project)}
    assert infos["s1"].first_prompt == "first question" and infos["s1"].rounds == 2
    assert infos["s1"].last_tokens == 1050 and infos["s1"].compactions == 0
    assert infos["s2"].first_prompt == "other" and infos["s2"].compactions == 1 and infos["s2"].last_tokens == 120
    assert infos["s1"].cwd == str(project.resolve())
    assert infos["s1"].started <= infos["s1"].updated


def test_stale_index_catches_up_from_where_it_stopped(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    path = make_session(home, project, ["one"], session_id="s")
    indexed_size = session_index.read_index(path).size
    # Lines the index never saw (a crash before the next flush).
    extra = SessionWriter.reopen(path)
    monkeypatch.setattr(session_index, "write_index", lambda *a: None)
    import contextual.core.session.writer as writer_module
    monkeypatch.setattr(writer_module, "write_index", lambda *a: None)
    extra.append_message(Message("user", "two"))
    extra.append_usage(UsageEvent(300, 7))
    extra.close_sync()

    read_from = []
    real_observe = session_index._observe_bytes
    monkeypatch.setattr(session_index, "_observe_bytes",
                        lambda state, data: (read_from.append(len(data)), real_observe(state, data)))
    [info] = list_sessions(home, project)
    assert info.rounds == 2 and info.last_tokens == 307
    assert read_from == [path.stat().st_size - indexed_size]  # only the unindexed tail was read


def test_missing_index_small_file_is_scanned_large_file_reads_head_and_tail(tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    path = make_session(home, project, ["hello", "again"], session_id="s", usage=(10, 1))
    session_index.index_file(path).unlink()
    [info] = list_sessions(home, project)
    assert (info.first_prompt, info.rounds, info.last_tokens) == ("hello", 2, 11)

    session_index.index_file(path).unlink(missing_ok=True)
    state = session_index.current_state(path, full_scan_limit=10)
    assert state.first_prompt == "hello" and state.last_tokens == 11
    assert state.rounds is None  # unknown rather than wrong


def test_latest_session_matches_the_recorded_cwd(tmp_path):
    home = tmp_path / "home"
    real = tmp_path / "a-b"
    real.mkdir()
    colliding = tmp_path / "a" / "b"   # escapes to the same folder name as a-b
    colliding.mkdir(parents=True)
    assert sessions_dir(home, real) == sessions_dir(home, colliding)
    mine = make_session(home, real, ["mine"], session_id="mine")
    other = make_session(home, colliding, ["theirs"], session_id="theirs")
    assert latest_session(home, real) == mine
    assert latest_session(home, colliding) == other
    assert latest_session(home, tmp_path / "nowhere") is None


def test_latest_is_the_most_recently_updated(tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    make_session(home, project, ["old"], session_id="old")
    newer = make_session(home, project, ["new"], session_id="new")
    assert latest_session(home, project) == newer
    resumed = SessionWriter.reopen(sessions_dir(home, project) / "old.jsonl")
    resumed.append_message(Message("user", "more"))
    resumed.close_sync()
    assert latest_session(home, project).name == "old.jsonl"
    assert [i.id for i in list_sessions(home, project)] == ["old", "new"]


def test_find_session_by_id_or_unique_prefix(tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    a = make_session(home, project, ["a"], session_id="abc-1")
    make_session(home, project, ["b"], session_id="abd-2")
    assert find_session(home, project, "abc-1") == a
    assert find_session(home, project, "abc") == a
    assert find_session(home, project, "ab") is None      # ambiguous
    assert find_session(home, project, "zzz") is None
    assert find_session(home, project, "../x") is None


def test_listing_all_projects_and_ignoring_other_files(tmp_path):
    home = tmp_path / "home"
    p1, p2 = tmp_path / "p1", tmp_path / "p2"
    p1.mkdir()
    p2.mkdir()
    make_session(home, p1, ["x"], session_id="one")
    make_session(home, p2, ["y"], session_id="two")
    (sessions_dir(home, p1) / "notes.txt").write_text("not a session")
    assert sorted(i.id for i in list_sessions(home)) == ["one", "two"]
    assert list_sessions(tmp_path / "empty-home") == []


def test_index_agrees_with_a_full_load(tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    path = make_session(home, project, ["q1", "q2", "q3"], usage=(50, 5))
    [info] = list_sessions(home, project)
    loaded = load_session(path)
    assert info.rounds == sum(1 for m in loaded.full_record if m.role == "user")
    assert info.last_tokens == loaded.last_usage.total
    assert os.path.basename(info.path) == path.name


def test_a_rewind_takes_its_rounds_back_from_the_listing(tmp_path):
    """/rewind to the oldest message left the /resume row at "2 rounds · 647 tokens" for a session of 0 messages
    (tmux QA); the listing now agrees with a full load, also when it catches up from its sidecar."""
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    writer = SessionWriter.create(home, project, session_id="s")
    first, second = Message("user", "rewind test one"), Message("user", "rewind test two")
    for message in (first, second):
        writer.append_message(message)
        writer.append_message(Message("assistant", "ok", meta={"final": True}))
    writer.append_usage(UsageEvent(600, 47))
    writer.close_sync()
    [info] = list_sessions(home, project)
    assert info.rounds == 2 and info.last_tokens == 647
    writer = SessionWriter.reopen(writer.path)                  # the sidecar is read back, then caught up
    writer.append_entry({"type": "system", "subtype": "rewind", "toUuid": second.id})
    writer.close_sync()
    [info] = list_sessions(home, project)
    assert info.rounds == 1 == sum(1 for m in load_session(writer.path).history if m.role == "user")
    assert info.first_prompt == "rewind test one" and info.last_tokens is None
    writer = SessionWriter.reopen(writer.path)
    writer.append_entry({"type": "system", "subtype": "rewind", "toUuid": first.id})
    writer.close_sync()
    [info] = list_sessions(home, project)
    assert info.rounds == 0 and info.first_prompt is None and not load_session(writer.path).history


def test_a_commands_result_waits_in_the_record_until_a_message_the_user_sends_takes_it(tmp_path):
    """`!command` results are kept with the session until a message takes them, as the live engine holds them: a
    session begun by one is listed by it and `-c` opens it; an undo's note takes none; a rewind, to before a message
    or past a compaction, leaves waiting only those no message it kept had taken (a message taken back took its own
    with it, live too)."""
    from contextual.core.session.schema import shell_body
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    writer = SessionWriter.create(home, project, session_id="s")
    writer.append_entry(shell_body("ls", "sent ls", "whole ls"))
    writer.close_sync()
    [info] = list_sessions(home, project)
    assert info.first_prompt == "!ls" and latest_session(home, project) == writer.path
    assert load_session(writer.path).shell == [("sent ls", "whole ls", "ls")]
    first, second = Message("user", "one", meta={"turn": "t1"}), Message("user", "two", meta={"turn": "t2"})
    writer = SessionWriter.reopen(writer.path)
    writer.append_message(first)                                          # took `ls`
    writer.append_message(Message("assistant", "ok", meta={"final": True}))
    writer.append_entry(shell_body("pwd", "sent pwd", "whole pwd"))
    writer.append_message(Message("user", "[undo] the user undid turn 1", meta={"undo": "t1"}))
    writer.close_sync()
    assert load_session(writer.path).shell == [("sent pwd", "whole pwd", "pwd")]
    writer = SessionWriter.reopen(writer.path)
    writer.append_message(second)                                         # took `pwd`
    writer.append_message(Message("assistant", "ok", meta={"final": True}))
    writer.append_entry(shell_body("date", "sent date", "whole date"))
    writer.close_sync()
    assert load_session(writer.path).shell == [("sent date", "whole date", "date")]
    for compacted in (False, True):
        copy = SessionWriter.create(home, project, session_id=f"c{compacted:d}")
        for entry in load_session(writer.path).entries:
            copy.append_entry({k: v for k, v in entry.items() if k != "sessionId"})
        if compacted:           # `second` archived: the rewind reads the record again without it
            copy.append_compaction(CompactionRecord("auto", 1000, 100, kept_from_id=None, rounds_archived=2),
                                   Message("summary", "## Summary\nTwo questions, both answered."))
        copy.append_entry({"type": "system", "subtype": "rewind", "toUuid": second.id})
        copy.close_sync()
        assert load_session(copy.path).shell == [("sent date", "whole date", "date")], compacted
