"""The main screen's footer (tui/widgets/keys_footer.py) names the keys of what has the focus, also after the
terminal was in the background."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.history_view import HistoryView
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import finish, make_host, run_turn, wait_for


def named(app) -> set[str]:
    return {key.description for key in app.screen_stack[0].query_one(Footer).query("FooterKey")}


async def test_back_from_the_background_by_a_key_the_footer_names_the_keys_of_what_has_the_focus(tmp_path):
    """In the background (the terminal's focus report, ESC [ O) Textual makes no footer again, and back by a key
    with no report before it, none either: a focus moved meanwhile left the input's keys ("scroll", its pageup)
    over History, whose enter and p the footer did not name."""
    with FakeLLMServer(kind="openai", script=[finish("an answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await run_turn(pilot, "a question")         # History has a row: its keys are shown
            assert "scroll" in named(app)
            app.post_message(events.AppBlur())
            await wait_for(pilot, lambda: not app.app_focus)
            history = app.query_one(HistoryView)
            history.focus()                             # the focus moves while the app is in the background
            await pilot.pause()
            await pilot.press("down")                   # History's own key, the first since
            await pilot.pause()
            assert app.app_focus and app.focused is history
            await wait_for(pilot, lambda: {"open", "pin/unpin"} <= named(app) and "scroll" not in named(app))
