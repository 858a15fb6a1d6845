"""A text widget updated in place (tui/widgets/in_place.py): the screen is laid out again only when the widget's new
text needs another height. A layout arranges every widget of the screen, and a scratchpad step's row is updated at
every streamed fragment of its thought: a fragment that keeps its rows lays out nothing, one that wraps onto a new
row lays the screen out and the row shows it."""

from __future__ import annotations

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.scratchpad import ScratchpadView
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import make_host

LONG = "read the cart, then the totals it defines, then every caller of those totals across the project " * 3


async def test_a_streamed_step_lays_out_the_screen_only_when_it_grows_a_row_and_then_shows_it(tmp_path):
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            pad = app.query_one(ScratchpadView)
            pad.start_turn("how?")
            pad.update_step(1, thought="look")
            await pilot.pause()
            step = pad.query_one(".step")
            rows = step.size.height
            laid_out: list[object] = []
            app.screen.screen_layout_refresh_signal.subscribe(pad, laid_out.append)

            pad.update_step(1, thought="look at the cart")        # the same rows
            await pilot.pause()
            assert laid_out == [] and step.size.height == rows
            assert "look at the cart" in app.export_screenshot().replace("&#160;", " ")

            pad.update_step(1, thought=LONG.strip())              # wraps onto rows of its own
            await pilot.pause()
            assert laid_out and step.size.height > rows + 2
            assert step.size.height == step.get_content_height(step.size, step.size, step.size.width)
            assert "every caller of those totals across the project" in app.export_screenshot().replace("&#160;", " ")
