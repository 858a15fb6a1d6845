"""What a daily user of Claude Code or Codex does without thinking, driven through the real app: choosing a
completion with the arrows, `@` a path with a space, a backslash for a new line, reading up the chat while an answer
streams, paging it from the input, a failed command's mark, an edit's permission at 80x24, a long code line, a
table's long cell, copying from the chat, and the line printed at quit."""

from __future__ import annotations

import pytest
from textual.app import App

from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import chat_text, finish, make_host, run_turn, shown_screen, type_and_send, wait_for
from contextual.tui import commands
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.prompt_input import PromptBox, PromptInput

NARROW = (80, 24)


class ChatApp(App):
    """The chat alone, for what it does with what it is given."""
    def compose(self):
        yield ChatLog()


async def test_the_completion_chosen_with_the_arrows_is_the_one_tab_and_enter_take(tmp_path):
    """`/co`, down, tab gave `/compact`, the first row, whatever row was chosen: tab asked for the list again and
    it went back to its first row. The same for `@` paths."""
    second = [c.name for c in commands.CommandTable().complete("/co")][1]
    (tmp_path / "proj").mkdir()
    for name in ("alpha.py", "beta.py"):
        (tmp_path / "proj" / name).write_text("")
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press("/", "c", "o", "down", "tab")
            assert prompt.text.strip() == second
            prompt.clear()
            await wait_for(pilot, lambda: app.query_one(PromptBox).paths is not None)
            await pilot.press(*"see @", "down", "enter")
            assert prompt.text == "see @beta.py "


async def test_reading_up_the_chat_while_an_answer_streams_is_not_pulled_back_to_its_end():
    """Each streamed piece scrolled the chat to its end, and Textual's deferred scroll ran even after the reader
    had scrolled up: the reader was yanked back down several times a second. The view stays where the reader put
    it, through the rest of the stream and its end; back at the end it follows again, and a message sent goes to
    the end."""
    app = ChatApp()
    async with app.run_test(size=NARROW) as pilot:
        chat = app.query_one(ChatLog)
        await chat.add_user("tell me more")
        for n in range(12):
            await chat.stream_answer(f"Paragraph {n}: " + "words to read slowly " * 8 + "\n\n")
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y > 2)
        await chat.stream_answer("Paragraph 12: more\n\n")       # its scroll to the end is pending…
        chat.scroll_to(y=2, animate=False)                       # …when the reader turns the wheel up
        for n in range(13, 30):
            await chat.stream_answer(f"Paragraph {n}: " + "words to read slowly " * 8 + "\n\n")
            await pilot.pause()
        await chat.finish_answer(None)
        await pilot.pause()
        assert chat.scroll_y == 2, "the reader was pulled away from what they read"
        chat.scroll_end(animate=False)
        await pilot.pause()
        await chat.add_answer("and more " * 100)                    # at the end again: it follows
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y > 2)
        chat.scroll_to(y=2, animate=False)
        await pilot.pause()
        await chat.add_user("next")
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y > 2)


async def test_a_chat_shorter_than_its_pane_starts_at_its_top():
    """The chat holds its end with Textual's anchor, which scrolls a chat shorter than its pane to a negative
    offset (textual#6652): its first lines stood at the bottom of an empty pane."""
    app = ChatApp()
    async with app.run_test(size=NARROW) as pilot:
        chat = app.query_one(ChatLog)
        await chat.add_user("hello")
        await chat.add_answer("Hi.")
        await pilot.pause()
        assert chat.children[0].region.y == chat.content_region.y + 1         # under its top margin
        assert chat.is_vertical_scroll_end


async def test_a_page_down_at_the_end_of_the_chat_leaves_it_following_what_streams():
    """Each scroll asked for releases Textual's anchor, which only a move back to the end takes again: pagedown or
    ↓ at the end moved nothing, and the answer streaming after it grew under the view, out of sight."""
    app = ChatApp()
    async with app.run_test(size=NARROW) as pilot:
        chat = app.query_one(ChatLog)
        await chat.add_user("tell me more")
        for n in range(12):
            await chat.stream_answer(f"Paragraph {n}: " + "words to read slowly " * 8 + "\n\n")
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y > 2)
        chat.focus()
        for key in ("pagedown", "down"):
            await pilot.press(key)
            await pilot.pause()
            end = chat.max_scroll_y
            await chat.stream_answer(f"After {key}: " + "words to read slowly " * 8 + "\n\n")
            await wait_for(pilot, lambda: chat.max_scroll_y > end and chat.scroll_y == chat.max_scroll_y)
        await chat.finish_answer(None)


async def test_page_up_and_down_in_the_input_scroll_the_chat(tmp_path):
    """The input has the focus all the time, and the chat scrolled only with the mouse: pageup/pagedown in the
    input did nothing a reader could see (they moved the cursor of a one-line input)."""
    with FakeLLMServer(kind="openai", script=[finish("\n\n".join(f"line {n}" for n in range(80)))]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            chat = app.query_one(ChatLog)
            await run_turn(pilot, "hello")
            await pilot.pause()
            bottom = chat.scroll_y
            assert bottom > 0 and app.focused is app.query_one(PromptInput)
            await pilot.press("pageup")
            await wait_for(pilot, lambda: chat.scroll_y < bottom)
            await pilot.press("pagedown")
            await wait_for(pilot, lambda: chat.scroll_y == bottom)
            assert app.focused is app.query_one(PromptInput)


@pytest.mark.parametrize("sent, said", [("/cost", "this session:"), ("!echo from the shell", "from the shell"),
                                         ("/nosuch", "unknown command /nosuch")])
async def test_a_command_sent_with_the_chat_scrolled_up_brings_its_answer_into_view(tmp_path, sent, said):
    """Scrolled up to read, `/cost`, a `!command` or a mistyped command said its answer below the view and the chat
    stayed put: the command looked like a key that did nothing. What is sent from the input goes to the end, as a
    message does."""
    with FakeLLMServer(kind="openai", script=[finish("\n\n".join(f"line {n}" for n in range(80)))]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            chat = app.query_one(ChatLog)
            await run_turn(pilot, "hello")
            await pilot.press("pageup", "pageup")
            await wait_for(pilot, lambda: chat.scroll_y < chat.max_scroll_y - 10)
            await type_and_send(pilot, sent)
            await wait_for(pilot, lambda: said in chat_text(app))
            await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y, timeout=5)


async def test_slash_exit_leaves_as_in_claude_code_and_codex(tmp_path):
    """/exit, the way out of Claude Code and Codex, was an unknown command here: "did you mean /export?"."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await type_and_send(pilot, "/exit")
            await wait_for(pilot, lambda: app.return_code is not None or "/export" in chat_text(app), timeout=10)
    assert app.return_code == 0


async def test_context_says_one_cached_message_in_the_singular():
    """After a compaction only the system prompt is the previous call's: /context said "the 1 messages above are"."""
    from contextual.tui.prompt_view import Shown, ShownMessage
    from contextual.tui.screens.context_view import ContextScreen

    def shown(*texts: str) -> Shown:
        messages = tuple(ShownMessage("user" if i else "system", "L1" if i == 0 else "L3", t, 5)
                         for i, t in enumerate(texts))
        return Shown(messages, {}, 15, 8000, 15, 6000, False)

    app = App()
    async with app.run_test(size=NARROW) as pilot:
        await app.push_screen(ContextScreen(shown("rules", "summary", "next"), shown("rules", "old", "older")))
        await pilot.pause()
        [mark] = [str(w.render()) for w in app.screen.query(".cache-mark")]
        assert "the 1 message above is a prefix a provider cache can reuse" in mark, mark


async def test_a_command_that_exits_non_zero_is_marked_failed_in_the_trail_and_history_live_and_resumed(tmp_path):
    """`pytest -q` with a failing test (exit 1) showed ✓ in the live trail, as if it passed; History never said
    `exit 1` either: the exit code was read from the stored form's `stats`, which it does not keep."""
    from contextual.tui.widgets.history_view import HistoryView
    from contextual.tui.widgets.tool_trail import ToolTrail
    failing = 'Thought: test\nAction: Bash[{"command": "echo 1 failed; false"}]'
    passing = 'Thought: again\nAction: Bash[{"command": "echo 2 passed"}]'
    with FakeLLMServer(kind="openai", script=[failing, passing, finish("fixed")]) as srv:
        host = make_host(tmp_path, srv.base_url, permission_mode="bypass")
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await run_turn(pilot, "run the tests")
            trail = app.query_one(ToolTrail)
            assert [call.status for call in trail.calls] == ["error", "success"]
            assert "1 failed" in str(trail.title)
            history = app.query_one(HistoryView)
            rows = [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]
            results = [row for row in rows if row.startswith("▸ Bash")]
            assert "· exit 1" in results[0] and "exit" not in results[1], results
            session_id = app.engine.session_id
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=NARROW) as pilot:
            await pilot.pause()
            trail = resumed.query_one(ToolTrail)
            assert [call.status for call in trail.calls] == ["error", "success"]


async def test_the_line_at_quit_offers_dash_c_only_for_the_session_dash_c_opens(tmp_path):
    """Quitting a session resumed from /resume (or with a newer one beside it) printed `Resume this session with
    contextual -c`, and `-c` opened the newer session."""
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        hints = []
        for opened in (None, None, "first"):
            app = ContextualApp(host, host.resume(hints[0][0]) if opened else None, animate=False)
            async with app.run_test(size=NARROW) as pilot:
                if not opened:
                    await run_turn(pilot, "work")
                session_id = app.engine.session_id
                await pilot.press("ctrl+q")
                await wait_for(pilot, lambda: app.return_code is not None)
            hints.append((session_id, app.shown_engine.resume_hint))
    (first, first_hint), (second, second_hint), (again, again_hint) = hints
    assert f"`contextual -c` (or `contextual -r {first[:8]}`)" in first_hint
    assert f"`contextual -c` (or `contextual -r {second[:8]}`)" in second_hint
    assert again == first and again_hint == f"Resume this session with `contextual -r {first[:8]}`."


async def test_an_edits_permission_shows_its_change_whole_at_80x24_with_what_it_adds_and_removes(tmp_path):
    """At 80x24 the diff has seven rows: its `--- a/` `+++ b/` head (the file is named on the line above) took two,
    and a one-line change showed its `-` line but not its `+` line until scrolled. Nothing said how big the edit was
    before scrolling through it."""
    import json

    from contextual.tui.screens.permission import PermissionModal
    from textual.containers import VerticalScroll
    root = tmp_path / "proj"
    root.mkdir()
    (root / "cart.py").write_text("".join(f"line {n}\n" for n in range(1, 30)) + "    return total\n")
    edit = {"file_path": "cart.py", "old_string": "    return total\n", "new_string": "    return total * qty\n"}
    with FakeLLMServer(kind="openai", script=[f"Thought: fix\nAction: Edit[{json.dumps(edit)}]", finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            prompt.load_text("fix it")
            await pilot.press("enter")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            modal = app.screen
            await pilot.pause()
            what = str(modal.query_one("#permission-what").render())
            assert what.endswith("cart.py  +1 −1"), what
            assert "+++" not in modal.preview and modal.preview.startswith("@@ ")
            preview = modal.query_one("#permission-preview", VerticalScroll)
            assert preview.virtual_size.height <= preview.scrollable_content_region.height   # no scrolling needed
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.turns.running)
            assert "total * qty" in (root / "cart.py").read_text()


async def test_a_long_line_in_an_answers_code_block_wraps_at_80_columns():
    """Textual's code block scrolls sideways with no scrollbar: at 80 columns a long line's end was cut off, with
    nothing to say so and no key to reach it. It wraps, as Claude Code's and Codex's do."""
    from contextual.tui.widgets.answer_markdown import AnswerFence

    app = ChatApp()
    async with app.run_test(size=NARROW) as pilot:
        chat = app.query_one(ChatLog)
        await chat.add_answer("Look:\n\n```python\ndef f():\n    return '" + "a" * 150 + "THE_END'\n```\n\nafter")
        await pilot.pause()
        fence = chat.query_one(AnswerFence)
        assert fence.max_scroll_x == 0
        assert "THE_END" in app.export_screenshot()


async def test_a_tables_cell_longer_than_its_column_folds_whole_at_80_columns():
    """Textual cut a cell to its column with an ellipsis: at 80 columns a `| file | change |` table lost its files'
    names and a table of many columns read `c…` in every cell, with nothing on screen to read the rest. A cell
    folds onto more rows, as Claude Code's do."""
    from textual.widgets._markdown import MarkdownTableCellContents

    path = "src/contextual/tui/widgets/answer_markdown_a_rather_long_module_name.py"
    wide = "| " + " | ".join(f"column{i}" for i in range(12)) + " |\n|" + "---|" * 12 + "\n| " + \
        " | ".join(f"value{i}" for i in range(12)) + " |"
    app = ChatApp()
    async with app.run_test(size=NARROW) as pilot:
        chat = app.query_one(ChatLog)
        await chat.add_answer(f"| file | change |\n|---|---|\n| {path} | the cells wrap |\n\n{wide}")
        await pilot.pause()
        cells = list(chat.query(MarkdownTableCellContents))
        assert len(cells) == 2 + 2 + 12 + 12 and "…" not in app.export_screenshot()
        folded = [c for c in cells if c.size.height > 1]
        assert cells[2] in folded and {str(c.render()) for c in folded} >= {path, "column11", "value11"}


async def test_ctrl_c_on_text_dragged_over_in_the_chat_copies_it_and_says_so(tmp_path):
    """The copy goes through the terminal and nothing on screen changed: whether ctrl+c copied or did nothing was
    anyone's guess (and the next ctrl+c then quit an idle app)."""
    from textual.selection import Selection
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            chat = app.query_one(ChatLog)
            await chat.add_notice("copy me please")
            await pilot.pause()
            notice = chat.query(".notice").last()
            app.screen.selections = {notice: Selection(None, None)}
            await pilot.press("ctrl+c")
            assert app.clipboard == "copy me please"
            assert [n.message for n in app._notifications] == ["Copied 14 characters."]
            prompt = app.query_one(PromptInput)
            prompt.load_text("abc")
            prompt.select_all()
            await pilot.press("ctrl+c")
            assert app.clipboard == "abc" and [n.message for n in app._notifications][-1] == "Copied 3 characters."


async def test_at_completes_a_path_with_a_space_quoted_and_the_file_is_mentioned(tmp_path):
    """`@user` completed `docs/user guide/`, and there it stopped: the space ended the `@` word, so nothing inside
    the folder was offered, and a file picked anyway was no mention (no reminder to read it). The path is quoted,
    as Claude Code writes it."""
    root = tmp_path / "proj"
    (root / "docs" / "user guide").mkdir(parents=True)
    (root / "docs" / "user guide" / "getting started.md").write_text("# start\n")
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            await wait_for(pilot, lambda: app.query_one(PromptBox).paths is not None)
            await pilot.press(*"read @user", "tab")
            assert prompt.text == 'read @"docs/user guide/'
            await pilot.press(*"get", "tab")
            assert prompt.text == 'read @"docs/user guide/getting started.md" '
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 1)
            sent = srv.requests[0]["messages"][-1]["content"]
            assert "The user mentioned @docs/user guide/getting started.md." in sent


async def test_a_backslash_then_enter_starts_a_new_line_as_in_claude_code(tmp_path):
    """Most terminals send shift+enter as enter: Claude Code's users end a line with `\\` for a new one. Here that
    sent the message, backslash and all."""
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await pilot.press(*"first", "backslash", "enter", *"second", "enter")
            await wait_for(pilot, lambda: len(srv.requests) == 1)
            assert srv.requests[0]["messages"][-1]["content"] == "first\nsecond"


async def test_shift_tab_in_an_edit_dialog_allows_it_and_the_sessions_later_edits_but_not_a_command(tmp_path):
    """Claude Code offers "allow all edits during this session" in its edit dialog; here "always" wrote a rule for
    good, and shift+tab there did nothing (helper-75)."""
    import json

    from contextual.tui.screens.permission import PermissionModal
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("a.py", "b.py"):
        (root / name).write_text("x = 1\n")

    def edit(name: str) -> str:
        args = {"file_path": name, "old_string": "x = 1", "new_string": "x = 2"}
        return f"Thought: fix {name}\nAction: Edit[{json.dumps(args)}]"
    bash = 'Thought: check\nAction: Bash[{"command": "echo checked"}]'
    with FakeLLMServer(kind="openai", script=[edit("a.py"), bash, edit("b.py"), finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = app.query_one(PromptInput)
            prompt.load_text("fix both")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen.tool == "Edit")
            first = app.screen
            await wait_for(pilot, lambda: not first.too_soon() and app.focused is not None)
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen.tool == "Bash")
            assert app.engine.config.permission_mode == "accept-edits" and "x = 2" in (root / "a.py").read_text()
            command = app.screen
            await wait_for(pilot, lambda: not command.too_soon())
            await pilot.press("shift+tab")                      # not offered for a command: nothing happens
            await pilot.pause()
            assert app.screen is command and app.engine.config.permission_mode == "accept-edits"
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.turns.running)
            assert "x = 2" in (root / "b.py").read_text(), "the later edit ran unasked"
            assert "accept" in str(prompt.border_subtitle)
            # the chat said "✓ Edit a.py · allowed once", and nothing that accept-edits was now on
            said = "Edit: permission mode changed to accept-edits, which allowed this call"
            assert said in chat_text(app) and "Edit a.py · allowed once" not in chat_text(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        host = make_host(tmp_path, srv.base_url)
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert said in chat_text(resumed)                  # the session recorded it so
            await resumed.host.close(resumed.engine)
