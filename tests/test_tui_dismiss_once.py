"""A screen is dismissed once (tui/dismiss_once.py, installed as Textual's Screen.dismiss): a double click on a
list's row sends a selection for each click, both handed to the screen before the first closed it. The second ran
the screen's callback again and popped the screen under it: /rewind's picker over the main screen ended the app
(ScreenStackError)."""

from __future__ import annotations

from textual import events
from textual.command import CommandPalette
from textual.widgets import OptionList

from contextual.tui.app import ContextualApp
from contextual.tui.screens.rewind_picker import RewindPicker
from tests.test_tui_opening_keys import burst, sessions
from tests.tui_helpers import SIZE, finish, make_host, run_turn, server, wait_for


async def test_a_double_click_on_a_row_of_the_rewind_picker_closes_it_once_and_the_app_goes_on(tmp_path):
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            await pilot.press("escape", "escape")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            rows = app.screen.query_one(OptionList)
            x, y = rows.region.x + 3, rows.region.y + 1
            for _ in range(2):          # both clicks read before the first is handled
                for kind in (events.MouseDown, events.MouseUp):
                    app.post_message(kind(None, x, y, 0, 0, 1, False, False, False, screen_x=x, screen_y=y))
            await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker))
            await pilot.pause()
            assert app.is_running and app._exception is None and len(app.screen_stack) == 1


async def test_a_choice_read_after_a_screen_opened_over_the_list_closes_the_list_once_it_is_on_top(tmp_path):
    """enter then ctrl+p on /resume's list, in one burst: the palette opened before the list read its row, whose
    close gave the session and popped the palette instead of the list; the list, left with its result given, ended
    the app at its next close (InvalidStateError). It waits under the palette and closes once that one does."""
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            chosen: list = []
            picker = sessions(app)
            app.push_screen(picker, chosen.append)
            await wait_for(pilot, lambda: app.screen is picker and picker.focused is not None)
            burst(app, "enter", "ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette) and app.screen.is_mounted)
            await pilot.pause()
            assert chosen == [] and picker in app.screen_stack
            await pilot.press("escape")                  # the palette closes; the list, on top, closes with its row
            await wait_for(pilot, lambda: chosen or app._exception)
            await pilot.pause()
            assert chosen == ["005f5b5dc"] and len(app.screen_stack) == 1 and app._exception is None
