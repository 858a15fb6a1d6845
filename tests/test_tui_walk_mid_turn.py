"""Every key of the main screen and every slash command while a turn streams (issue 29: no key crashes the app in
any state). tests/test_tui_walk.py walks them on an idle, resumed, compacted session; here each key and command
lands on a running turn (a new one is started whenever one ended), and whatever it opened is closed again. ctrl+q
mid-turn is the last key (it waited on the turn's cancelled worker and crashed: tests/test_tui_keys.py)."""

from __future__ import annotations

from typing import Any

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.scratchpad import ScratchpadView
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import is_summary_request
from tests.test_tui_walk import LEAVE, SKIP_COMMANDS, SUMMARY, keys_of, own_widgets_with_keys
from tests.tui_helpers import SIZE, make_host, make_project, type_and_send, wait_for

SLOW = "Thought: " + "thinking very slowly " * 300 + "\nAction: Finish[done]"


def model(body: dict[str, Any]) -> Reply:
    # A long answer in sparse chunks: the turn outlasts the walk, and the app is idle between chunks (Pilot's
    # press waits for idle: a chunk every 10 ms made each key cost seconds).
    return Reply(SUMMARY) if is_summary_request(body) else Reply(SLOW, chunk_size=20, chunk_delay=0.2)


async def test_every_key_and_slash_command_on_a_running_turn(tmp_path):
    make_project(tmp_path)
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one("#prompt")
            pad = app.query_one(ScratchpadView)
            pressed: list[str] = []

            async def close_screens() -> None:
                for _ in range(6):                   # esc closes a screen (on the main screen it would interrupt)
                    if len(app.screen_stack) == 1:
                        return
                    await pilot.press("escape")
                    await pilot.pause()
                while len(app.screen_stack) > 1:
                    app.pop_screen()
                    await pilot.pause()

            async def a_turn_runs() -> None:
                await close_screens()
                if not app.turns.running:
                    await wait_for(pilot, lambda: not app.turns.running)
                    prompt.load_text("")
                    prompt.focus()
                    await type_and_send(pilot, "take your time")
                await wait_for(pilot, lambda: app.turns.running and pad.current is not None)

            def alive(what: str) -> None:
                assert app.is_running and app._exception is None, what

            targets = [(prompt, [k for k in keys_of(type(app)) if k not in LEAVE] + [app.COMMAND_PALETTE_BINDING])]
            targets += [(w, keys_of(type(w))) for w in own_widgets_with_keys(app)]
            for widget, keys in targets:
                for key in keys:
                    await a_turn_runs()
                    widget.focus()
                    await pilot.press(key)
                    await pilot.pause()
                    alive(f"{type(widget).__name__}: {key}")
                    pressed.append(key)
                    for region in ("chat", "scratchpad", "history"):      # f2–f4 hide one: show all again
                        if not app.query_one("#chat-pane" if region == "chat" else f"#{region}").display:
                            app.action_toggle_region(region)
            for command in sorted(c.name for c in app.command_table.all() if c.name not in SKIP_COMMANDS):
                await a_turn_runs()
                prompt.load_text("")
                prompt.focus()
                await type_and_send(pilot, command)
                await pilot.pause()
                alive(command)
                pressed.append(command)
            await close_screens()
            assert len(pressed) > 30, pressed
            await a_turn_runs()
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0 and app._exception is None
