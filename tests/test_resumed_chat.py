"""The chat a resumed session shows is built from its record (tui/widgets/chat_log.py): it must say what the live
chat said."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.tui.widgets.chat_log import _turns


@asynccontextmanager
async def chat_showing(record: list[Message], compactions: list[Any] | None = None) -> AsyncIterator[Any]:
    """A chat alone in an app, showing `record` as a resumed session's chat is built."""
    from textual.app import App

    from contextual.tui.widgets.chat_log import ChatLog

    class Host(App):
        def compose(self):
            yield ChatLog()

    app = Host()
    async with app.run_test() as pilot:
        chat = app.query_one(ChatLog)
        await chat.show_transcript(record, compactions or [])
        await pilot.pause()
        yield chat


def test_a_reply_the_parser_refused_is_not_counted_as_a_tool_call():
    """Live: `1 tool call · Read`; resumed it said `2 tool calls · FormatError, Read · 1 failed`."""
    record = [Message("user", "look at a.py", meta={"raw": "look at a.py"}),
              Message("assistant", "I will read it", meta={"tool_name": FORMAT_ERROR_TOOL, "format_error": True}),
              Message("tool", "[error format_error: no Action]", meta={"tool_name": FORMAT_ERROR_TOOL}),
              Message("assistant", 'Action: Read[{"file_path": "a.py"}]',
                      meta={"tool_name": "Read", "args": {"file_path": "a.py"}}),
              Message("tool", "[ok] 1 line", meta={"tool_name": "Read"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "It sets x."})]
    (turn,) = _turns(record)
    assert [name for name, _, _ in turn.calls] == ["Read"]
    assert turn.calls[0][2] != "running" and turn.answers == ["It sets x."]


async def test_a_turn_that_ended_without_an_answer_says_so_when_resumed():
    """Live, a stopped turn said "turn cancelled"; resumed, it showed the question and its calls and nothing else,
    as if the answer were still to come."""
    from textual.widgets import Static

    from contextual.tui.widgets.chat_log import STOPPED_NOTE
    record = [Message("user", "run the tests", meta={"raw": "run the tests"}),
              Message("assistant", 'Action: Bash[{"command": "pytest"}]', meta={"tool_name": "Bash", "args": {"command": "pytest"}}),
              Message("tool", '{"status": "error", "error": {"code": "aborted"}}', meta={"tool_name": "Bash"}),
              Message("user", "go on", meta={"raw": "go on"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "Done."})]
    async with chat_showing(record) as chat:
        notes = [str(w.render()) for w in chat.query(Static) if w.has_class("notice")]
        assert notes == [STOPPED_NOTE]
        texts = [str(w.render()) for w in chat.children if isinstance(w, Static)]
        assert texts.index(STOPPED_NOTE) < next(i for i, t in enumerate(texts) if "go on" in t)


def test_a_resumed_turn_keeps_its_last_task_list():
    todos = [{"content": "read it", "status": "completed"}, {"content": "fix it", "status": "in_progress"}]
    record = [Message("user", "fix it", meta={"raw": "fix it"}),
              Message("assistant", "Action: TodoWrite", meta={"tool_name": "TodoWrite", "args": {"todos": todos[:1]}}),
              Message("tool", "[ok]", meta={"tool_name": "TodoWrite"}),
              Message("assistant", "Action: TodoWrite", meta={"tool_name": "TodoWrite", "args": {"todos": todos}}),
              Message("tool", "[ok]", meta={"tool_name": "TodoWrite"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "Fixed."})]
    (turn,) = _turns(record)
    assert turn.todos == todos


def _at(second: int) -> str:
    return f"2026-11-27T10:00:{second:02d}.000Z"


def _two_turns_with_a_summary_between() -> list[Message]:
    return [Message("user", "one", meta={"raw": "one", "timestamp": _at(1)}),
            Message("assistant", "Finish", meta={"final": True, "answer": "First.", "timestamp": _at(2)}),
            Message("summary", "## Summary", meta={"trigger": "auto", "rounds_archived": 1, "timestamp": _at(3)}),
            Message("user", "two", meta={"raw": "two", "timestamp": _at(5)}),
            Message("assistant", "Finish", meta={"final": True, "answer": "Second.", "timestamp": _at(6)})]


def test_a_resumed_chat_says_where_a_compaction_summarised_earlier_rounds_as_the_live_chat_did():
    """Live, the chat said "compacted (auto): 12.0k → 3.0k estimated tokens, 1 round archived"; resumed, it once said
    nothing, then a line without the figures."""
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.format import compaction_note
    record = CompactionRecord("auto", 12_000, 3_000, rounds_archived=1, timestamp=_at(4))
    first, second = _turns(_two_turns_with_a_summary_between(), [record])
    assert first.compacted == [("compacted (auto): 12.0k → 3.0k estimated tokens, 1 round archived", "info")]
    assert first.compacted[0][0] == compaction_note(record) and not second.compacted
    assert first.answers == ["First."]


async def test_a_compaction_that_cut_rounds_without_a_summary_is_shown_when_resumed():
    """A fallback leaves no summary message: the resumed chat showed nothing where rounds were cut."""
    from textual.widgets import Static

    from contextual.core.session.schema import CompactionRecord
    record = [m for m in _two_turns_with_a_summary_between() if m.role != "summary"]
    cut = CompactionRecord("auto", 12_000, 2_500, fallback="no answer from the summary model after 60s",
                           rounds_archived=1, timestamp=_at(4))
    late = CompactionRecord("manual", 6_000, 1_000, rounds_archived=1, timestamp=_at(9))
    async with chat_showing(record, [late, cut]) as chat:
        texts = [str(w.render()) for w in chat.children if isinstance(w, Static)]
        warned = [w for w in chat.query(Static) if w.has_class("-warning")]
        assert [str(w.render()) for w in warned] == [
            "compacted (auto): 12.0k → 2.5k estimated tokens, 1 round archived · fallback: no answer from the "
            "summary model after 60s"]
        where = texts.index(str(warned[0].render()))
        users = [i for i, t in enumerate(texts) if t.endswith(("one", "two"))]
        assert len(users) == 2 and users[0] < where < users[1]
        assert texts[-1].startswith("compacted (manual): 6.0k → 1.0k")     # after the last message: at the end


def test_the_first_frame_of_a_resumed_session_reads_the_compactions_among_its_last_turns(tmp_path):
    from contextual.core.session import read_tail
    from contextual.core.session.schema import CompactionRecord
    from contextual.core.session.writer import SessionWriter
    writer = SessionWriter.create(tmp_path / "home", tmp_path, session_id="s1")
    for text in ("one", "two", "three"):
        writer.append_message(Message("user", text, meta={"raw": text}))
        writer.append_message(Message("assistant", "Finish", meta={"final": True, "answer": text.upper()}))
        writer.append_compaction(CompactionRecord("auto", 9_000, 2_000, fallback="timed out", rounds_archived=1),
                                 None)
    writer.close_sync()
    tail = read_tail(writer.path, 2)
    assert [m.content for m in tail.messages if m.role == "user"] == ["two", "three"]
    assert tail.compactions == 3 and [r.fallback for r in tail.records] == ["timed out", "timed out"]
