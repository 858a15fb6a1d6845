"""A screen is dismissed once (tui/dismiss_once.py, installed as Textual's Screen.dismiss): a double click on a
list's row sends a selection for each click, both handed to the screen before the first closed it. The second ran
the screen's callback again and popped the screen under it: /rewind's picker over the main screen ended the app
(ScreenStackError)."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList

from contextual.tui.app import ContextualApp
from contextual.tui.screens.rewind_picker import RewindPicker
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
