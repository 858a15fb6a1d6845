"""/undo in the app: a real engine turn (fake server) changes files in a temporary git repository, the History
marks it as undoable, /undo restores the files, and hand edits made after the turn are only overwritten when the
user says so in the confirmation modal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextual.core.config import load_config
from tests.fakes.llm_server import FakeLLMServer
from tests.git_helpers import make_repo, tree_files
from tests.tui_helpers import chat_text, SIZE, finish, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost
from contextual.tui.screens.rewind_picker import RewindPicker
from contextual.tui.screens.confirm import ConfirmModal
from contextual.tui.widgets.history_view import UNDO_MARK, HistoryView


def write(path: str, content: str) -> str:
    return f"Thought: write {path}\nAction: Write[{json.dumps({'file_path': path, 'content': content})}]"


def host_for(repo: Path, base_url: str) -> RealHost:
    config = load_config(repo, {"model": "fake-model", "base_url": base_url, "api_key": "sk-test",
                                "permission_mode": "bypass"},
                         env={"CONTEXTUAL_HOME": str(repo.parent / "home")})
    return RealHost(config)


def undoable_rows(history: HistoryView) -> list[str]:
    return [m.content for m in history.messages if history.is_undoable(m)]


async def test_undo_restores_the_turns_file_and_the_history_marks_it(tmp_path):
    repo = make_repo(tmp_path)
    before = tree_files(repo)
    script = [write("a.py", "rewritten by the agent\n"), finish("rewrote a.py"), finish("nothing else"),
              finish("fine")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            history = app.query_one(HistoryView)
            await run_turn(pilot, "rewrite a.py")
            assert (repo / "a.py").read_text() == "rewritten by the agent\n"
            await wait_for(pilot, lambda: undoable_rows(history) == ["rewrite a.py"])
            assert UNDO_MARK in str(history.get_option_at_index(0).prompt)
            assert "undoable" in str(history.border_subtitle)
            await run_turn(pilot, "anything else?")          # a later turn that changes no file: /undo skips it

            # /undo names the turn by what the user typed and its time, and asks first: "n" changes nothing.
            await type_and_send(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            assert "“rewrite a.py” (" in app.screen.question
            assert "\nIt edited a.py.\n" in app.screen.question                # what goes back, named before
            assert app.engine.history.messages[0].meta["turn"] not in app.screen.question    # not a hash
            await pilot.press("n")
            await wait_for(pilot, lambda: "undo cancelled" in chat_text(app))
            assert (repo / "a.py").read_text() == "rewritten by the agent\n"
            await type_and_send(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            await pilot.press("y")
            await wait_for(pilot, lambda: "Undid the file changes" in chat_text(app))
            assert tree_files(repo) == before
            assert "Undid the file changes of the turn “rewrite a.py”" in chat_text(app)
            assert "restored   a.py" in chat_text(app)            # the user's rendering, not the model's note
            note = app.engine.history.messages[-1]
            assert note.role == "user" and note.content.startswith("[undo]") and note.meta.get("undo")
            await wait_for(pilot, lambda: undoable_rows(history) == [])
            assert not history.border_subtitle
            assert history.messages[-1] is note                     # the note is in history as stored

            await run_turn(pilot, "thanks")                         # the model is told its change is gone
            assert "[undo] The user undid" in json.dumps(srv.requests[-1])

            await type_and_send(pilot, "/undo")                     # nothing further back changed files
            await wait_for(pilot, lambda: "Nothing to undo" in chat_text(app))
            session_id = app.engine.session_id
        # Resumed, the chat shows the undo after the turn's answer, in the user's words (not the model's note).
        host = host_for(repo, srv.base_url)
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: "rewrote a.py" in chat_text(resumed))
            text = chat_text(resumed)
            # named: under the later turn, "this turn" credited the undo to the wrong one (helper-59)
            assert "[undo]" not in text and "Undid the file changes of the turn “rewrite a.py” (" in text
            assert "restored a.py" in text
            assert (text.index("rewrote a.py") < text.index("nothing else") < text.index("Undid the file changes")
                    < text.index("thanks"))


@pytest.mark.parametrize("answer", ["n", "y"])
async def test_hand_edits_after_the_turn_are_listed_and_kept_unless_confirmed(tmp_path, answer):
    repo = make_repo(tmp_path)
    before = tree_files(repo)
    script = [write("a.py", "by the agent\n"), write("new.py", "created by the agent\n"), finish("done")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "change things")
            assert (repo / "new.py").exists()
            (repo / "a.py").write_text("fixed by hand after the turn\n")

            await type_and_send(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            await pilot.press("y")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal) and "by hand" in app.screen.question.plain)
            assert "✎ a.py\n" in app.screen.question.plain and "new.py" not in app.screen.question.plain   # only the hand-edited file
            await pilot.press(answer)
            await wait_for(pilot, lambda: "Undid the file changes" in chat_text(app))
            assert not isinstance(app.screen, ConfirmModal)
            assert not (repo / "new.py").exists()                   # the agent's new file is gone either way
            if answer == "n":
                assert (repo / "a.py").read_text() == "fixed by hand after the turn\n"
                assert "kept       a.py (edited by hand after the turn)" in chat_text(app)
            else:
                assert tree_files(repo) == before
                assert "restored   a.py" in chat_text(app)


async def test_only_turns_that_changed_files_are_marked_also_after_resume(tmp_path, monkeypatch):
    import contextual.tui.shown_engine
    reads = []
    real = contextual.tui.shown_engine.undoable_turns_of

    async def counting(engine):
        reads.append(1)
        return await real(engine)

    monkeypatch.setattr(contextual.tui.shown_engine, "undoable_turns_of", counting)
    repo = make_repo(tmp_path)
    script = ['Thought: look\nAction: Read[{"file_path": "b.py"}]', finish("b.py holds a value"),
              write("c.py", "changed\n"), finish("changed c.py")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = host_for(repo, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            history = app.query_one(HistoryView)
            await run_turn(pilot, "what is in b.py?")
            await run_turn(pilot, "change c.py")
            await wait_for(pilot, lambda: undoable_rows(history) == ["change c.py"])
            read_so_far = len(reads)
            await pilot.press(*"typing a long question")         # no session read per keystroke
            await pilot.pause()
            assert len(reads) == read_so_far
            session_id = app.engine.session_id
            await pilot.press("ctrl+q")
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=SIZE) as pilot:
            history = resumed.query_one(HistoryView)
            await wait_for(pilot, lambda: undoable_rows(history) == ["change c.py"])
            row = next(i for i, m in enumerate(history.messages) if m.content == "change c.py")
            assert UNDO_MARK in str(history.get_option_at_index(row).prompt)
            assert UNDO_MARK not in str(history.get_option_at_index(0).prompt)


async def test_ctrl_z_never_reverts_files(tmp_path):
    """Shell users press ctrl+z by habit: it undoes typing in the input and never touches the project."""
    repo = make_repo(tmp_path)
    script = [write("a.py", "rewritten by the agent\n"), finish("rewrote a.py")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "rewrite a.py")
            prompt = app.query_one("#prompt")
            prompt.focus()
            await pilot.press("x", "y", "ctrl+z")
            await pilot.pause()
            assert prompt.text == ""                            # the typing is undone
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert prompt.text == ""            # not the message sent before (helper-121: it walked back into them)
            app.query_one(HistoryView).focus()
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert not app.workers or all(w.group != "undo" for w in app.workers)
            assert (repo / "a.py").read_text() == "rewritten by the agent\n"


async def test_rewind_goes_back_to_an_earlier_message_with_its_files_and_a_resume_agrees(tmp_path):
    repo = make_repo(tmp_path)
    script = [write("a.py", "first version\n"), finish("wrote v1"), write("a.py", "second version\n"),
              finish("wrote v2"), finish("looked")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = host_for(repo, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for text in ("write v1", "write v2", "look at it"):
                await run_turn(pilot, text)
            assert (repo / "a.py").read_text() == "second version\n"
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            picker = app.screen
            rows = [str(picker.query_one("#rewind-list").get_option_at_index(i).prompt) for i in range(3)]
            assert "look at it" in rows[0] and "write v2" in rows[1] and "(changed files)" in rows[1]
            await pilot.press("f", "down", "enter")               # back to before "write v2", files too
            await wait_for(pilot, lambda: "rewound to before: write v2" in chat_text(app))
            assert (repo / "a.py").read_text() == "first version\n"
            await wait_for(pilot, lambda: "Undid the file changes of the turn “write v2” (" in chat_text(app))
            assert app.engine.session_id not in chat_text(app) and "of turn " not in chat_text(app)   # no ids
            assert [m.content for m in app.engine.history.messages if m.role == "user"] == ["write v1"]
            assert app.query_one("#prompt").text == "write v2"          # the message comes back to the input
            assert "look at it" not in chat_text(app)
            session_id = app.engine.session_id
            await pilot.press("ctrl+q")
        resumed = host.resume(session_id)
        assert [m.content for m in resumed.engine.history.messages if m.role == "user"] == ["write v1"]


async def test_esc_twice_on_an_empty_input_when_idle_opens_rewind_and_once_says_so(tmp_path, monkeypatch):
    """The first esc did nothing visible, so nothing said that a second would open /rewind (user review)."""
    import contextual.tui.interrupt_keys as keys_module
    monkeypatch.setattr(keys_module, "REWIND_WITHIN", 60.0)      # "twice" by the key count, not the machine's speed
    repo = make_repo(tmp_path)
    with FakeLLMServer(kind="openai", script=[finish("first"), finish("second")]) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "one")
            await run_turn(pilot, "two")
            app.query_one("#prompt").load_text("a draft")
            await pilot.press("escape", "escape")                 # text in the input: esc leaves it alone
            await pilot.pause()
            assert not isinstance(app.screen, RewindPicker) and app.query_one("#prompt").text == "a draft"

            def hinted() -> bool:
                return any(str(n.message) == "esc again: /rewind" for n in app._notifications)
            assert not hinted()                                   # a draft: esc opens nothing, so says nothing
            app.query_one("#prompt").load_text("")
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, RewindPicker) and hinted()
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("escape")                           # closes the picker; nothing rewound
            await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker))
            assert [m.content for m in app.engine.history.messages if m.role == "user"] == ["one", "two"]


async def test_a_files_too_rewind_after_a_conversation_only_one_restores_every_later_turns_files(tmp_path):
    """Three turns writing files; /rewind without files to before the third, then /rewind with files to before
    the second: nothing was restored, yet the chat said "(files restored)" (tmux QA). The third turn's changes are
    still on disk and came after the second: both are undone, and each file restored is named."""
    repo = make_repo(tmp_path)
    script = [write("one.py", "1\n"), finish("t1"), write("two.py", "2\n"), finish("t2"), write("three.py", "3\n"),
              finish("t3")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for text in ("turn one", "turn two", "turn three"):
                await run_turn(pilot, text)
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("enter")                                     # before "turn three", files unchanged
            await wait_for(pilot, lambda: "rewound to before: turn three (files unchanged)" in chat_text(app))
            assert (repo / "three.py").exists()
            app.query_one("#prompt").load_text("")
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("f", "enter")                                # before "turn two" (now the newest), files too
            await wait_for(pilot, lambda: "rewound to before: turn two (files restored)" in chat_text(app))
            assert (repo / "one.py").exists() and not (repo / "two.py").exists() and not (repo / "three.py").exists()
            said = chat_text(app)
            assert "three.py" in said and "two.py" in said                    # each undo's files, after the redraw


async def test_the_rewind_notice_quotes_a_multi_line_message_on_one_line(tmp_path):
    """/rewind to before "queued one\\n\\nqueued two" (two queued messages sent as one): the notice quoted the
    message as it was, so "(files unchanged)" landed rows below on the second message's line (tmux QA, 80x24)."""
    repo = make_repo(tmp_path)
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "queued one\n\nqueued two")
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("enter")
            await wait_for(pilot, lambda: "rewound to before:" in chat_text(app))
            notice = next(line for line in chat_text(app).splitlines() if "rewound to before:" in line)
            assert notice == "rewound to before: queued one queued two (files unchanged)"


async def test_an_undo_then_a_compaction_read_in_that_order_live_and_resumed(tmp_path):
    """/undo, then /compact: live the chat said "Undid …" above "compacted (manual) …"; resumed (or forked) the
    compaction's line came first, as every compaction after a turn went before its undo notes (user review)."""
    from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
    from tests.test_resumed_chat import _chat_items
    repo = make_repo(tmp_path)
    script = [write("a.py", "rewritten by the agent\n"), finish("rewrote a.py"), finish("nothing else"),
              "## Summary\nThe agent rewrote a.py; the user undid it."]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = host_for(repo, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "rewrite a.py")
            await run_turn(pilot, "anything else?")
            await type_and_send(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            await pilot.press("y")
            await wait_for(pilot, lambda: "Undid the file changes" in chat_text(app))
            await type_and_send(pilot, "/compact 1")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "compacted (manual)" in chat_text(app))
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            live = _chat_items(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        said = [item.split(" ")[0] for item in live if item.startswith(("Undid", "compacted"))]
        assert said == ["Undid", "compacted"], live
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: "compacted (manual)" in chat_text(resumed))
            items = _chat_items(resumed)
            # resumed, the undo reads as one line (`note_for_user`), in the same place: after the turn's answer
            after = items[items.index("nothing else") + 1:][:2]         # then "resumed session …"
            assert after[0].startswith("↶ Undid the file changes of the turn “rewrite a.py”")
            assert after[1] == live[-1], items


def bash(command: str) -> str:
    return f"Thought: run it\nAction: Bash[{json.dumps({'command': command})}]"


@pytest.mark.parametrize("command, said", [
    ("ls", "\nIt edited a.py and ran 1 command.\n"),            # `ls` changed nothing: nothing of it goes back
    ("echo made > b.txt", "\nIt edited a.py and ran 1 command, which changed b.txt: it goes back too.\n"),
])
async def test_the_undo_question_says_a_commands_changes_go_back_only_when_it_made_some(tmp_path, command, said):
    """"ran 1 command, whose changes go back too" was said of a turn whose only command was `ls`: what the commands
    changed is read from the snapshot's difference before the question is asked."""
    repo = make_repo(tmp_path)
    script = [write("a.py", "rewritten\n"), bash(command), finish("done")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "rewrite a.py and look around")
            await wait_for(pilot, lambda: undoable_rows(app.query_one(HistoryView)) == ["rewrite a.py and look around"])
            await type_and_send(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            assert said in app.screen.question, app.screen.question
            await pilot.press("y")
            await wait_for(pilot, lambda: "Undid the file changes" in chat_text(app))
            assert not (repo / "b.txt").exists()
