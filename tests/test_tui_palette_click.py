"""The command palette closes once and runs a command once. A double click beside it or on a row, or enter twice,
both read before the first closed it (a busy app, a terminal sending both at once): Textual's close pops the top
screen whichever it is, so over the main screen the app ended (ScreenStackError), over /help the second closed
/help too (tui/dismiss_once.py); and a command chosen twice ran twice (tui/palette.py: Palette._closed_already)."""

from __future__ import annotations

from textual import events
from textual.widgets import Input
from textual.command import CommandInput, CommandList, CommandPalette
from textual.keys import _character_to_key

from contextual.tui.app import ContextualApp
from contextual.tui.palette import Palette
from contextual.tui.screens.info import InfoScreen
from tests.tui_helpers import SIZE, make_host, server, type_and_send, wait_for


def clicks_at(app, x: int, y: int, times: int) -> None:
    """Every click queued before the app reads the first, as a terminal's reports read at once."""
    for _ in range(times):
        for kind in (events.MouseDown, events.MouseUp):
            app.post_message(kind(None, x, y, 0, 0, 1, False, False, False, screen_x=x, screen_y=y))


def double_click_beside(app) -> None:
    clicks_at(app, 0, app.size.height - 2, 2)         # the bottom-left corner: beside the palette


async def test_a_double_click_beside_the_palette_closes_the_palette_and_nothing_else(tmp_path):
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
            double_click_beside(app)
            await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
            await pilot.pause()
            assert app.is_running and app._exception is None and len(app.screen_stack) == 1

            await type_and_send(pilot, "/help")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
            double_click_beside(app)
            await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
            await pilot.pause()
            assert isinstance(app.screen, InfoScreen) and len(app.screen_stack) == 2


async def test_a_command_chosen_twice_at_once_runs_once_and_closes_only_the_palette(tmp_path):
    """A double click on a row, or enter twice, both read before the first closed the palette: the command ran twice
    and the second close popped the screen under it (the app ended over the main screen)."""
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for choose in ("click", "enter"):
                await pilot.press("ctrl+p")
                await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
                for char in "/help":
                    app.post_message(events.Key(_character_to_key(char), char))
                rows = app.screen.query_one(CommandList)
                await wait_for(pilot, lambda: rows.option_count and "/help" in str(rows.get_option_at_index(0).prompt))
                if choose == "click":
                    clicks_at(app, rows.region.x + 4, rows.region.y + 1, 2)
                else:
                    for _ in range(2):
                        app.post_message(events.Key("enter", "\r"))
                await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
                await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
                await pilot.pause()
                assert app.is_running and app._exception is None, choose
                assert [type(s).__name__ for s in app.screen_stack] == ["Screen", "InfoScreen"], choose
                await pilot.press("escape")
                await wait_for(pilot, lambda: len(app.screen_stack) == 1)


async def test_a_search_typed_as_the_palette_closes_searches_nothing(tmp_path, monkeypatch):
    """A letter its input took as the palette closed (esc read first: in a burst, an esc typed for the main screen
    came back up to the app as the palette opened) started a search on the closed palette, whose batch of rows
    found the list gone and ended the app (a fuzz of bursts found it; the search must outlast the close)."""
    searched_closed = []
    gather = Palette._gather_commands

    def searching(palette, value: str):
        searched_closed.append(not palette.is_active)
        return gather(palette, value)
    monkeypatch.setattr(Palette, "_gather_commands", searching)
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, Palette) and app.screen.is_mounted)
            palette = app.screen
            await app.run_action("escape", palette)
            # the change its input posted for a letter it took before the close, read by the palette after it
            palette.post_message(Input.Changed(palette.query_one(CommandInput), "h"))
            await wait_for(pilot, lambda: not palette.is_running)
            assert searched_closed == [False] and app._exception is None      # the search it opened with only
