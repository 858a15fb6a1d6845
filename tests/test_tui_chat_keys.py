"""The chat scrolls by keyboard, and the footer says how (user review): from the input pageup/pagedown page it
(the footer names them); tab goes on to the newest "▶ N tool calls" row, then to the chat itself, a focus stop
whose border lights and whose footer names its keys, where ↑ ↓ scroll a line, pageup/pagedown a page and
home/end go to the oldest and the newest. Before, tab went from the rows back to the input: the arrows never
scrolled the chat, and nothing on screen named a key that did."""

from __future__ import annotations

import threading

from textual import events
from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.tool_trail import TrailTitle
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import (READ_CART, app_with_history, chat_text, finish, held, long_session, make_host, run_turn,
                               server, type_and_send, wait_for)

LONG = finish("\n\n".join(f"paragraph {i}: " + "the cart keeps its items in a list " * 3 for i in range(30)))


def footer(app) -> dict[str, tuple[str, int]]:
    """Each key the footer names: its keys as shown, and its right edge."""
    return {k.description: (str(k.key_display or k.key), k.region.right)
            for k in app.screen.query_one(Footer).query("FooterKey")}


def fits(app) -> bool:
    """Every key whole within the screen, none under the palette's key at the right edge."""
    keys = app.screen.query_one(Footer).query("FooterKey")
    palette = next(k for k in keys if k.description == "palette")
    return all(k.region.right <= palette.region.x for k in keys if k is not palette)


async def test_tab_reaches_the_chat_after_its_rows_where_the_keys_scroll_it_and_the_footer_names_them(tmp_path):
    with server([READ_CART, LONG, LONG]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "read the cart")
            chat, prompt = app.query_one(ChatLog), app.query_one(PromptInput)
            assert chat.max_scroll_y > 30 and chat.scroll_y == chat.max_scroll_y
            pane = app.query_one("#chat-pane")
            unlit = pane.styles.border_left         # under 30 rows the line at its left (app.tcss)
            assert footer(app)["scroll"][0] == "pgup pgdn" and fits(app)
            await pilot.press("pageup")                            # from the input, as before
            assert chat.scroll_y < chat.max_scroll_y and app.focused is prompt
            await pilot.press("tab")
            assert isinstance(app.focused, TrailTitle) and fits(app)
            await pilot.press("tab")
            assert app.focused is chat and footer(app)["scroll"][0] == "↑↓ pgup pgdn"
            for width in (70, 80):                                 # the palette's key shows from 70 columns
                await pilot.resize_terminal(width, 24)
                assert fits(app), width
            await pilot.pause()
            assert pane.styles.border_left != unlit                 # its line lit, as the input's border is
            await pilot.press("end")
            bottom = chat.max_scroll_y
            assert chat.scroll_y == bottom
            await pilot.press("up")
            assert chat.scroll_y == bottom - 1
            await pilot.press("pageup")
            assert chat.scroll_y <= bottom - 1 - (chat.scrollable_content_region.height - 2)
            await pilot.press("home")
            assert chat.scroll_y == 0
            await pilot.press("down", "pagedown")
            assert chat.scroll_y > 1
            await pilot.press("end")
            assert chat.scroll_y == bottom and app.focused is chat
            await pilot.press("x")                                 # typing still writes in the input
            assert prompt.text == "x" and app.focused is prompt
            await pilot.press("backspace", "tab", "tab", "tab")     # narrow: from the chat, back to the input
            assert app.focused is prompt


async def test_with_no_tool_calls_tab_goes_to_the_chat_itself(tmp_path):
    with server([LONG]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "what is the cart")
            chat = app.query_one(ChatLog)
            await pilot.press("tab")                               # not the region tabs: they showed nothing
            assert app.focused is chat
            await pilot.press("home")
            assert chat.scroll_y == 0


async def test_keys_sent_together_walk_the_rows_one_row_each(tmp_path):
    """↑ ↓ on a row focused the next one after the app's queue, behind the rest of a burst: each of those keys
    walked from the row it left, and ten ↑ sent together (a held key, tmux send-keys) moved one row. The view follows
    the row: from the chat's end, its animated scroll was taken for one that stayed there and stopped."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = app_with_history(tmp_path, srv.base_url, long_session(30))
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            chat = app.query_one(ChatLog)
            await wait_for(pilot, lambda: chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y)
            await pilot.press("tab")
            rows = list(chat.query(TrailTitle))
            assert len(rows) == 30 and app.focused is rows[-1]
            for keys, row in ((["up"] * 10, rows[-11]), (["down"] * 3, rows[-8]), (["up"] * 25, rows[0])):
                for key in keys:                 # all before the app reads the first
                    app.post_message(events.Key(key, None))
                await wait_for(pilot, lambda: app.focused is row)
                await wait_for(pilot, lambda: chat.scrollable_content_region.contains_region(row.region))
                assert app.focused is row
            prompt = app.query_one(PromptInput)
            prompt.past = ["an earlier input"]          # ↑ in the input: past inputs
            prompt.focus()
            await pilot.pause()
            for key in ("tab", "up", "up", "up"):       # tab's focus at once too: the ↑ after it walked past inputs
                app.post_message(events.Key(key, None))
            await wait_for(pilot, lambda: app.focused is rows[-4])
            assert not prompt.text
            await wait_for(pilot, lambda: chat.scrollable_content_region.contains_region(rows[-4].region))
            for _ in range(3):      # Textual's own scroll to a focused widget starts a refresh later: let it land
                await pilot.pause()
                await wait_for(pilot, lambda: not app.animator.is_being_animated(chat, "scroll_y")
                               and chat.scroll_y == chat.scroll_target_y)
            at = round(chat.scroll_y)
            for key in ("tab", "up", "up"):              # on to the chat, whose ↑ scrolls it, not to an older row
                app.post_message(events.Key(key, None))
            await wait_for(pilot, lambda: round(chat.scroll_y) == at - 2)
            assert app.focused is chat


async def test_a_row_focused_while_the_view_is_on_its_way_elsewhere_is_in_view_where_it_lands(tmp_path):
    """tab then ↑ sent together: tab's row (the newest) scrolled the chat toward its end, and Textual judged the row
    ↑ reached by the frame on screen, mid-way, where it showed whole: the view landed at the end with that row one
    line above it. Here the scroll under way is slow, so that the row is focused while a frame shows it."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = app_with_history(tmp_path, srv.base_url, long_session(30))
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            chat = app.query_one(ChatLog)
            await wait_for(pilot, lambda: chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y)
            end, view = chat.max_scroll_y, chat.scrollable_content_region
            top = {row: row.region.y - view.y + end for row in chat.query(TrailTitle)}
            row = max((r for r in top if top[r] < end), key=top.get)           # the newest row not shown at the end
            assert top[row] > end - view.height
            chat.scroll_to(y=top[row] - view.height // 2, animate=False, immediate=True)
            chat.scroll_to(y=end, duration=600, easing="linear", immediate=True)   # the row shows till its last line
            await wait_for(pilot, lambda: chat.can_view_entire(row))
            app.screen.set_focus(row)                                       # as ↑ on a row does
            await wait_for(pilot, lambda: chat.scroll_target_y <= top[row] < chat.scroll_target_y + view.height)
            await wait_for(pilot, lambda: not app.animator.is_being_animated(chat, "scroll_y"))
            await pilot.pause()
            assert app.focused is row and chat.scrollable_content_region.contains_region(row.region)


async def test_a_message_sent_moves_the_focus_from_a_row_of_the_chat_to_the_input(tmp_path):
    """tab and ↑ to a row while a queued message waits: its turn stays in the chat, but the view goes to the message
    sent, the row off screen (↑ jumped the view back up, enter toggled a row out of sight). The focus goes to the
    input, the view stays at the new message, and tab reaches the newest row."""
    gate = threading.Event()
    long = finish("\n\n".join(f"paragraph {i}" for i in range(12)))
    script = [READ_CART, long, READ_CART, held(gate, "answer 1"), READ_CART, finish("answer 2")]
    try:
        with server(script) as srv:
            app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
            async with app.run_test(size=(80, 24)) as pilot:
                await run_turn(pilot, "question 0")
                chat, prompt = app.query_one(ChatLog), app.query_one(PromptInput)
                await type_and_send(pilot, "question 1")
                await wait_for(pilot, lambda: len(srv.requests) == 4)         # its answer held at the gate
                await type_and_send(pilot, "question 2")                      # queued
                await pilot.press("tab", "up")
                rows = list(chat.query(TrailTitle))
                assert len(rows) == 2 and app.focused is rows[0]              # question 0's
                gate.set()
                await wait_for(pilot, lambda: "answer 2" in chat_text(app))
                await app.workers.wait_for_complete()
                await pilot.pause()
                assert rows[0].is_attached and not chat.scrollable_content_region.contains_region(rows[0].region)
                assert app.focused is prompt and chat.is_vertical_scroll_end
                await pilot.press("tab")
                newest = chat.query(TrailTitle).last()
                assert app.focused is newest and chat.scrollable_content_region.contains_region(newest.region)
    finally:
        gate.set()
