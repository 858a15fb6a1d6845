"""/cost in the app: what the session has used and cost (it was "unknown command /cost"; Claude Code's users type
it out of habit)."""

from __future__ import annotations

from contextual.tui.app import ContextualApp
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import chat_text, finish, make_host, run_turn, type_and_send, wait_for


async def test_cost_says_the_sessions_tokens_and_that_an_unpriced_model_has_no_cost(tmp_path):
    with FakeLLMServer(kind="openai", script=[Reply(text=finish("hello"), usage_input=1_234, usage_output=56)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "/cost")
            await wait_for(pilot, lambda: "nothing used yet" in chat_text(app))
            await run_turn(pilot, "say hello")
            await type_and_send(pilot, "/cost")
            await wait_for(pilot, lambda: "this session: 1,234 input tokens" in chat_text(app))
            said = chat_text(app)
            assert "56 output tokens" in said and "cost unknown: no prices for fake-model" in said
            assert len(srv.requests) == 1                              # /cost itself calls nothing


async def test_cost_prices_the_tokens_at_the_models_configured_prices(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[models."fake-model"]\ninput = 1.0\noutput = 2.0\n')
    reply = Reply(text=finish("hello"), usage_input=1_000_000, usage_output=500_000)
    with FakeLLMServer(kind="openai", script=[reply]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "say hello")
            await type_and_send(pilot, "/cost")
            await wait_for(pilot, lambda: "this session: 1,000,000 input tokens" in chat_text(app))
            assert "500,000 output tokens; cost $2.0000" in chat_text(app)
