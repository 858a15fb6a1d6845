"""Text reads on every theme (tui/contrast.py): the app's own colours were picked for a dark background, and on
textual-light gold, light blue and teal text read at a contrast ratio of 1.5 to 2 (the History row under the
cursor lost its "agent"); under a dialog the screen beneath stays faded."""

from __future__ import annotations

from textual.color import Color
from textual.geometry import Region

from contextual.tui.app import ContextualApp
from contextual.tui.contrast import MIN_CONTRAST, contrast, readable
from contextual.tui.screens.info import InfoScreen
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.token_meter import TokenMeter
from tests.tui_helpers import READ_CART, finish, make_host, run_turn, server, type_and_send, wait_for


def test_a_colour_too_close_to_its_background_moves_away_from_it_and_a_readable_one_stays():
    light, dark, blue = Color.parse("#e0e0e0"), Color.parse("#121212"), Color.parse("#0178d4")
    gold = Color.parse("#d7af5f")
    assert contrast(gold, light) < 2
    lifted = readable(gold, light)
    assert contrast(lifted, light) >= MIN_CONTRAST and lifted.r > lifted.b          # darker, still a warm hue
    assert readable(light, dark) == light
    # light text on a mid blue button goes lighter, not through grey to black
    pale = Color.parse("#ddedf9")
    assert readable(pale, blue).brightness > pale.brightness
    assert contrast(readable(pale, blue), blue) >= MIN_CONTRAST


def text_runs(widget) -> list[tuple[str, float]]:
    """(text, contrast against its cell's background) of every run of the widget's lines that holds a letter."""
    runs = []
    for strip in widget.render_lines(Region(0, 0, *widget.outer_size)):
        for segment in strip:
            style = segment.style
            if style is None or style.color is None or style.bgcolor is None or not any(
                    ch.isalnum() for ch in segment.text):
                continue
            runs.append((segment.text, contrast(Color.from_rich_color(style.color),
                                                Color.from_rich_color(style.bgcolor))))
    return runs


async def test_the_meter_and_history_read_on_the_light_theme_and_a_dialogs_backdrop_stays_faded(tmp_path):
    with server([READ_CART, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            app.theme = "textual-light"
            await run_turn(pilot, "read the cart")
            history = app.query_one(HistoryView)
            history.focus()
            history.highlighted = 1                  # an agent row under the cursor
            await pilot.pause()
            for widget in (app.query_one(TokenMeter), history):
                runs = text_runs(widget)
                assert runs and all(ratio >= MIN_CONTRAST - 0.05 for _, ratio in runs), \
                    [run for run in runs if run[1] < MIN_CONTRAST - 0.05]
            await type_and_send(pilot, "/help")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.pause()
            backdrop = text_runs(app.screen)         # a screen's own lines: the screen beneath, tinted
            assert backdrop and min(ratio for _, ratio in backdrop) < MIN_CONTRAST - 1
            await app.host.close(app.engine)
