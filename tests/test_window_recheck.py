"""A server down at launch: the window used is said to be a guess (its source, and that the server was not reached),
and the server is asked for its window again after the first call that succeeds; a different one is taken and said,
as the launch would have. Before, a llama.cpp started after the app (n_ctx 8192) ran under a silent 200k window
for the whole session (a user review, finding 1)."""

from __future__ import annotations

import socket
from pathlib import Path

from contextual.core.config import load_config
from contextual.core.model_facts import resolve_window
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.welcome import Welcome
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.server_flavors import Flavor
from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, wait_for


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_only_a_server_that_does_not_answer_at_all_is_marked_unreached(tmp_path):
    def config(base_url: str):
        return load_config(tmp_path, env={"CONTEXTUAL_HOME": str(tmp_path / "home"), "CONTEXTUAL_BASE_URL": base_url,
                                          "CONTEXTUAL_MODEL": "fake-model"})
    with FakeLLMServer("openai", []) as srv:            # up, but states no window (its probes get 404)
        up = await resolve_window(config(srv.base_url))
    down = await resolve_window(config(f"http://127.0.0.1:{_closed_port()}/v1"))
    assert (up.context_window, up.window_source, up.server_unreached) == (200_000, "default", False)
    assert (down.context_window, down.window_source, down.server_unreached) == (200_000, "default", True)


async def test_a_server_started_after_the_app_gives_its_window_after_the_first_call(tmp_path):
    port = _closed_port()
    app = ContextualApp(make_host(tmp_path, f"http://127.0.0.1:{port}/v1"), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.startup.started()
        welcome = app.query_one(Welcome)
        await wait_for(pilot, lambda: "200k window (default, server not reached)" in str(welcome.render()))
        await wait_for(pilot, lambda: "did not answer: using the default window of 200,000 tokens" in chat_text(app))
        with FakeLLMServer("openai", [finish("one"), finish("two")], port=port,
                           flavor=Flavor("llamacpp", n_ctx=8192)) as srv:
            await run_turn(pilot, "hello")
            config = app.engine.config
            assert (config.context_window, config.window_source) == (8192, "server: llama.cpp /props")
            assert ("the server answers now and states a window of 8,192 tokens (llama.cpp /props), not the "
                    "200,000 used so far: using 8,192 from now on") in chat_text(app)
            assert app.engine.next_prompt().window == 8192                       # the meter's figure
            meter = app.query_one(TokenMeter)
            await wait_for(pilot, lambda: "of 8.2k window" in str(meter.render()))
            await run_turn(pilot, "again")
            assert "one" in chat_text(app) and "two" in chat_text(app) and len(srv.requests) == 2
            assert chat_text(app).count("the server answers now") == 1


def test_print_mode_says_the_window_is_a_guess_when_the_server_did_not_answer(project: Path):
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    result = contextual(["-p", "hi"], project, cli_env(home_of(project), base, CONTEXTUAL_MAX_RETRIES="0"))
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"warning: the server at {base} did not answer: using the default window of 200,000 tokens; its own is "
        "asked for after the first call that succeeds")
