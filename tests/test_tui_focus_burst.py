"""A key that moves the focus hands the next key of the same burst (a held key, a fast typist, tmux send-keys) to
where the focus went. Textual's focus() waits for the app's queue, and a key is handed to the focused widget as the
app takes it: the keys sent with a tab out of the chat, or with f2-f4, reached the widget the focus left (f3 [ typed
the [ in the input instead of showing the Scratchpad's previous turn). The focus moves at once, the f-keys are read
as the app takes them, and the input hands on a key that reached it after the focus left it."""

from __future__ import annotations

from textual import events
from textual.keys import _character_to_key
from textual.command import CommandInput, CommandPalette
from textual.widgets import Collapsible

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.tool_trail import TrailTitle
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import READ_CART, SIZE, finish, make_host, run_turn, server, wait_for

WIDE, NARROW = (160, 40), (80, 24)


def burst(app, *keys: str) -> None:
    """Every key queued before the app reads the first, as a terminal delivers them."""
    for key in keys:
        app.post_message(events.Key(_character_to_key(key), key) if len(key) == 1 else events.Key(key, None))


async def two_turns(pilot) -> tuple[PromptInput, ScratchpadView]:
    await run_turn(pilot, "first")
    await run_turn(pilot, "second")
    return pilot.app.query_one(PromptInput), pilot.app.query_one(ScratchpadView)


async def test_tab_out_of_the_chat_hands_the_next_key_to_the_pane_after_it(tmp_path):
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=WIDE) as pilot:
            prompt, pad = await two_turns(pilot)
            app.screen.set_focus(app.query_one(ChatLog))
            burst(app, "tab", "[")                       # on to the Scratchpad, then its previous turn
            await wait_for(pilot, lambda: pad.shown_turn is not None or prompt.text)
            assert app.focused is pad and pad.shown_turn == 1 and prompt.text == ""


async def test_an_f_key_hands_the_next_key_to_the_pane_it_focuses(tmp_path):
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=WIDE) as pilot:
            prompt, pad = await two_turns(pilot)
            history = app.query_one(HistoryView)
            assert app.focused is prompt
            burst(app, "f3", "[")
            await wait_for(pilot, lambda: pad.shown_turn is not None or prompt.text)
            assert app.focused is pad and pad.shown_turn == 1 and prompt.text == ""
            history.highlighted = 0
            burst(app, "f4", "p")                        # History's pin
            await wait_for(pilot, lambda: history.pinned or prompt.text)
            assert app.focused is history and history.pinned and prompt.text == ""
            prompt.past = ["an earlier input"]
            burst(app, "f4", "up")                       # hidden with the focus in it: the input's ↑ walks past inputs
            await wait_for(pilot, lambda: not history.display and app.focused is prompt)
            await wait_for(pilot, lambda: prompt.text or history.highlighted != 0)
            assert prompt.text == "an earlier input"


async def test_narrow_an_f_key_hands_the_next_key_to_the_tab_it_shows(tmp_path):
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt, pad = await two_turns(pilot)
            assert app.panes.narrow and not pad.display
            burst(app, "f3", "[")
            await wait_for(pilot, lambda: pad.shown_turn is not None or prompt.text)
            assert app.focused is pad and pad.display and pad.shown_turn == 1 and prompt.text == ""


async def test_a_key_sent_with_the_inputs_tab_is_the_rows(tmp_path):
    """tab from the input to the newest tool-call row, enter with it: the row opens. The enter was the input's,
    and sent what was typed there."""
    with server([READ_CART, finish("read")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=WIDE) as pilot:
            await run_turn(pilot, "read the cart")
            prompt = app.query_one(PromptInput)
            row = app.query_one(ChatLog).query(TrailTitle).last()
            trail = next(node for node in row.ancestors if isinstance(node, Collapsible))
            prompt.load_text("not yet")
            requests = len(srv.requests)
            burst(app, "tab", "enter")
            await wait_for(pilot, lambda: not trail.collapsed or prompt.text != "not yet" or app.turns.running)
            assert app.focused is row and not trail.collapsed
            assert prompt.text == "not yet" and len(srv.requests) == requests


async def test_a_palette_opened_by_a_key_sent_with_the_inputs_tab_keeps_its_focus_and_esc_closes_it(tmp_path):
    """tab then ctrl+p in one burst: ctrl+p (a priority key) opened the palette before the input read its tab,
    whose focus move then went to the palette's screen: the palette stayed open, esc doing nothing. The tab's
    move is the chat's screen's, found there once the palette closes."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one(PromptInput)
            await wait_for(pilot, lambda: app.focused is prompt)
            for key in ("tab", "ctrl+p"):
                app.post_message(events.Key(key, None))
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette) and app.screen.is_mounted)
            await pilot.pause()
            assert isinstance(app.focused, CommandInput)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
            assert app.focused is app.query_one(ChatLog)
