"""The compaction preview's summary is edited after `tab`, as its title says (tmux QA: from the instructions the
focus went to the archived rounds' pane, and the typed edit never reached the summary that was kept)."""

from __future__ import annotations

from textual.widgets import TextArea

from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from tests.tui_helpers import READ_CART, finish, make_host, run_turn, server, type_and_send, wait_for


async def test_tab_then_typing_edits_the_summary_that_is_kept(tmp_path):
    script = [READ_CART, finish("answer 0"), READ_CART, finish("answer 1"), "## Summary\nThe cart was read."]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for i in range(2):
                await run_turn(pilot, f"question {i}")
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            preview = app.screen
            await pilot.press("tab")
            assert preview.focused is preview.query_one(TextArea)
            await pilot.press("ctrl+home", *"EDITED ")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.engine.compactions and app.screen is app.screen_stack[0])
            summary = app.engine.history.messages[0]
            assert summary.role == "summary" and summary.content.startswith("EDITED ")
