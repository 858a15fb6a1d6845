"""Damaged files and interrupted turns: what loads, what is skipped, what is synthesised."""

from __future__ import annotations

import json

import pytest

from contextual.core.session.schema import INTERRUPTED, CompactionRecord, Truncation, TurnEnd
from contextual.core.messages import Message
from contextual.core.session import SessionError, SessionWriter, load_session

ABORTED = {"status": "error", "error": {"code": "aborted", "message": "aborted"}}


def write_session(tmp_path, messages):
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    writer = SessionWriter.create(tmp_path / "home", project)
    for msg in messages:
        writer.append_message(msg)
    writer.close_sync()
    return writer.path


def test_corrupt_middle_line_is_skipped_with_its_line_number(tmp_path):
    msgs = [Message("user", f"u{i}") for i in range(5)]
    path = write_session(tmp_path, msgs)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:30] + b"#garbage"
    path.write_bytes(b"\n".join(lines))
    loaded = load_session(path)
    assert loaded.warnings == ["line 3: corrupt JSON, skipped"]
    assert [m.content for m in loaded.history] == ["u0", "u1", "u3", "u4"]


def test_torn_last_line_is_skipped_and_named(tmp_path):
    path = write_session(tmp_path, [Message("user", "a"), Message("user", "b"), Message("user", "c")])
    data = path.read_bytes()
    path.write_bytes(data[:-25])
    loaded = load_session(path)
    assert loaded.warnings == ["line 3: torn last line (the write was cut off), skipped"]
    assert [m.content for m in loaded.history] == ["a", "b"]


def test_reopen_after_a_torn_line_keeps_new_entries_whole(tmp_path):
    path = write_session(tmp_path, [Message("user", "a"), Message("user", "b")])
    path.write_bytes(path.read_bytes()[:-10])
    writer = SessionWriter.reopen(path)
    writer.append_message(Message("user", "c"))
    writer.close_sync()
    loaded = load_session(path)
    assert [m.content for m in loaded.history] == ["a", "c"]
    assert loaded.warnings == ["line 2: corrupt JSON, skipped"]
    # The parent chain continues from the last whole entry.
    assert loaded.entries[-1]["parentUuid"] == loaded.entries[0]["uuid"]


def test_valid_json_that_is_not_an_entry_is_skipped(tmp_path):
    path = write_session(tmp_path, [Message("user", "a")])
    with open(path, "ab") as handle:
        handle.write(b'[1, 2]\n{"type": "user", "uuid": "x"}\n')
    loaded = load_session(path)
    assert loaded.warnings == ["line 2: not a session entry, skipped", "line 3: malformed user entry (message.content is not text), skipped"]
    assert [m.content for m in loaded.history] == ["a"]


def test_missing_file_is_a_one_line_error(tmp_path):
    with pytest.raises(SessionError, match="no session file at"):
        load_session(tmp_path / "nope.jsonl")


def test_call_without_result_gets_aborted_result_right_after_its_assistant_message(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    user = Message("user", "run it")
    step = Message("assistant", "Thought: t\nAction: Bash", meta={"step": 1, "call_id": "c1", "tool_name": "Bash",
                                                                "args": {"command": "sleep 100"}})
    writer.append_message(user)
    writer.append_message(step)
    writer.append_tool_use("c1", "Bash", {"command": "sleep 100"}, step)
    writer.append_turn_end(TurnEnd(None, INTERRUPTED, "user pressed Esc"))
    later = Message("user", "next question")
    writer.append_message(later)
    writer.close_sync()

    loaded = load_session(writer.path)
    assert [m.role for m in loaded.history] == ["user", "assistant", "tool", "user"]
    aborted = loaded.history[2]
    assert json.loads(aborted.content) == ABORTED
    assert aborted.call_id == "c1" and aborted.tool_name == "Bash" and aborted.meta["step"] == 1
    # Loading twice gives the same history (the synthetic id is stable).
    assert load_session(writer.path).history == loaded.history


def test_tool_use_alone_without_assistant_meta_still_gets_aborted(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    step = Message("assistant", "Action: Read")
    writer.append_message(step)
    writer.append_tool_use("c9", "Read", {"file_path": "a"}, step)
    writer.close_sync()
    loaded = load_session(writer.path)
    assert [m.role for m in loaded.history] == ["assistant", "tool"]
    assert loaded.history[1].meta["args"] == {"file_path": "a"}


def test_result_whose_call_is_nowhere_is_dropped(tmp_path):
    orphan = Message("tool", '{"status": "success"}', meta={"tool_name": "Read", "call_id": "ghost"})
    path = write_session(tmp_path, [Message("user", "a"), orphan, Message("user", "b")])
    loaded = load_session(path)
    assert [m.content for m in loaded.history] == ["a", "b"]


def test_compaction_keeping_a_lost_message_keeps_everything_and_warns(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message("user", "a"))
    writer.append_compaction(CompactionRecord("manual", 10, 5, kept_from_id="lost-id"),
                             Message("summary", "S"))
    writer.close_sync()
    loaded = load_session(writer.path)
    assert [m.content for m in loaded.history] == ["S", "a"]
    assert "not in the record" in loaded.warnings[0]


def test_lone_surrogates_are_written_as_visible_text_so_the_session_stays_usable(tmp_path):
    """Issue 13.2: a surrogate kept in the file would come back on every -c and break every request."""
    msg = Message("tool", "bad \udcff byte", full="full \udc80 \ud83d", meta={"tool_name": "Read", "call_id": "c"})
    step = Message("assistant", "Action: Read", meta={"call_id": "c", "tool_name": "Read"})
    path = write_session(tmp_path, [step, msg])
    path.read_bytes().decode("utf-8")                           # the file itself is valid UTF-8
    loaded = load_session(path).history
    assert loaded[0] == step
    assert (loaded[1].content, loaded[1].full) == ("bad \\xff byte", "full \\x80 \ufffd")


def test_a_surrogate_escape_written_by_an_older_version_loads_as_valid_text(tmp_path):
    path = write_session(tmp_path, [Message("user", "placeholder")])
    path.write_bytes(path.read_bytes().replace(b"placeholder", b"old \\udc80 text"))
    [msg] = load_session(path).history
    assert msg.content == "old \\x80 text"
    msg.content.encode("utf-8")


def test_torn_inside_a_multibyte_character_and_a_bad_byte_in_the_middle(tmp_path):
    path = write_session(tmp_path, [Message("user", "一"), Message("user", "二"), Message("user", "三三三")])
    lines = path.read_bytes().split(b"\n")
    lines[0] = lines[0].replace("一".encode(), b"\xff\xfe")   # not UTF-8 at all
    data = b"\n".join(lines)
    cut = data.rindex("三".encode()) + 1                     # ends inside a character
    path.write_bytes(data[:cut])
    loaded = load_session(path)
    assert [m.content for m in loaded.history] == ["二"]
    assert loaded.warnings == ["line 1: corrupt JSON, skipped",
                               "line 3: torn last line (the write was cut off), skipped"]


def test_a_line_nested_deeper_than_the_limit_is_skipped_like_a_corrupt_one(tmp_path):
    path = write_session(tmp_path, [Message("user", "a"), Message("user", "b")])
    deep = b'{"type": "user", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], deep.rstrip(b"\n"), *lines[1:]]))
    loaded = load_session(path)
    assert loaded.warnings == ["line 2: nested deeper than 200 levels, skipped"]
    assert [m.content for m in loaded.history] == ["a", "b"]


def test_a_session_whose_last_turn_was_stopped_says_so_until_a_message_follows(tmp_path):
    """The stopped turn's next input tells the model (INTERRUPTED_NOTE); a resumed session must too."""
    project = tmp_path / "project"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message("user", "run it"))
    step = Message("assistant", "Thought: t\nAction: Bash", meta={"step": 1, "call_id": "c1", "tool_name": "Bash",
                                                                "args": {"command": "sleep 100"}})
    writer.append_message(step)
    writer.append_tool_use("c1", "Bash", {"command": "sleep 100"}, step)
    writer.append_message(Message("tool", '{"status": "error"}', meta={"call_id": "c1", "tool_name": "Bash"}))
    writer.append_turn_end(TurnEnd(None, INTERRUPTED, "cancelled by the user"))
    writer.close_sync()
    assert load_session(writer.path).stopped
    writer = SessionWriter.reopen(writer.path)
    writer.append_message(Message("user", "next question"))
    writer.close_sync()
    assert not load_session(writer.path).stopped


def test_a_compaction_cut_without_a_summary_is_owed_to_the_next_input_of_a_resumed_session(tmp_path):
    """A summary that failed inside a turn of `-p`: the note for the model went with the next input, which is in
    the next process; the session now says it is owed until a message of the user's follows."""
    from contextual.core.session.schema import CompactionRecord
    project = tmp_path / "project"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    writer.append_message(Message("user", "one"))
    writer.append_message(Message("assistant", "Thought: t\nAction: Finish[a]", meta={"final": True}))
    writer.append_compaction(CompactionRecord("auto", 9000, 800, (), "Summary generation failed (HTTP 500)", 1),
                             None)
    writer.close_sync()
    assert load_session(writer.path).cut == Truncation(1, "Summary generation failed (HTTP 500)")
    writer = SessionWriter.reopen(writer.path)
    writer.append_message(Message("user", "two"))
    writer.close_sync()
    assert load_session(writer.path).cut is None
