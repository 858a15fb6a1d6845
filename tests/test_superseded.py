"""Issue 28.2: after an edit and a re-read, L3 shows the file's newest lines, not the stale ones beside them.
Through the real engine and a real server on 127.0.0.1: the second turn's request is what is checked."""

from __future__ import annotations

import json

from contextual.core.context.superseded import notes
from contextual.core.messages import Message
from tests.engine_helpers import engine_with, finish, finished, read_action, run

OLD, NEW = "price = base * 0.9  # TEN_OFF", "price = base * 0.8  # TWENTY_OFF"


def edit(path: str, old: str, new: str) -> str:
    args = json.dumps({"file_path": path, "old_string": old, "new_string": new})
    return f"Thought: change it\nAction: Edit[{args}]"


def second_turn_history(srv) -> str:
    """The L3 part of the second turn's first request: everything before the new user message."""
    messages = srv.requests[-1]["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user" and "second question" in str(m["content"]))
    return json.dumps(messages[:last_user])


async def test_a_read_then_edit_then_reread_sends_only_the_newest_lines_in_history(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "shop.py").write_text("def total(base):\n    " + OLD + "\n    return price\n")
    script = [read_action("shop.py"), edit("shop.py", OLD, NEW), read_action("shop.py"), finish("changed"),
              finish("nothing else")]
    async with engine_with(root, script) as (engine, srv):
        assert finished(await run(engine, "make it twenty percent")).answer == "changed"
        assert finished(await run(engine, "second question")).answer == "nothing else"
    sent = second_turn_history(srv)
    assert NEW in sent
    # The first read's line is gone: only the edit's diff still names the old text, as the change it was.
    first_read = next(m for m in engine.history.messages if m.role == "tool")
    assert OLD in first_read.content               # the session's record keeps it: /context and pins reach it
    assert "shown again, as now, by the Read at step 3" in sent
    edit_call_and_diff = "".join(m.content for m in engine.history.messages if m.tool_name == "Edit")
    assert sent.count("TEN_OFF") == edit_call_and_diff.count("TEN_OFF") == 2


async def test_a_read_then_edit_without_reread_keeps_its_lines_marked_as_before_the_edit(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "shop.py").write_text("def total(base):\n    " + OLD + "\n    return price\n")
    script = [read_action("shop.py"), edit("shop.py", OLD, NEW), finish("changed"), finish("nothing else")]
    async with engine_with(root, script) as (engine, srv):
        await run(engine, "make it twenty percent")
        await run(engine, "second question")
    sent = second_turn_history(srv)
    assert "def total(base)" in sent
    assert "Edit at step 2: lines from before it; Read again for the current text" in sent


def tool(tool_name: str, data: dict, step: int, status: str = "success") -> Message:
    return Message("tool", json.dumps({"status": status, "data": data}), full="whole",
                   meta={"tool_name": tool_name, "step": step, "call_id": f"c{step}"})


def read(path: str, start: int, end: int, step: int) -> Message:
    return tool("Read", {"path": path, "content": "x", "start_line": start, "end_line": end}, step)


def test_only_a_covering_reread_of_the_same_file_in_the_same_round_supersedes():
    slice_, other, whole = read("a.py", 10, 20, 1), read("b.py", 1, 50, 2), read("a.py", 1, 100, 3)
    part = read("a.py", 15, 30, 4)                     # does not cover 1-100: that read stays
    assert set(notes([Message("user", "q"), slice_, other, whole, part])) == {slice_.id}
    # A read in an earlier round stays as it was sent: its round's cached prefix is not rewritten.
    assert notes([Message("user", "q1"), read("a.py", 1, 9, 1), Message("user", "q2"), whole]) == {}


def test_a_failed_write_supersedes_nothing_and_a_second_write_supersedes_the_first():
    first = read("a.py", 1, 10, 1)
    failed = tool("Write", {"path": "a.py"}, 2, status="error")
    w1, w2 = tool("Write", {"path": "a.py", "snippet": "v1"}, 3), tool("Write", {"path": "a.py", "snippet": "v2"}, 4)
    assert notes([Message("user", "q"), first, failed]) == {}
    found = notes([Message("user", "q"), first, w1, w2])
    assert set(found) == {first.id, w1.id} and all(key == "superseded" for key, _ in found.values())


def test_a_pinned_result_is_never_superseded():
    stale, fresh = read("a.py", 1, 10, 1), read("a.py", 1, 10, 2)
    assert notes([Message("user", "q"), stale, fresh], pinned={stale.id}) == {}


async def test_the_app_marks_a_superseded_read_and_shows_what_is_sent_for_it(tmp_path):
    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.stored_full import StoredFullScreen
    from contextual.tui.widgets.aligned_pane import AlignedPane
    from contextual.tui.widgets.history_view import HistoryView
    from tests.tui_helpers import READ_CART, SIZE, make_host, open_history_row, run_turn, server
    again = 'Thought: once more\nAction: Read[{"file_path": "cart.py"}]'
    with server([READ_CART, again, finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read it twice")
            history = app.query_one(HistoryView)
            rows = [history.get_option_at_index(i).prompt.plain for i in range(len(history.messages))]
            assert rows[2].startswith("[superseded]") and "[superseded]" not in rows[4]
            assert rows[2].count("superseded") == 1                  # marked once, not again after the name
            screen = await open_history_row(pilot, 2)
            assert isinstance(screen, StoredFullScreen)
            sent = "\n".join(str(row) for row in screen.query_one("#stored", AlignedPane).rows)
            assert "shown again, as now, by the Read at step 2" in sent and "total_299" not in sent
            assert screen.query_one("#stored", AlignedPane).border_title.startswith("sent as superseded")
