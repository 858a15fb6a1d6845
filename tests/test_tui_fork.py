"""Forking in the app (issue 30.2), real engine and fake server: /rewind's k forks before an earlier message into
a new session (the original untouched, the message back in the input), and /fork copies the session whole."""

from __future__ import annotations

from contextual.core.session import load_session
from contextual.tui.app import ContextualApp
from contextual.tui.screens.rewind_picker import RewindPicker
from contextual.tui.widgets.chat_log import ChatLog
from textual.widgets import Static
from tests.tui_helpers import SIZE, finish, make_host, run_turn, type_and_send, wait_for


async def test_rewind_k_forks_before_a_message_and_fork_copies_the_whole_session(tmp_path):
    from tests.fakes.llm_server import FakeLLMServer
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two"), finish("three")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for text in ("first ask", "second ask"):
                await run_turn(pilot, text)
            parent_id, parent_path = app.engine.session_id, app.engine.session.path
            await app.engine.session.flush()
            before = parent_path.read_bytes()
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            assert app.screen.query_one("#rewind-box").border_title.startswith("Rewind")
            await pilot.press("k")
            assert "Fork: a new session" in str(app.screen.query_one("#rewind-plan").render())
            assert app.screen.query_one("#rewind-box").border_title.startswith("Fork"), "the title says what it is"
            # the footer offers what k does now, and no "files too" (a fork leaves the files as they are)
            shown = {b.binding.description for b in app.screen.active_bindings.values() if b.enabled}
            assert "rewrite instead" in shown and "fork instead" not in shown and "files too" not in shown
            assert "fork there" in shown and "go back there" not in shown       # and what enter does
            await pilot.press("f")
            assert app.screen.restore_files is False
            await pilot.press("k")
            assert app.screen.query_one("#rewind-box").border_title.startswith("Rewind")
            await pilot.press("k")
            await pilot.press("enter")                                 # the newest: before "second ask"
            await wait_for(pilot, lambda: app.engine.session_id not in (None, parent_id))
            await wait_for(pilot, lambda: app.query_one("#prompt").text == "second ask")
            assert [m.content for m in app.engine.history.messages if m.role == "user"] == ["first ask"]
            assert parent_path.read_bytes() == before                  # the original untouched
            child = app.engine.session_id
            await run_turn(pilot, "another way")
            await type_and_send(pilot, "/title Another way")
            await type_and_send(pilot, "/fork")
            await wait_for(pilot, lambda: app.engine.session_id not in (parent_id, child))
            # the fork keeps the title, said to be one (it was listed under its first message: tmux QA)
            assert app.remembered.titles()[app.engine.session_id] == "Another way (fork)"
            whole = [m.content for m in app.engine.history.messages if m.role == "user"]
            assert whole == ["first ask", "another way"]
            await pilot.pause()
            chat = "\n".join(str(w.render()) for w in app.query_one(ChatLog).query(Static))
            # one line, the fork's, with short ids as "resumed session 1a2b3c4d" (two whole UUIDs: helper-121)
            assert f"forked session {child[:8]} into {app.engine.session_id[:8]}:" in chat, chat
            assert "resumed session" not in chat and child not in chat
            grandchild = app.engine.session.path
            await pilot.press("ctrl+q")
    loaded = load_session(grandchild)
    assert loaded.forked_from == child and [m.content for m in loaded.history if m.role == "user"] == whole


async def test_fork_keeps_what_rides_on_the_next_message(tmp_path):
    """A ledger fact re-injected for the next message (the meter's "input" segment) was dropped by /fork without a
    word: the fork's engine started with nothing to send along (user review, helper-121)."""
    from tests.fakes.llm_server import FakeLLMServer
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first ask")
            parent = app.engine.session_id
            app.engine.remind("<system-reminder>re-injected: cart.py:12 total_12 returns 12</system-reminder>")
            await type_and_send(pilot, "/fork")
            await wait_for(pilot, lambda: app.engine.session_id not in (None, parent))
            shown = app.readouts.shown
            assert shown is not None and shown.layers.get("input")      # the meter still counts it
            await run_turn(pilot, "second ask")
            await pilot.press("ctrl+q")
    assert "re-injected: cart.py:12 total_12 returns 12" in str(srv.requests[-1]["messages"][-1]["content"])
