"""The chat a resumed session shows is built from its record (tui/widgets/chat_log.py): it must say what the live
chat said."""

from __future__ import annotations

from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.tui.widgets.chat_log import _turns


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
    from textual.app import App
    from textual.widgets import Static

    from contextual.tui.widgets.chat_log import STOPPED_NOTE, ChatLog
    record = [Message("user", "run the tests", meta={"raw": "run the tests"}),
              Message("assistant", 'Action: Bash[{"command": "pytest"}]', meta={"tool_name": "Bash", "args": {"command": "pytest"}}),
              Message("tool", '{"status": "error", "error": {"code": "aborted"}}', meta={"tool_name": "Bash"}),
              Message("user", "go on", meta={"raw": "go on"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "Done."})]

    class Host(App):
        def compose(self):
            yield ChatLog()

    app = Host()
    async with app.run_test() as pilot:
        chat = app.query_one(ChatLog)
        await chat.show_transcript(record)
        await pilot.pause()
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


def test_a_resumed_chat_says_where_a_compaction_summarised_earlier_rounds():
    """Live, the chat said "compacted (auto): … 1 round archived"; resumed, nothing marked where it happened."""
    record = [Message("user", "one", meta={"raw": "one"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "First."}),
              Message("summary", "## Summary", meta={"trigger": "auto", "rounds_archived": 1}),
              Message("user", "two", meta={"raw": "two"}),
              Message("assistant", "Finish", meta={"final": True, "answer": "Second."})]
    first, second = _turns(record)
    assert first.compacted == ["compacted (auto): 1 round archived into a summary"] and not second.compacted
    assert first.answers == ["First."]
