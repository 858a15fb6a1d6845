"""/cost in the app: what the session has used and cost (it was "unknown command /cost"; Claude Code's users type
it out of habit)."""

from __future__ import annotations

import json

import pytest

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.token_meter import TokenMeter
from tests.cli_helpers import cli_env, contextual
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import SUMMARY_TEXT, Model
from tests.test_compaction_e2e import three_turns
from tests.tui_helpers import (chat_text, finish, make_host, resumed_app, run_turn, type_and_send, until_shown,
                               wait_for)


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


async def test_a_session_with_an_unpriced_call_costs_the_same_partial_sum_in_the_app_and_in_print_json(tmp_path):
    """One owner, one rule: a priced model whose summary model has no prices. `-p`'s total_cost_usd turned null at
    the unpriced summary call while the app's /cost and meter showed the priced calls' sum as if it were all. Both
    now read the engine's session figures: the priced sum, said as partial, and the calls left unpriced."""
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('[models."fake-model"]\ninput = 1000.0\noutput = 1000.0\n')
    model = Model(three_turns(), summary=Reply(SUMMARY_TEXT, usage_input=5_000, usage_output=100))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home, srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="20000",
                      CONTEXTUAL_SUMMARY_MODEL="unpriced-summary")
        runs = []
        for index, prompt in enumerate(["ALPHA", "BETA", "GAMMA"]):
            args = ["-p", prompt, "--keep-rounds", "1", "--output-format", "json"] + (["-c"] if index else [])
            done = contextual(args, project, env, timeout=30)
            assert done.returncode == 0, done.stderr
            runs.append(json.loads(done.stdout))
        assert len(model.summary_requests) == 1                  # the third run compacted first: one unpriced call
        assert [r["unpriced_calls"] for r in runs] == [0, 0, 1]
        third = runs[2]
        agents_call = third["usage"]["input_tokens"] - 5_000 + third["usage"]["output_tokens"] - 100
        assert third["total_cost_usd"] == pytest.approx(agents_call * 1000.0 / 1e6)     # the priced call's cost
        spent = sum(r["total_cost_usd"] for r in runs)

        app = resumed_app(tmp_path, srv.base_url, runs[0]["session_id"], context_window=20_000,
                          summary_model="unpriced-summary")
        async with app.run_test(size=(200, 50)) as pilot:
            await until_shown(pilot, app)
            await type_and_send(pilot, "/cost")
            await wait_for(pilot, lambda: "this session:" in chat_text(app))
            assert f"cost ≥ ${spent:.4f} (1 call not priced)" in chat_text(app)
            await wait_for(pilot, lambda: app.query_one(TokenMeter).shown is not None)
            assert f"≥${spent:.4f}" in app.query_one(TokenMeter).render().plain
