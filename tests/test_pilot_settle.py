"""Pilot's settle (tests/pilot_settle.py): 5 ms steps, over only once the screen has no frame due."""

from __future__ import annotations

import textual.app
import textual.pilot
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from tests import pilot_settle


class Keys(Screen[None]):
    """A screen whose footer names its keys: the footer makes them a refresh after it is mounted, and lays them out
    a frame after that."""

    BINDINGS = [("a", "first", "first key"), ("b", "second", "second key"), ("escape", "app.pop_screen", "back")]

    def compose(self) -> ComposeResult:
        yield Static("keys")
        yield Footer()

    def action_first(self) -> None:
        pass

    def action_second(self) -> None:
        pass


class Opens(App[None]):
    BINDINGS = [("s", "open", "open")]

    def compose(self) -> ComposeResult:
        yield Static("main", id="box")

    def action_open(self) -> None:
        self.push_screen(Keys())


def test_the_suite_runs_with_it():
    assert textual.pilot.wait_for_idle is pilot_settle.settled
    assert textual.app.wait_for_idle is pilot_settle.settled


async def test_a_key_that_opens_a_screen_returns_with_its_footer_laid_out():
    # 5 ms steps without a look at the frame ended the press between those frames: the footer had no keys yet, or
    # keys 0 columns wide (two suite tests read a footer so and failed; here most openings did).
    app = Opens()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        for _ in range(5):
            await pilot.press("s")
            widths = {str(k.description): k.region.width for k in app.screen.query("FooterKey")}
            assert isinstance(app.screen, Keys) and widths.get("first key") and widths.get("second key"), widths
            await pilot.press("escape")
            assert not isinstance(app.screen, Keys)


async def test_no_frame_is_due_while_the_app_holds_its_frames():
    # Shutting down holds them for good: a wait for that frame lasted its whole bound (1 s) on every key pressed
    # then (a ctrl+q, a test's last keys).
    app = Opens()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        box = app.query_one("#box")
        with app.batch_update():
            box.styles.height = 3
            await pilot._wait_for_screen()          # the change reaches the screen, its frame held by the batch
            assert app.screen._layout_required and not pilot_settle.frame_due(app)
        assert pilot_settle.frame_due(app)
        await pilot.pause()
        assert box.region.height == 3 and not pilot_settle.frame_due(app)
