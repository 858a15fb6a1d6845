"""The mouse on the real app against the fake server: drags, clicks and the wheel where a user puts them."""

from __future__ import annotations

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import finish, make_host, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog

SLOW = Reply("Thought: " + "thinking very slowly " * 100 + "\nAction: Finish[late]", chunk_delay=0.1)   # ~40 s


async def test_ctrl_c_copies_text_dragged_over_in_the_chat_and_the_turn_runs_on(tmp_path):
    # The app's ctrl+c (interrupt/quit, priority) came before the screen's copy: a user who dragged over an answer
    # and pressed ctrl+c to copy it interrupted the running turn, and copied nothing.
    with FakeLLMServer(kind="openai", script=[finish("copy this sentence please"), SLOW]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first")
            answer = app.query_one(ChatLog).query("Markdown").last().region
            await type_and_send(pilot, "take your time")
            await wait_for(pilot, lambda: app.turns.running)
            await pilot.mouse_down(offset=(answer.x, answer.y))
            await pilot.hover(offset=(answer.x + 12, answer.y))
            await pilot.mouse_up(offset=(answer.x + 12, answer.y))
            await wait_for(pilot, lambda: bool(app.screen.get_selected_text()))
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.clipboard == "copy this s" and app.turns.running
            await pilot.press("ctrl+c")              # the selection was copied and cleared: now it interrupts
            await wait_for(pilot, lambda: not app.turns.running)
            assert app.is_running
