"""The chat a resumed session shows is built from its record (tui/widgets/chat_log.py): it must say what the live
chat said."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.tui.widgets.resumed_turns import resumed_turns


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
    (turn,) = resumed_turns(record)
    assert [call.tool for call in turn.calls] == ["Read"]
    assert turn.calls[0][2] != "running" and turn.answers == ["It sets x."]


async def test_a_turn_that_ended_without_an_answer_says_so_when_resumed():
    """Live, a stopped turn said "turn cancelled"; resumed, it showed the question and its calls and nothing else,
    as if the answer were still to come."""
    from textual.widgets import Static

    from contextual.core.messages import NO_ANSWER as STOPPED_NOTE
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
    (turn,) = resumed_turns(record)
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
    """Live, the chat said "compacted (auto): trigger estimate 12.0k → 3.0k tokens, 1 round archived"; resumed, it
    once said nothing, then a line without the figures."""
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.format import compaction_note
    record = CompactionRecord("auto", 12_000, 3_000, rounds_archived=1, timestamp=_at(4))
    first, second = resumed_turns(_two_turns_with_a_summary_between(), [record])
    assert first.after == [("compacted (auto): trigger estimate 12.0k → 3.0k tokens, 1 round archived", "info")]
    assert first.after[0][0] == compaction_note(record) and not second.after
    assert first.answers == ["First."]


def test_a_compaction_made_once_an_input_was_sent_is_shown_under_it_and_one_between_steps_before_the_answer():
    """Live, a compaction that a new message set off showed under that message (its record is older than the
    message, which is recorded after it: meta `sent` says when it was sent), and one between two steps of a turn
    showed before its answer; resumed, both stood after the turn before / after the answer."""
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.format import compaction_note
    record = [Message("user", "one", meta={"raw": "one", "timestamp": _at(1)}),
              Message("assistant", "Finish", meta={"final": True, "answer": "First.", "timestamp": _at(2)}),
              Message("user", "two", meta={"raw": "two", "timestamp": _at(6), "sent": _at(4)}),
              Message("assistant", "Action: Read", meta={"tool_name": "Read", "args": {"file_path": "a.py"},
                                                         "timestamp": _at(7)}),
              Message("tool", "[ok]", meta={"tool_name": "Read", "timestamp": _at(8)}),
              Message("assistant", "Finish", meta={"final": True, "answer": "Second.", "timestamp": _at(10)})]
    before = CompactionRecord("manual", 9_000, 3_000, rounds_archived=1, timestamp=_at(3))   # /compact, then "two"
    sent = CompactionRecord("auto", 8_000, 2_000, rounds_archived=1, timestamp=_at(4))       # in the same ms
    between = CompactionRecord("auto", 7_000, 1_000, rounds_archived=1, timestamp=_at(9))
    first, second = resumed_turns(record, [between, sent, before])
    assert first.after == [(compaction_note(before), "info")] and not first.shown
    assert [s.line for s in second.shown] == [compaction_note(sent), "", compaction_note(between)]
    assert second.shown[1].kind == "trail" and not second.after and second.answers == ["Second."]


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
            "compacted (auto): trigger estimate 12.0k → 2.5k tokens, 1 round archived · fallback: no answer from "
            "the summary model after 60s"]
        where = texts.index(str(warned[0].render()))
        users = [i for i, t in enumerate(texts) if t in ("you  one", "you  two")]
        assert len(users) == 2 and users[0] < where < users[1]
        # after the last message: at the end
        assert texts[-1].startswith("compacted (manual): trigger estimate 6.0k → 1.0k")


async def test_the_earlier_turns_of_a_long_resumed_chat_go_above_a_command_output_the_first_recent_turn_carried():
    """The turns held back from the first frame mount above the first recent turn: above the `!command` output
    shown before its message, not between the two."""
    from contextual.core.context.user_shell import shell_block, shell_run
    from contextual.tui.widgets.chat_log import FIRST_TURNS
    result = {"status": "success", "data": {"stdout": "hi\n", "stderr": "", "exit_code": 0}}
    _, whole = shell_block("echo hi", result)
    record = []
    for n in range(FIRST_TURNS + 2):
        extra = {"full": f"{whole}\n\nturn {n}", "meta": {"raw": f"turn {n}", "shell": [shell_run("echo hi", whole)]}}
        record += [Message("user", f"turn {n}", **(extra if n == 2 else {"meta": {"raw": f"turn {n}"}})),
                   Message("assistant", "Finish", meta={"final": True, "answer": f"answer {n}"})]
    async with chat_showing(record) as chat:
        await chat.mount_earlier()
        items = [str(w.render()) if not hasattr(w, "source") else w.source for w in chat.children]
        assert items[:8] == ["you  turn 0", "answer 0", "you  turn 1", "answer 1", "$ echo hi", "```text\nhi\n```",
                             "its output joins your next message (as a Bash result would)", "you  turn 2"]


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


# ---- permission answers and a compaction before a turn, live and resumed (the real app, the fake server)

def _bash(command: str) -> str:
    return 'Thought: run it\nAction: Bash[{"command": "' + command + '"}]'


async def _first_frame_reads_as_live(tmp_path: Any, base_url: str, session_id: str, live: list[str],
                                     size: tuple[int, int], **flags: Any) -> None:
    """The session opened as a launch opens it (its first frame, then the rest): the chat reads as it did live."""
    from tests.tui_helpers import resumed_app, until_shown
    first_frame = resumed_app(tmp_path, base_url, session_id, **flags)
    async with first_frame.run_test(size=size) as pilot:
        await until_shown(pilot, first_frame)
        await pilot.pause()
        assert _chat_items(first_frame)[:len(live)] == live


def _chat_items(app: Any) -> list[str]:
    """The chat from top to bottom: a line as shown, a tool trail by its title and its rows (each call, what it
    returned, the permission answer it ran on), a "context adjusted" row by its title and body, an answer by its
    text."""
    from textual.widgets import Collapsible, Markdown, Static

    from contextual.tui.widgets.chat_log import ChatLog
    from contextual.tui.widgets.tool_trail import ToolTrail
    items = []
    for widget in app.query_one(ChatLog).children:
        if isinstance(widget, ToolTrail):
            items.append(f"trail: {widget.title}")
            items.append(str(widget.query_one(".trail-lines", Static).render()))
        elif isinstance(widget, Collapsible) and widget.has_class("adjusted"):
            items.append(f"adjusted: {widget.title}")
            items.append(str(widget.query_one(Collapsible.Contents).query_one(Static).render()))
        elif isinstance(widget, Markdown):
            items.append(widget.source)
        elif isinstance(widget, Static):
            items.append(str(widget.render()))
    return items


async def _answer_and_finish(pilot: Any, text: str, *keys: str) -> None:
    """Send `text`, answer the permission dialog it opens with `keys`, and wait for the turn's end."""
    from contextual.tui.screens.permission import PermissionModal
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.tui_helpers import type_and_send, wait_for
    pad = pilot.app.query_one(ScratchpadView)
    started = len(pad.turns)
    await type_and_send(pilot, text)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PermissionModal))
    await pilot.press(*keys)
    await wait_for(pilot, lambda: len(pad.turns) > started and pad.turns[-1].outcome != "running")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_resumed_chat_shows_the_permission_answers_and_a_compaction_before_a_turn_where_the_live_chat_did(
        tmp_path):
    """Live, the chat said "Bash: allowed once" and "Bash: denied · told the agent: …" above each call, and the
    automatic compaction a new message set off under that message; resumed, the answers were missing and the
    compaction stood after the turn before. Both ways of opening a session (the eager one, and the first frame read
    from the end of the record) and the redraw /rewind makes must show what the live chat showed."""
    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.compaction import CompactionModal
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.fakes.llm_server import Reply
    from tests.tui_helpers import SIZE, finish, make_host, server, type_and_send, wait_for
    script = [_bash("echo hi-one"), finish("first answer"), _bash("rm -rf build"),
              Reply(finish("second answer"), usage_input=3500),     # past the trigger: the next input compacts
              "## Summary\nThe user ran one command; another was denied.", finish("third answer")]
    flags = {"context_window": 4000, "keep_rounds": 1}
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, **flags), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await _answer_and_finish(pilot, "run echo", "y")
            await _answer_and_finish(pilot, "remove the build", "t", *"use make", "enter")
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "third question")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(pad.turns) == 3 and pad.turns[-1].outcome == "finished")
            await app.workers.wait_for_complete()
            await pilot.pause()
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)          # its lock: the session is opened again below
        # a plain "allowed once" rides on the call's row; a denial with a note keeps its line
        assert live[:4] == ["you  run echo", "trail: Bash echo hi-one · exit 0",
                            "✓ Bash echo hi-one · allowed once\n  ⎿ exit 0\n    hi-one", "first answer"]
        assert live[4:9] == ["you  remove the build", "Bash: denied · told the agent: use make",
                             "trail: ✗ Bash rm -rf build · The user denied this Bash call. The user says instead: use make",
                             "✗ Bash rm -rf build\n  ⎿ The user denied this Bash call. The user says instead: use make",
                             "second answer"]
        assert live[9] == "you  third question" and live[10].startswith("compacted (auto): ")
        assert live[11:] == ["third answer"]

        host = make_host(tmp_path, srv.base_url, **flags)
        eager = ContextualApp(host, host.resume(session_id), animate=False)
        async with eager.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.shown_engine.show_transcript(await eager.host.transcript(eager.engine))      # as /rewind redraws it
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)

        await _first_frame_reads_as_live(tmp_path, srv.base_url, session_id, live, SIZE, **flags)


async def test_a_compaction_between_two_steps_of_a_turn_stands_between_their_calls_live_and_resumed(tmp_path):
    """The third turn's first call reports 3,500 of 4,000 tokens: the engine compacts before its second call. The
    chat put the line after the whole turn's trail ("2 tool calls · Bash ×2", then "compacted"); it stands where it
    happened, the calls after it in a trail of their own, and a resumed chat shows the same."""
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.fakes.llm_server import Reply
    from tests.tui_helpers import SIZE, finish, make_host, run_turn, server, type_and_send, wait_for
    script = [finish("first answer"), finish("second answer"), Reply(_bash("echo one"), usage_input=3500),
              "## Summary\nTwo questions were answered.", _bash("echo two"), finish("third answer")]
    flags = {"context_window": 4000, "keep_rounds": 1, "permission_mode": "bypass"}
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, **flags), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two")
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "third question")
            await wait_for(pilot, lambda: len(pad.turns) == 3 and pad.turns[-1].outcome == "finished")
            await app.workers.wait_for_complete()
            await pilot.pause()
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert len(srv.requests) == 6 and srv.remaining == 0       # the summary was asked between the two calls
        assert live[4:6] == ["you  third question", "trail: Bash echo one · exit 0"]
        assert live[7].startswith("compacted (auto): ") and live[8] == "trail: Bash echo two · exit 0"
        assert live[-1] == "third answer"

        host = make_host(tmp_path, srv.base_url, **flags)
        eager = ContextualApp(host, host.resume(session_id), animate=False)
        async with eager.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)


def _write_turn(writer: Any, n: int, at: int, sent: int | None = None, name: str = "") -> Message:
    """A turn of the record at second `at`: its message, one Bash call denied with a note, the failed result, the
    answer. Returns its message."""
    from contextual.core.session.schema import PermissionRecord
    name = name or str(n)
    user = Message("user", f"q{name}", meta={"raw": f"q{name}", "timestamp": _at(at),
                                            **({"sent": _at(sent)} if sent is not None else {})})
    call = Message("assistant", _bash(f"echo {name}"), meta={"tool_name": "Bash", "args": {"command": f"echo {name}"},
                                                             "call_id": f"c{name}", "timestamp": _at(at + 1)})
    writer.append_message(user)
    writer.append_message(call)
    writer.append_permission(PermissionRecord("Bash", "deny", note=f"not {name}"))
    writer.append_message(Message("tool", '{"status": "error", "error": {"code": "permission_denied"}}',
                                  meta={"tool_name": "Bash", "call_id": f"c{name}", "timestamp": _at(at + 2)}))
    writer.append_message(Message("assistant", "Finish", meta={"final": True, "answer": f"A{name}",
                                                               "timestamp": _at(at + 3)}))
    return user


def test_the_first_frame_and_the_whole_record_place_permission_answers_and_a_turns_compaction_alike(tmp_path):
    """What a resumed chat is built from: each permission answer after the call it answered, one /rewind took back
    gone with it, and a compaction made after an input was sent under that input; the end of the record read alone
    (a long session's first frame) gives the same turns as the whole record."""
    from contextual.core.session import load_session, read_tail
    from contextual.core.session.schema import CompactionRecord
    from contextual.core.session.writer import SessionWriter
    writer = SessionWriter.create(tmp_path / "home", tmp_path, session_id="s1")
    _write_turn(writer, 1, 10)
    _write_turn(writer, 2, 20)
    # the third input was sent at :30, compacted at :31 (its record's time), recorded at :32
    writer.append_entry({**CompactionRecord("auto", 9_000, 2_000, rounds_archived=1).to_entry(), "timestamp": _at(31)})
    _write_turn(writer, 3, 32, sent=30)
    writer.close_sync()
    loaded = load_session(writer.path)
    calls = [m.id for m in loaded.full_record if m.meta.get("tool_name") and m.role == "assistant"]
    assert [(p.note, p.after) for p in loaded.permissions] == [("not 1", calls[0]), ("not 2", calls[1]),
                                                               ("not 3", calls[2])]
    whole = resumed_turns(loaded.full_record, loaded.compactions, loaded.permissions)
    assert [s.line for s in whole[0].shown] == ["Bash: denied · told the agent: not 1", ""]      # then the trail
    assert not whole[1].after
    assert [s.line for s in whole[2].shown] == ["compacted (auto): trigger estimate 9.0k → 2.0k tokens, 1 round "
                                                "archived", "Bash: denied · told the agent: not 3", ""]
    for turns in (1, 2, 3):
        tail = read_tail(writer.path, turns)
        assert resumed_turns(tail.messages, tail.records, tail.permissions) == whole[-turns:], turns

    # A rewind takes back the answers given in what it took back: in the history, and past a compaction.
    for compacted in (False, True):
        writer = SessionWriter.create(tmp_path / "home", tmp_path, session_id=f"rewound-{compacted}")
        first = _write_turn(writer, 1, 10)
        second = _write_turn(writer, 2, 20)
        if compacted:       # both rounds summarised: the rewind goes back past the compaction
            writer.append_compaction(CompactionRecord("manual", 9_000, 2_000, rounds_archived=2), None)
        writer.append_entry({"type": "system", "subtype": "rewind", "toUuid": (first if compacted else second).id})
        _write_turn(writer, 2, 40, name="again")
        writer.close_sync()
        loaded = load_session(writer.path)
        assert [p.note for p in loaded.permissions] == (["not again"] if compacted else ["not 1", "not again"])
        whole = resumed_turns(loaded.full_record, loaded.compactions, loaded.permissions)
        assert [t.text for t in whole] == (["qagain"] if compacted else ["q1", "qagain"])
        for turns in (1, 2):
            tail = read_tail(writer.path, turns)
            assert resumed_turns(tail.messages, tail.records, tail.permissions) == whole[-turns:], (compacted, turns)


def _steps(pad: Any) -> list[tuple]:
    return [(turn.number, turn.prompt, turn.outcome,
             [(s.step, s.thought, s.tool, s.args, s.observation, s.status) for s in turn.steps]) for turn in pad.turns]


async def test_a_resumed_scratchpad_browses_the_earlier_turns_as_the_live_one_did(tmp_path):
    """After `contextual -c` the Scratchpad said "each step of the running turn shows here" and [ had nothing to
    show (QA): the earlier turns' thoughts, actions and full observations are read from the record, numbered as
    they were, and a new turn numbers on."""
    from contextual.tui.app import ContextualApp
    import io

    from rich.console import Console

    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.tui_helpers import (SIZE, finish, make_host, make_project, resumed_app, run_turn, server, until_shown,
                                   wait_for)
    (make_project(tmp_path) / "notes.txt").write_text("alpha\nbeta\n")
    read = 'Thought: look at the notes\nAction: Read[{"file_path": "notes.txt"}]'
    missing = 'Thought: and the other file\nAction: Read[{"file_path": "absent.txt"}]'
    with server([read, finish("two lines"), missing, finish("no such file"), finish("third")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read the notes")
            await run_turn(pilot, "and absent.txt")
            live = _steps(app.query_one(ScratchpadView))
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert [(n, outcome) for n, _, outcome, _ in live] == [(1, "finished"), (2, "finished")]
        assert live[0][3][0][1:] == ("look at the notes", "Read", {"file_path": "notes.txt"},
                                     live[0][3][0][4], "success") and "beta" in live[0][3][0][4]
        assert live[1][3][0][5] == "error"

        first_frame = resumed_app(tmp_path, srv.base_url, session_id)
        async with first_frame.run_test(size=SIZE) as pilot:
            await until_shown(pilot, first_frame)
            pad = first_frame.query_one(ScratchpadView)
            assert _steps(pad) == live
            await pilot.press("f3")                       # narrow: the Scratchpad's tab, the pane has the keys
            await wait_for(pilot, lambda: first_frame.focused is pad)
            await pilot.press("left_square_bracket")
            await pilot.pause()
            assert pad.title.startswith("Scratchpad · turn 2 · step 2 · finished")
            await pilot.press("left_square_bracket")
            await pilot.pause()
            console = Console(width=200, record=True, file=io.StringIO())
            for widget in pad.children:
                console.print(widget.content)
            shown = console.export_text()
            assert "look at the notes" in shown and "beta" in shown and "you: read the notes" in shown
            await pilot.press("f2")
            await run_turn(pilot, "a third")
            assert [t.number for t in pad.turns] == [1, 2, 3] and pad.turns[-1].outcome == "finished"


def test_a_resumed_chat_and_scratchpad_clean_the_escapes_a_record_holds():
    """Live, the router cleans what was typed and every engine event; a record read back went to the chat and the
    Scratchpad as written, so a message's or a tool output's escape sequences reached the terminal."""
    from contextual.tui.widgets.scratchpad import recorded_turns
    record = [Message("user", "see \x1b[31mred\x1b[0m", meta={"raw": "see \x1b[31mred\x1b[0m"}),
              Message("assistant", 'Thought: look \x1b]0;title\x07\nAction: Read[{"file_path": "a.py"}]',
                      meta={"step": 1, "tool_name": "Read", "args": {"file_path": "a.py"}}),
              Message("tool", '{"status": "success"}', full="[ok]\n\x1b[31mFAILED\x1b[0m", meta={"step": 1}),
              Message("assistant", "Finish", meta={"step": 2, "final": True, "answer": "done"})]
    (turn,) = resumed_turns(record)
    assert "\x1b" not in turn.text and "red" in turn.text
    (recorded,) = recorded_turns(record)
    step = recorded.steps[0]
    texts = [recorded.prompt, step.thought or "", step.observation or ""]
    assert not any("\x1b" in t or "\x07" in t for t in texts), texts
    assert "FAILED" in texts[2] and step.status == "success" and recorded.outcome == "finished"


async def test_a_resumed_chat_shows_the_command_outputs_a_message_carried_as_the_live_chat_did(tmp_path):
    """Finding 12 of a user review: `!cmd` outputs went with the next message and are in the session file, but a
    resumed chat showed the message alone. Two commands before one message (a multi-line output with stderr and an
    exit code, then a short one), after a first turn: each way of opening the session shows what the live chat
    showed, in its place."""
    from contextual.tui.app import ContextualApp
    from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, server, type_and_send, wait_for
    commands = ["printf 'one\\ntwo\\n'; echo warned >&2; exit 4", "echo short"]
    with server([finish("first answer"), finish("second answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first question")
            for n, command in enumerate(commands, 1):
                await type_and_send(pilot, "!" + command)
                await wait_for(pilot, lambda: chat_text(app).count("joins your next message") == n)
                await app.workers.wait_for_complete()
            await run_turn(pilot, "what did they print?")
            await pilot.pause()
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        at = live.index(f"$ {commands[0]}")
        assert live[at + 1] == "```text\none\ntwo\n[stderr]\nwarned\n```\n\nexit 4"
        assert live[at + 3:at + 7] == ["$ echo short", "```text\nshort\n```", live[at + 2], "you  what did they print?"]
        assert live[:at] == ["you  first question", "first answer"] and live[-1] == "second answer"

        host = make_host(tmp_path, srv.base_url)
        eager = ContextualApp(host, host.resume(session_id), animate=False)
        async with eager.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)

        await _first_frame_reads_as_live(tmp_path, srv.base_url, session_id, live, SIZE)


async def test_esc_at_a_permission_question_shows_the_turn_live_as_it_reads_resumed(tmp_path):
    """Live, esc at Bash's question left the call out ("▶ 3 tool calls · LS, Read, Grep") and said "turn cancelled
    (recorded as interrupted)"; resumed, the record's aborted call was there ("▶ 4 tool calls · … Bash · 1 failed")
    and the line said "turn interrupted" (user review, helper-121)."""
    import json

    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.permission import PermissionModal
    from contextual.tui.widgets.tool_trail import ToolTrail
    from tests.fakes.llm_server import FakeLLMServer
    from tests.tui_helpers import chat_text, finish, make_host, type_and_send, wait_for, shown_screen

    def call(tool: str, **args: Any) -> str:
        return f"Thought: go\nAction: {tool}[{json.dumps(args)}]"

    def shown(app: Any) -> tuple[list[str], list[str]]:
        lines = chat_text(app).splitlines()
        return [str(trail.title) for trail in app.query(ToolTrail)], [line for line in lines if "turn " in line]

    script = [call("LS"), call("Grep", pattern="total_1"), call("Bash", command="rm -rf build"), finish("never")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await type_and_send(pilot, "look around")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running and "turn interrupted" in chat_text(app))
            live = shown(app)
            rows = str(app.query_one(ToolTrail).query_one(".trail-lines").render())
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        host = make_host(tmp_path, srv.base_url)
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: bool(resumed.query(ToolTrail)))
            again = shown(resumed)
            await resumed.host.close(resumed.engine)
    assert live == again == (["3 tool calls · LS, Grep, Bash · 1 failed"], ["turn interrupted"]), (live, again)
    assert rows.endswith("✗ Bash rm -rf build\n  ⎿ aborted")


def _five_reads(tmp_path: Any) -> list[str]:
    """Five modules of 240 lines and the calls that read them all: at an 8k window the turn must be fitted."""
    root = tmp_path / "proj"
    root.mkdir()
    for i in range(5):
        (root / f"m{i}.py").write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(120)))
    return [f'Thought: read m{i}\nAction: Read[{{"file_path": "m{i}.py"}}]' for i in range(5)]


async def test_a_resumed_chat_shows_the_turns_context_adjusted_row_and_the_compactions_kept_note_as_live(tmp_path):
    """Live at 8k, a turn of five 240-line Reads read "▶ context adjusted: steps 1–… to fit the 8,192-token window",
    and the next message's compaction "compaction: no round kept whole: …" above its line; resumed (-c, a long
    session's first frame, the redraw /rewind makes), neither was there: the session did not record them (user
    review, helper-139). The row opens with enter, as live."""

    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.compaction import CompactionModal
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.fakes.llm_server import Reply
    from tests.tui_helpers import finish, make_host, open_adjusted_row, run_turn, server, type_and_send, wait_for
    script = [*_five_reads(tmp_path), Reply(finish("read them"), usage_input=7000),   # past the trigger: compacts
              "## Summary\nThe five modules were read.", finish("second answer")]
    flags = {"context_window": 8192, "permission_mode": "bypass"}
    size = (100, 40)
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, **flags), animate=False)
        async with app.run_test(size=size) as pilot:
            await run_turn(pilot, "read the five modules")
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "and now?")
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished"
                           or isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            if isinstance(app.screen, CompactionModal):     # the card of a compaction at a new message waits
                await pilot.press("enter")
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished")
            await app.workers.wait_for_complete()
            await pilot.pause()
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert srv.remaining == 0
        rows = [i for i, item in enumerate(live) if item.startswith("adjusted: ")]
        assert len(rows) == 1 and live[rows[0]].endswith("to fit the 8,192-token window"), live
        assert live[rows[0] + 1].count(" tokens") >= 2 and live[rows[0] + 2] == "read them"    # before the answer
        kept = live.index("you  and now?") + 1
        assert live[kept].startswith("compaction: no round kept whole: ") and live[kept + 1].startswith("compacted")

        host = make_host(tmp_path, srv.base_url, **flags)
        eager = ContextualApp(host, host.resume(session_id), animate=False)      # -c
        async with eager.run_test(size=size) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await open_adjusted_row(pilot, eager)
            await eager.shown_engine.show_transcript(await eager.host.transcript(eager.engine))      # as /rewind redraws it
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)

        await _first_frame_reads_as_live(tmp_path, srv.base_url, session_id, live, size, **flags)


async def test_a_turn_stopped_after_its_steps_were_folded_shows_its_context_adjusted_row_live_and_resumed(tmp_path):
    """esc during the sixth call of the five-Read turn at 8k: the row came only at a turn's end, which a stopped
    turn never reaches; its fitting is summed up at its close, recorded, and shown above "turn interrupted", live
    and resumed alike."""
    from contextual.tui.app import ContextualApp
    from tests.fakes.llm_server import Fault
    from tests.tui_helpers import chat_text, finish, make_host, server, type_and_send, wait_for
    script = [*_five_reads(tmp_path), Fault("slow_first_byte", seconds=30, text=finish("too late"))]
    flags = {"context_window": 8192, "permission_mode": "bypass"}
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, **flags), animate=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await type_and_send(pilot, "read the five modules")
            await wait_for(pilot, lambda: len(srv.requests) == 6)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running and "turn interrupted" in chat_text(app))
            await pilot.pause()
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert live[-3] == "adjusted: context adjusted: steps 1–4 shortened to fit the 8,192-token window", live
        assert live[-2].startswith("the output of steps 1–4 left out") and live[-1] == "turn interrupted"
        host = make_host(tmp_path, srv.base_url, **flags)
        eager = ContextualApp(host, host.resume(session_id), animate=False)
        async with eager.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)


async def test_a_resumed_chat_says_what_a_precompact_hook_said_and_a_merge_of_summaries_as_live(tmp_path):
    """Live, a compaction's PreCompact hook said its note ("hook …: …") and a second summary at 4k said "compaction:
    2 summaries outgrew a quarter of the window: merged into one", both above its line; resumed (-c, the first
    frame), neither: the session kept no hook note and the loader did not say the merge (helper-139's review). The
    record keeps the hooks' notes (compactMetadata.hookNotes) and a resumed chat and the export say both as live."""
    import json

    from contextual.core.export import transcript
    from contextual.core.session import load_session
    from contextual.tui.app import ContextualApp
    from tests.fakes.llm_server import FakeLLMServer
    from tests.test_small_window_compaction import Agent
    from tests.tui_helpers import SIZE, compact_through_preview, make_host, make_project, run_turn
    make_project(tmp_path)
    (tmp_path / "home").mkdir()
    hook = "echo '{\"systemMessage\": \"PRECOMPACT-NOTE-k2\"}'"
    (tmp_path / "home" / "config.toml").write_text(
        f'[[hooks.PreCompact]]\nmatcher = "manual"\nhooks = [{{ type = "command", command = {json.dumps(hook)} }}]\n')
    flags = {"context_window": 4096, "auto_compact": False, "keep_rounds": 1}
    with FakeLLMServer("openai", responder=Agent()) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, **flags), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for turns in (range(3), range(3, 5)):
                for turn in turns:
                    await run_turn(pilot, f"turn {turn}")
                await compact_through_preview(pilot)
            await run_turn(pilot, "turn 5")
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        said = f"hook {hook!r}: PRECOMPACT-NOTE-k2"
        merged = "compaction: 2 summaries outgrew a quarter of the window: merged into one"
        assert [item for item in live if item in (said, merged) or item.startswith("compacted")] == [
            said, live[live.index(said) + 1], said, merged, live[live.index(merged) + 1]]
        assert live[live.index(merged) + 1].startswith("compacted (manual): ")

        host = make_host(tmp_path, srv.base_url, **flags)
        eager = ContextualApp(host, host.resume(session_id), animate=False)      # -c
        async with eager.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert _chat_items(eager)[:len(live)] == live
            await eager.host.close(eager.engine)
        await _first_frame_reads_as_live(tmp_path, srv.base_url, session_id, live, SIZE, **flags)
    text = transcript(load_session(host.session_path(session_id)))
    assert text.count(f"_{said}_") == 2 and text.count(f"_{merged}_") == 1
