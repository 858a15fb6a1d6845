"""Lost state after a compaction (issue 29.6). /rewind: the picker lists the messages a compaction summarised too
(read from the session file), marked; going back to one restores the conversation before it from the file, undoes
the compactions made after it, keeps the session's spent calls, and a resume agrees. /compactions: enter opens the
selected compaction's result card with its logged figures. Real app, engine, fake server."""

from __future__ import annotations

from contextual.core.session import load_session
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from contextual.tui.format import tokens
from contextual.tui.screens.rewind_picker import RewindPicker

from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import READ_CART, SIZE, chat_text, compact_through_preview, finish, make_host, run_turn, type_and_send, wait_for


def model(body: dict) -> str:
    if is_summary_request(body):
        return "## Summary\nThe user read the cart three times."
    last = body["messages"][-1]
    content = last.get("content")
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content or [])
    return READ_CART if "Observation" not in text else finish("read it")


def rows(picker: RewindPicker) -> list[str]:
    options = picker.query_one("#rewind-list")
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def three_turns_compacted(pilot) -> None:
    app = pilot.app
    for word in ("first", "second", "third"):
        await run_turn(pilot, f"read the cart, {word}")
    await compact_through_preview(pilot)


async def test_compactions_enter_opens_the_selected_compactions_card(tmp_path):
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await three_turns_compacted(pilot)
            record = app.engine.compactions[0]
            await type_and_send(pilot, "/compactions")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionHistoryScreen))
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
            card = str(app.screen.query_one("#compaction-stage").render())
            assert f"{tokens(record.pre_tokens)} → {tokens(record.post_tokens)} tokens" in card
            assert f"{record.rounds_archived} rounds archived" in card
            await pilot.press("enter")                           # closes the card, back to the history
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionHistoryScreen))


async def test_rewind_to_a_summarised_message_restores_what_came_before_it(tmp_path):
    with FakeLLMServer(kind="openai", responder=model) as srv:
        host = make_host(tmp_path, srv.base_url, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await three_turns_compacted(pilot)
            users = [m.content for m in app.engine.history.messages if m.role == "user"]
            assert users == ["read the cart, third"] and len(app.engine.compactions) == 1
            calls = len(load_session(app.engine.session.path).calls)

            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            shown = rows(app.screen)
            assert len(shown) == 3                                      # not only those since the compaction
            assert "third" in shown[0] and "summarised" not in shown[0]
            assert "second" in shown[1] and "summarised" in shown[1]
            assert "first" in shown[2] and "summarised" in shown[2]
            await pilot.press("down", "enter")                         # back to before "second"
            await wait_for(pilot, lambda: "rewound to before: read the cart, second" in chat_text(app))
            assert "resumed session" not in chat_text(app)       # nothing was resumed

            history = app.engine.history.messages
            assert [m.content for m in history if m.role == "user"] == ["read the cart, first"]
            assert not [m for m in history if m.role == "summary"] and not app.engine.compactions
            assert [m.meta.get("tool_name") for m in history if m.role == "tool"] == ["Read"]
            assert app.query_one("#prompt").text == "read the cart, second"
            assert "third" not in chat_text(app)
            session_id = app.engine.session_id
            await run_turn(pilot, "read the cart, again")             # the session goes on from there
            await pilot.press("ctrl+q")

        loaded = load_session(host.resume(session_id).engine.session.path)
        assert [m.content for m in loaded.history if m.role == "user"] == ["read the cart, first",
                                                                           "read the cart, again"]
        assert not loaded.compactions
        assert len(loaded.calls) > calls              # the spent calls stay: the session's cost survives
