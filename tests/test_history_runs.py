"""History after a long turn: a run of the same call (one tool, one label as the chat's tool trail shows it, one
form) is one row of its steps and one of its results, ×N, their tokens summed; the header's totals stay those of
every message. A tool row is cut once, with one "…": the arguments give way, the size after them stays in view
(the label was cut at 80 and the row again at the pane: 'ever… …')."""

from __future__ import annotations

import json

import pytest

from contextual.tui.app import ContextualApp
from contextual.tui.screens.stored_full import StoredFullScreen
from contextual.tui.widgets.history_view import HistoryView, sent_tokens
from tests.tui_helpers import finish, make_host, run_turn, server, wait_for

TODO = "Refactor the configuration loader so that it reads every layer in order"
LONG = "echo " + "averyveryverylongargument_" * 8


def todo_step(i: int) -> str:
    todos = [{"content": TODO, "status": "in_progress" if j == i % 3 else "pending"} for j in range(3)]
    return "Thought: update the plan\nAction: TodoWrite[" + json.dumps({"todos": todos}) + "]"


SCRIPT = ([todo_step(i) for i in range(6)]
          + ['Thought: search again\nAction: Grep[{"pattern": "total_1", "path": "."}]'] * 4
          + ["Thought: run it\nAction: Bash[" + json.dumps({"command": LONG}) + "]"] * 2
          + [finish("done")])


def rows_on_screen(history: HistoryView) -> list[str]:
    return [history.render_line(y).text.rstrip() for y in range(history.scrollable_content_region.height)]


def row_texts(history: HistoryView) -> list[str]:
    return [history.get_option_at_index(i).prompt.plain for i in range(history.option_count)]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_a_run_of_the_same_call_is_one_row_and_every_row_is_cut_once(tmp_path, size):
    with server(SCRIPT) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=size) as pilot:
            await run_turn(pilot, "clean up")
            history = app.query_one(HistoryView)
            if not history.display or not history.size.width:
                await pilot.press("f4")
                await wait_for(pilot, lambda: history.size.width > 0)
            messages = app.engine.history.messages
            assert len(messages) == 1 + 2 * 12 + 1
            await pilot.pause()
            shown = rows_on_screen(history)
            for line in shown:                   # one cut, one "…"; a tool row's size stays in view
                assert line.count("…") <= 1 and "… …" not in line, line
                if line.startswith(("▸ TodoWrite", "▸ Bash")):
                    assert line.endswith("⇄"), line
            assert any("TodoWrite ×6" in line for line in shown)
            rows = row_texts(history)
            assert len(rows) == 8                # you, 3 runs of (steps, results), the answer
            assert rows[1].startswith("○ agent ×6 ") and rows[2].startswith("▸ TodoWrite ×6 newest: ")
            assert rows[3].startswith("○ agent ×4 ") and rows[4].startswith("▸ Grep ×4 total_1 · ")
            assert rows[6].startswith("▸ Bash ×2 echo ") and "newest" not in rows[5] + rows[6]   # all alike
            # a grouped row's size is its messages' sum; the header counts every message, as before
            greps = [m for m in messages if m.role == "tool" and m.tool_name == "Grep"]
            assert rows[4].endswith(f" {sum(sent_tokens(m, history.shown) for m in greps)} ⇄")
            assert history.title.startswith("History as sent · L3 · ")
            assert history.title.endswith(f" tok · {len(messages)} messages")
            assert history.total_tokens == sum(sent_tokens(m, history.shown) for m in messages)


async def test_enter_opens_a_runs_newest_and_p_pins_it_on_a_row_of_its_own(tmp_path):
    with server(SCRIPT) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_turn(pilot, "clean up")
            history = app.query_one(HistoryView)
            messages = app.engine.history.messages
            todos = [m for m in messages if m.role == "tool" and m.tool_name == "TodoWrite"]
            title = history.title
            history.focus()
            history.highlighted = 2
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, StoredFullScreen))
            assert app.screen.message is todos[-1]
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, StoredFullScreen))
            history.highlighted = 2
            await pilot.press("p")
            await wait_for(pilot, lambda: todos[-1].id in history.pinned)
            rows = row_texts(history)
            assert rows[2].startswith("▸ TodoWrite ×5 ") and rows[4].startswith("⚲ ▸ TodoWrite {")
            assert history.highlighted == 4 and history.newest(4) is todos[-1]    # the place follows it
            assert history.title.split(" · ")[-1] == title.split(" · ")[-1]      # still every message
