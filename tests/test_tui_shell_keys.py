"""What a shell, Claude Code or Codex user's hands do in the input without thinking, on the real app: ctrl+k kills to
the line's end, ctrl+c empties a draft, ctrl+d on an empty input leaves, and /copy takes an answer out of a
full-screen chat."""

from __future__ import annotations

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import chat_text, finish, make_host, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.prompt_input import PromptInput

NARROW = (80, 24)


def toasts(app: ContextualApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_ctrl_k_in_a_draft_kills_to_the_lines_end_and_on_an_empty_input_it_compacts(tmp_path):
    """ctrl+k was the app's compact key before the input's: typed in a draft it opened the compaction (here, said
    there was nothing to compact) and the line stayed whole."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press(*"fix the parser", "ctrl+j", *"and the tests too")
            await pilot.press("up", *["left"] * 7, "ctrl+k")
            assert prompt.text == "fix the\nand the tests too" and prompt.cursor_location == (0, 7)
            assert app.screen is app.screen_stack[0] and toasts(app) == []
            await pilot.press("ctrl+z")
            assert prompt.text == "fix the parser\nand the tests too"
            prompt.clear()
            await pilot.press("ctrl+k")
            assert toasts(app) == ["Nothing to compact yet: 0 rounds in history."]


async def test_ctrl_c_on_a_draft_empties_the_input_which_ctrl_z_or_up_brings_back(tmp_path):
    """ctrl+c on a draft said "press ctrl+c again to quit", and the second press, the one that empties the input in
    Claude Code and Codex, left the app."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press(*"half a thought")
            await pilot.press("ctrl+c")
            assert prompt.text == "" and app.is_running
            assert toasts(app) == ["Input cleared: ctrl+z or ↑ brings it back."]
            await pilot.press("ctrl+z")
            assert prompt.text == "half a thought"
            await pilot.press("ctrl+c", "ctrl+c")         # the draft again, then the empty input: only armed
            assert prompt.text == "" and app.is_running
            assert toasts(app)[-1] == "Press ctrl+c again to quit."
            await pilot.press("up")
            assert prompt.text == "half a thought"
            prompt.clear()
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: not app.is_running or app._exit_renderables is not None
                           or app.return_code == 0)


async def test_ctrl_d_deletes_at_the_cursor_and_on_an_empty_input_twice_quits(tmp_path):
    """ctrl+d on an empty input, which leaves a shell, Claude Code, Codex and aider, did nothing here."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press(*"fix it", "home", "ctrl+d")
            assert prompt.text == "ix it" and toasts(app) == []
            prompt.clear()
            await pilot.press("ctrl+d")
            assert app.is_running and toasts(app)[-1] == "Press ctrl+d again to quit."
            await pilot.press("ctrl+d")
            await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_copy_puts_the_latest_or_the_nth_answer_on_the_clipboard_as_markdown(tmp_path):
    """Claude Code's and Codex's /copy was not there: the one way out of the full-screen chat was a drag over one
    pane's rows, or the terminal's own selection through the borders and the wrapping."""
    first = "Use `div`:\n\n```python\ndiv(1, 0)\n```"
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    with FakeLLMServer(kind="openai", script=[finish(first), finish(table)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await type_and_send(pilot, "/copy")
            await wait_for(pilot, lambda: "no answer to copy yet" in chat_text(app))
            await run_turn(pilot, "how do I divide?")
            await run_turn(pilot, "a table please")
            await type_and_send(pilot, "/copy")
            await wait_for(pilot, lambda: app.clipboard == table)
            assert toasts(app)[-1] == f"Copied the latest answer: {len(table)} characters."
            await type_and_send(pilot, "/copy 2")
            await wait_for(pilot, lambda: app.clipboard == first)
            assert toasts(app)[-1] == f"Copied answer 2 from the newest: {len(first)} characters."
            await type_and_send(pilot, "/copy 3")
            await wait_for(pilot, lambda: "only 2 answers to copy" in chat_text(app))
            await type_and_send(pilot, "/copy last")
            await wait_for(pilot, lambda: "/copy N copies the Nth answer from the newest" in chat_text(app))
            assert app.clipboard == first


async def test_copy_takes_an_answer_cut_off_by_esc_as_far_as_the_chat_shows_it(tmp_path):
    """An answer stopped mid-stream stays on screen (and in history, for the model), but /copy said "no answer to
    copy yet (older ones were compacted…)" beside it: it copies what the chat shows, and says it was cut off."""
    from contextual.tui.widgets.status_line import StatusLine
    words = " ".join(f"word{i}" for i in range(400))
    slow = Reply(f"Thought: done\nAction: Finish[{words}]", chunk_delay=0.02)
    with FakeLLMServer(kind="openai", script=[slow]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await type_and_send(pilot, "say a lot")
            await wait_for(pilot, lambda: "word20 " in chat_text(app))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running and not app.query_one(StatusLine).display)
            kept = next(m for m in app.engine.history.messages if m.meta.get("interrupted"))
            await type_and_send(pilot, "/copy")
            await wait_for(pilot, lambda: app.clipboard is not None and app.clipboard.startswith("word0 word1"))
            assert app.clipboard in kept.content and "word399" not in app.clipboard
            assert app.clipboard.split()[-1] in chat_text(app)          # as far as the chat showed it
            assert toasts(app)[-1] == (f"Copied the latest answer, cut off where the turn was interrupted: "
                                       f"{len(app.clipboard):,} characters.")
            assert "no answer to copy" not in chat_text(app)
