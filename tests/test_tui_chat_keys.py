"""The chat scrolls by keyboard, and the footer says how (user review): from the input pageup/pagedown page it
(the footer names them); tab goes on to the newest "▶ N tool calls" row, then to the chat itself, a focus stop
whose border lights and whose footer names its keys, where ↑ ↓ scroll a line, pageup/pagedown a page and
home/end go to the oldest and the newest. Before, tab went from the rows back to the input: the arrows never
scrolled the chat, and nothing on screen named a key that did."""

from __future__ import annotations

from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.tool_trail import TrailTitle
from tests.tui_helpers import READ_CART, finish, make_host, run_turn, server

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
            unlit = pane.styles.border_top
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
            assert pane.styles.border_top != unlit                  # its border lit, as the input's is
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
