"""Under 30 rows the chat has the rows that said something twice: at 80×24 it had 13 of 24 (the tabs' bar, the
chat's box, the meter's second line). The meter and the keys still show, one row each; 30 rows and more keep the
layout they had."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer, Tabs

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.chat_pane import ChatPane
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.token_meter import TokenMeter
from tests.fakes.llm_server import FakeLLMServer
from tests.git_helpers import make_repo
from tests.test_tui_undo import host_for, write
from tests.tui_helpers import finish, make_host, run_turn, wait_for

CHAT_ROWS_AT_80X24 = 17         # 13 before: top bar 1, tabs 1, input 3, meter 1, keys 1 take the other 7


def rows(app: ContextualApp) -> dict[str, int]:
    return {"chat": app.query_one(ChatLog).region.height, "tabs": app.query_one(Tabs).region.height,
            "meter": app.query_one(TokenMeter).region.height, "keys": app.query_one(Footer).region.height}


async def test_at_80x24_the_chat_has_17_rows_and_the_meter_and_the_keys_a_row_each(tmp_path: Path):
    with FakeLLMServer(kind="openai", script=[finish("hello")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "say hello")
            assert rows(app) == {"chat": CHAT_ROWS_AT_80X24, "tabs": 1, "meter": 1, "keys": 1}, rows(app)
            line = app.query_one(TokenMeter).render().plain
            # both figures on the one line, in the two lines' words, within the screen
            assert "\n" not in line and len(line) <= 80, line
            assert " estimate ▕" in line and "trigger (" in line and "next prompt " in line, line
            assert len(app.query_one(Footer).query("FooterKey")) >= 4
            # the chat has no box under its tab; the line at its left says where the focus is
            pane = app.query_one(ChatPane)
            unlit = pane.styles.border_left
            await pilot.press("tab")
            await pilot.pause()
            assert pane.has_class("-lit") and pane.styles.border_left != unlit and unlit[0]
            assert not pane.styles.border_top[0] and not pane.styles.border_bottom[0]

            await pilot.resize_terminal(200, 50)          # a tall screen: the boxes, the tabs' bar, two lines
            await pilot.pause()
            assert app.query_one(ChatLog).region.height == 41 and app.query_one(TokenMeter).region.height == 2
            assert "\n" in app.query_one(TokenMeter).render().plain
            assert pane.styles.border_top[0] and pane.styles.border_bottom[0]
            await pilot.resize_terminal(90, 30)           # tall, under a tab: as before, the tabs' bar and a box
            await pilot.pause()
            assert rows(app)["tabs"] == 2 and pane.styles.border_top[0] and pane.styles.border_bottom[0]
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert rows(app)["chat"] == CHAT_ROWS_AT_80X24


async def test_a_short_history_keeps_its_bottom_border_while_it_says_what_undo_would_undo(tmp_path: Path):
    repo = make_repo(tmp_path)
    script = [write("a.py", "rewritten\n"), finish("rewrote a.py")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(host_for(repo, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            history = app.query_one(HistoryView)
            assert not history.styles.border_bottom[0] and history.styles.border_top[0]   # its title: its state
            await run_turn(pilot, "rewrite a.py")
            await wait_for(pilot, lambda: "undoable" in str(history.border_subtitle))
            await pilot.press("f4")
            await pilot.pause()
            assert history.has_class("-undoable") and history.styles.border_bottom[0]
            assert "undoable" in app.export_screenshot()
