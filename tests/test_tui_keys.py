"""Keys and layout as a Claude Code / Codex user expects them, on the real app against the fake server."""

from __future__ import annotations

import json

from textual import events
from textual.keys import _character_to_key

from textual.widgets import Static

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import SIZE, finish, make_host, slow_answer, type_and_send, wait_for, shown_screen
from contextual.tui.app import ContextualApp
from contextual.tui.screens.context_view import ContextScreen
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.status_line import StatusLine


async def test_layout_keys_palette_and_footers(tmp_path):
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            chat, side = app.query_one("#chat-pane"), app.query_one("#side")
            assert not app.query_one("#region-tabs").display            # wide: no tabs
            # F6 resizes the side even from the input (the TextArea would select a line).
            width = side.size.width
            await pilot.press("f6")
            await pilot.pause()
            assert side.size.width != width and app.query_one(PromptInput).selected_text == ""
            # F2 hides the chat and the side takes the whole width: no blank half.
            await pilot.press("f2")
            await pilot.pause()
            assert not chat.display and side.size.width == app.size.width
            await pilot.press("f2")
            await pilot.pause()
            assert chat.display
            # The palette lists the app's own commands before anything is typed.
            await pilot.press("ctrl+p")
            await pilot.pause()
            def palette_rows() -> list[str]:
                lists = app.screen.query("CommandList")
                if not lists:
                    return []
                options = lists.first()
                return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            await wait_for(pilot, lambda: any("/compact" in row for row in palette_rows()))
            assert any("/rewind" in row or "/resume" in row for row in palette_rows())
            # Each reads as Textual's own entries do: the command as typed over what it does (its arguments came
            # last, under the description's wrapped end)
            assert "/compact [N] [instructions]\nsummarise older rounds now" in "\n".join(palette_rows())
            await pilot.press("escape")
            # A sub-screen's footer lists its keys, not the main screen's.
            await pilot.press("ctrl+l")
            await pilot.pause()
            assert isinstance(app.screen, ContextScreen)
            shown = {b.binding.action for b in app.screen.active_bindings.values() if b.enabled and b.binding.show}
            assert "compact" not in shown and "resume" not in shown and "expand_all" in shown
            await pilot.press("escape")
            # 80x24: one region at a time, chosen by tabs (f4 is History).
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert app.query_one("#region-tabs").display and chat.display and not side.display
            await pilot.press("f4")
            await pilot.pause()
            assert not chat.display and app.query_one("#history").display and not app.query_one("#scratchpad").display
            # ctrl+c when idle asks to press again, then quits.
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.is_running
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: not app.is_running or app._exit_renderables is not None or app.return_code == 0)
    assert app.return_code == 0


async def test_at_80_columns_each_tab_names_the_key_that_shows_it(tmp_path):
    """At 80 columns nothing on screen said that f2 f3 f4 switch Chat, Scratchpad and History (user review)."""
    from textual.widgets import Tab, Tabs
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            tabs = app.query_one("#region-tabs", Tabs)
            labels = {t.id: t.label_text for t in tabs.query(Tab)}
            assert tabs.display and labels == {"tab-chat": "Chat f2", "tab-scratchpad": "Scratchpad f3",
                                               "tab-history": "History f4"}
            for tab in ("history", "scratchpad", "chat"):
                key = labels[f"tab-{tab}"].split()[-1]
                await pilot.press(key)                             # the key a tab names shows that region
                await wait_for(pilot, lambda: tabs.active == f"tab-{tab}" and app.query_one(f"#{tab}").display)


async def test_the_next_prompt_screen_walks_its_messages_with_tab_and_opens_them_with_enter(tmp_path):
    from textual.widgets import Collapsible
    from tests.tui_helpers import run_turn
    with FakeLLMServer(kind="openai", script=[finish("first answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "hello there")
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen))
            blocks = list(app.screen.query(Collapsible))
            assert len(blocks) >= 3 and all(block.collapsed for block in blocks)
            await pilot.press("enter")                  # the first message has the focus
            await pilot.pause()
            assert [block.collapsed for block in blocks[:3]] == [False, True, True]
            await pilot.press("tab", "tab", "enter")    # on to the third
            await pilot.pause()
            assert [block.collapsed for block in blocks[:3]] == [False, True, False]
            await pilot.press("shift+tab", "enter")     # back to the second
            await pilot.pause()
            assert [block.collapsed for block in blocks[:3]] == [False, False, False]


async def test_the_status_line_says_answering_while_the_answer_streams(tmp_path):
    """A long answer streaming into the chat read "Thinking… 14s" under it (tmux QA)."""
    answer = Reply("Thought: done\nAction: Finish[" + "word " * 300 + "]", chunk_delay=0.02)
    with FakeLLMServer(kind="openai", script=[answer]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "say a lot")
            status = app.query_one(StatusLine)
            await wait_for(pilot, lambda: status.state == "answering")
            assert "Answering… " in str(status.render()) and "esc to interrupt" in str(status.render())
            await pilot.press("escape")                  # no need to wait out the rest of the answer
            await wait_for(pilot, lambda: not app.turns.running)
            await pilot.pause()
            assert not status.display


async def test_ctrl_c_interrupts_a_turn_and_the_status_line_shows_life(tmp_path):
    slow = slow_answer()
    with FakeLLMServer(kind="openai", script=[slow]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "take your time")
            status = app.query_one(StatusLine)
            await wait_for(pilot, lambda: status.state == "thinking" and status.display)
            assert "Thinking" in str(status.render()) and "esc to interrupt" in str(status.render())
            pad = app.query_one(ScratchpadView)
            await wait_for(pilot, lambda: pad.current is not None and pad.current.steps and pad.current.steps[0].streamed)
            await pilot.press("ctrl+c")
            # the turn's worker is cancelled: waiting on it raises WorkerCancelled when the wait starts first
            await wait_for(pilot, lambda: not app.turns.running)
            await pilot.pause()
            assert pad.turns[-1].outcome == "interrupted" and app.is_running
            assert not status.display


async def test_ctrl_q_during_a_turn_quits_cleanly_and_records_it_interrupted(tmp_path):
    # Waiting on the cancelled turn's worker raised WorkerCancelled inside the quit: a traceback and exit 1.
    slow = slow_answer()
    with FakeLLMServer(kind="openai", script=[slow]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "take your time")
            pad = app.query_one(ScratchpadView)
            await wait_for(pilot, lambda: pad.current is not None and pad.current.steps and pad.current.steps[0].streamed)
            session = app.engine.session.path
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0 and app._exception is None
        assert app.shown_engine.resume_hint is not None and "contextual -c" in app.shown_engine.resume_hint
        entries = [json.loads(line) for line in session.read_text().splitlines()]
        assert any(e.get("subtype") == "interrupted" for e in entries)


async def test_permission_deny_and_tell_reaches_the_model_and_esc_stops_the_turn(tmp_path):
    bash = 'Thought: run it\nAction: Bash[{"command": "echo hi-from-bash"}]'
    with FakeLLMServer(kind="openai", script=[bash, finish("ok, no bash"), bash]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            modal = app.screen
            labels = [str(b.label) for b in modal.query("Button")]
            assert "Allow once [y]" in labels and "Deny [n]" in labels       # the key hints survive
            assert "Always [a]" in labels
            rule = str(modal.query_one("#permission-rule", Static).render())
            assert "Bash(echo:*)" in rule and ".contextual/config.local.toml" in rule   # shown before
            await pilot.press("t")
            await pilot.pause()
            note = modal.query_one("#permission-note")
            assert note.display and note.has_focus
            await pilot.press(*"use ls")                                   # letters are text here, not keys
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 2)
            await app.workers.wait_for_complete()
            sent = srv.requests[1]["messages"][-1]["content"]
            assert "denied" in sent and "use ls" in sent
            # Esc in the modal stops the turn instead of letting the model ask again.
            await type_and_send(pilot, "run it again")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running)     # the turn was cancelled: no wait on its worker
            await pilot.pause()
            assert app.query_one(ScratchpadView).turns[-1].outcome == "interrupted"
            assert len(srv.requests) == 3 and not app.turns.running


async def test_a_running_tool_shows_its_latest_output_line_in_the_status_line(tmp_path):
    import json
    command = "echo compiling-step-1; while [ ! -f go ]; do sleep 0.02; done; echo all-done"
    script = ['Thought: build\nAction: Bash[' + json.dumps({"command": command}) + ']', finish("built")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = make_host(tmp_path, srv.base_url, permission_mode="bypass")
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "build it")
            status = app.query_one(StatusLine)
            await wait_for(pilot, lambda: status.state == "tool" and status.tail == "compiling-step-1")
            assert "Running Bash" in str(status.render()) and "compiling-step-1" in str(status.render())
            (host.config.project_root / "go").write_text("")
            await wait_for(pilot, lambda: not app.turns.running)
            assert not status.display


async def test_a_key_typed_while_a_pane_has_the_focus_goes_to_the_prompt(tmp_path):
    from contextual.tui.widgets.history_view import HistoryView
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press("tab")              # the focus moves to the chat (no tool call rows yet)
            await pilot.pause()
            assert app.focused is not prompt
            await pilot.press("f", "i", "x", "space", "i", "t")
            await pilot.pause()
            assert prompt.text == "fix it" and app.focused is prompt
            # A key the focused pane binds stays the pane's: p pins in the History, the next key is typed.
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            history = app.query_one(HistoryView)
            history.focus()
            await pilot.pause()
            await pilot.press("p", "!")
            await pilot.pause()
            assert prompt.text == "fix it!" and app.focused is prompt


async def test_a_line_typed_in_one_burst_while_the_history_has_the_focus_is_sent(tmp_path):
    """`quick⏎` arriving at once (a fast typist, tmux send-keys, a paste): every key of the burst was queued at the
    History, which had the focus; its letters reached the prompt, its Enter was lost, so nothing was sent."""
    from contextual.tui.widgets.history_view import HistoryView
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "hello")
            await wait_for(pilot, lambda: not app.turns.running and len(srv.requests) == 1)
            app.query_one(HistoryView).focus()
            await pilot.pause()
            for key, character in [*((c, c) for c in "quick"), ("enter", "\r")]:
                app.post_message(events.Key(key, character))       # all queued before the first is handled
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)
            assert app.query_one(PromptInput).text == ""
            last = [m for m in srv.requests[-1]["messages"] if m["role"] == "user"][-1]["content"]
            assert last.startswith("quick")


async def test_choosing_a_region_tab_gives_its_pane_the_keys_and_typing_still_reaches_the_prompt(tmp_path):
    from tests.tui_helpers import run_turn
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            scratchpad = app.query_one(ScratchpadView)
            await pilot.press("f3")
            await pilot.pause()
            assert app.focused is scratchpad and scratchpad.shown_turn is None
            await pilot.press("[")                  # the Scratchpad's own key: the last turn, then the one before
            await pilot.press("[")
            await pilot.pause()
            assert scratchpad.shown_turn == 0
            # A burst, as a terminal delivers typing: once typing starts, the pane's own keys are typed too.
            for char in "hi[]":
                app.post_message(events.Key(_character_to_key(char), char))
            await pilot.pause()
            prompt = app.query_one(PromptInput)
            assert prompt.text == "hi[]" and app.focused is prompt and scratchpad.shown_turn == 0
            await pilot.press("f4")
            await pilot.pause()
            assert app.focused is app.query_one("#history")
            await pilot.press("f2")
            await pilot.pause()
            assert app.focused is prompt


async def test_enter_sends_what_is_typed_even_when_the_completion_list_has_not_caught_up(tmp_path):
    from tests.tui_helpers import run_turn
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "hello")           # the session has its file: it can be titled
            await pilot.press("/", "t", "i")
            await pilot.pause()                  # the list shows /title for "/ti"
            for char in "tle Renamed":           # the rest and enter in one burst, as a terminal sends them
                app.post_message(events.Key(_character_to_key(char), char))
            app.post_message(events.Key("enter", None))
            await wait_for(pilot, lambda: any("title: Renamed" in n.message for n in app._notifications))
            assert app.query_one(PromptInput).text == ""


async def test_up_and_down_walk_past_inputs_through_a_command_that_opens_the_completion_list(tmp_path):
    """A past `/help` brought back by up opened the command list, and the list then took up and down: no older
    input and no way back to the draft, and what was typed next joined it (`/export`, up, down, `/diff` typed:
    the transcript went to the file /diff; tmux QA). Edited, the text's list has the keys again."""
    from contextual.tui.widgets.completion_list import CompletionList
    from tests.tui_helpers import run_turn
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            prompt, completion = app.query_one(PromptInput), app.query_one(CompletionList)
            await run_turn(pilot, "first question")
            await type_and_send(pilot, "/help")
            await pilot.pause()
            await pilot.press("escape")                    # the help closes
            prompt.focus()
            prompt.load_text("my draft")
            walked = []
            for key in ("up", "up", "down", "down"):
                await pilot.press(key)
                await pilot.pause()
                walked.append((prompt.text, completion.display))
            assert walked == [("/help", True), ("first question", False), ("/help", True), ("my draft", False)]
            await pilot.press("up", *["backspace"] * 4)   # edited: up/down choose in the list again
            await pilot.pause()
            assert prompt.text == "/" and completion.display and completion.highlighted == 0
            await pilot.press("down")
            await pilot.pause()
            assert prompt.text == "/" and completion.highlighted == 1


async def test_esc_on_a_running_shell_command_stops_it_and_says_so_not_a_turn(tmp_path):
    """`!sleep 30` then esc: the command is ended, and the notice speaks of the command (it said a turn was
    interrupted and recorded, though no turn ran)."""
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "!sleep 30")
            await wait_for(pilot, lambda: app.turns.running)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running)
            said = [n.message for n in app._notifications]
            assert "Command stopped." in said and not any("Turn interrupted" in m for m in said), said


async def test_a_file_name_that_is_not_utf8_completed_by_at_is_sent_remembered_and_noted(tmp_path):
    """`café.py` named in Latin-1: @ completes it with a lone surrogate for the byte UTF-8 lacks, and enter ended
    the app (the input history could not encode it); a `# note` naming it did the same in its rules file, and a
    draft naming it at quit."""
    import os

    from contextual.tui.screens.memory_choice import MemoryChoice
    from contextual.tui.widgets.prompt_input import PromptBox
    from tests.tui_helpers import make_project
    root = make_project(tmp_path)
    (root / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            box = app.query_one(PromptBox)
            await wait_for(pilot, lambda: box.paths is not None)
            await pilot.press(*"read @caf", "tab")
            assert app.query_one(PromptInput).text == "read @caf\udce9.py "
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 1)
            await app.workers.wait_for_complete()
            # as the engine sends it: the byte written out, in a text any file can hold
            assert app.remembered.inputs()[-1] == "read @caf\\xe9.py"
            assert srv.requests[0]["messages"][-1]["content"] == "read @caf\\xe9.py"
            await pilot.press(*"# see @caf", "tab", "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.press("p")
            await wait_for(pilot, lambda: (root / "AGENTS.md").is_file())
            assert (root / "AGENTS.md").read_text(encoding="utf-8") == "- see @caf\\xe9.py\n"
            await pilot.press(*"then @caf", "tab", "ctrl+q")        # a draft at quit is kept for ↑ too
            await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0 and app.remembered.inputs()[-1] == "then @caf\\xe9.py "


async def test_wide_f3_and_f4_give_a_shown_pane_the_focus_before_hiding_it(tmp_path):
    """120 columns: the Scratchpad's [ ] and History's enter and p need the pane focused, and only a click did it
    (its own hint said so; tab never reached the Scratchpad; tmux QA). f3/f4 focus a shown pane; again, hide it."""
    from tests.tui_helpers import run_turn
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            scratchpad, history = app.query_one(ScratchpadView), app.query_one("#history")
            prompt = app.query_one(PromptInput)
            await pilot.press("f3")
            await pilot.pause()
            assert app.focused is scratchpad and scratchpad.display
            await pilot.press("[")                            # the pane's key, not a character in the prompt
            await pilot.pause()
            assert scratchpad.shown_turn is not None and prompt.text == ""
            await pilot.press("f4")
            await pilot.pause()
            assert app.focused is history and history.display and scratchpad.display
            await pilot.press("f4")                           # pressed again with the focus in it: hidden
            await pilot.pause()
            assert not history.display and app.focused is prompt
            await pilot.press("f4")                           # shown again, with the focus
            await pilot.pause()
            assert history.display and app.focused is history
            await pilot.press("f2")                           # the chat's keys are the prompt's
            await pilot.pause()
            assert app.focused is prompt and app.query_one("#chat-pane").display
