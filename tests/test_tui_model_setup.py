"""/model when things are missing (issue 29.5), through the real app, engine and fake server: a server without
GET /v1/models gives one clear line (never the HTTP library's text); with no model configured the typed message
stays in the input, and /model picks one from the server's list — the message is then sent, no restart."""

from __future__ import annotations

from contextual.tui.app import ContextualApp
from contextual.tui.screens.model_picker import ModelPicker

from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.server_flavors import Flavor
from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, server, type_and_send, wait_for


async def test_a_server_without_a_model_list_is_one_clear_line(tmp_path):
    with server([]) as srv:                     # the plain fake server answers GET /v1/models with 404
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await type_and_send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
            problem = app.screen.problem
            assert problem == (f"no model list from the server (GET {srv.base_url}/models answered 404 Not Found): "
                               "type /model NAME")
            # nothing to pick: the title said "enter switches for the next turns", and enter did nothing (tmux QA);
            # the footer offers no enter, and the title says how to switch instead
            assert app.screen.query_one("#model-box").border_title == "Model · /model NAME switches"
            assert not [b for b in app.screen.active_bindings.values() if b.binding.action == "switch"]
            await pilot.press("escape")


async def test_an_unreachable_server_is_one_clear_line_too(tmp_path):
    with server([]) as srv:
        gone = srv.base_url
    app = ContextualApp(make_host(tmp_path, gone), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.startup.started()
        await type_and_send(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        problem = app.screen.problem
        assert problem.startswith(f"no model list from the server (cannot reach {gone}/models: ")
        assert "\n" not in problem and "httpx" not in problem and "For more information" not in problem


async def test_with_no_model_the_message_waits_and_model_picks_one_without_restarting(tmp_path):
    flavor = Flavor("vllm", n_ctx=32_768, others=(("other-model", 65_536),))
    with FakeLLMServer(kind="openai", script=[finish("hello back")], model="served-model", flavor=flavor) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, model=None), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await type_and_send(pilot, "hello there")
            await wait_for(pilot, lambda: "no model chosen yet" in chat_text(app))
            assert "not sent yet: hello there" in chat_text(app)          # shown, not lost
            assert not srv.requests
            await type_and_send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.names)
            assert app.screen.names == ["other-model", "served-model"] and not app.screen.problem
            # the title is set once the listing is shown, in the frame after `names`
            await wait_for(pilot, lambda: app.screen.query_one("#model-box").border_title == "Model")
            assert app.screen.active_bindings["enter"].binding.description == "switch for the next turns"
            await pilot.press("down", "enter")                            # served-model
            await wait_for(pilot, lambda: app.engine.config.model == "served-model")
            assert app.engine.config.context_window == 32_768             # its window, from the server
            await wait_for(pilot, lambda: app.query_one("#prompt").text == "hello there")   # back, ready
            await run_turn(pilot, "hello there")
            assert "hello back" in chat_text(app)
    chats = [r for r in srv.requests if r.path.endswith("/chat/completions")]
    assert [r["model"] for r in chats] == ["served-model"]


async def test_a_name_the_server_does_not_list_is_refused_with_its_list_and_used_when_typed_again(tmp_path):
    """`/model nosuch-model` switched although the server lists its models, and every later call failed (a user
    review, finding 5): now it is refused with what the server lists (the closest first), and the same command
    again uses it anyway (a server may serve names it does not list)."""
    flavor = Flavor("vllm", n_ctx=32_768, others=(("other-model", 65_536),))
    with FakeLLMServer(kind="openai", script=[], flavor=flavor) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await type_and_send(pilot, "/model other-modle")
            await wait_for(pilot, lambda: "the server does not list other-modle" in chat_text(app))
            assert ("the server does not list other-modle — did you mean other-model? It lists other-model, "
                    "fake-model. /model picks one; /model other-modle again uses it anyway") in chat_text(app)
            await type_and_send(pilot, "/model nosuch-model")
            await wait_for(pilot, lambda: "the server does not list nosuch-model. It lists fake-model, other-model." in chat_text(app))
            assert app.engine.config.model == "fake-model", "refused: the model in force stays"
            await type_and_send(pilot, "/model nosuch-model")                  # insisted: used
            await wait_for(pilot, lambda: app.engine.config.model == "nosuch-model")
            await type_and_send(pilot, "/model other-model")                   # listed: at once, its window
            await wait_for(pilot, lambda: app.engine.config.model == "other-model")
            assert app.engine.config.context_window == 65_536
            await type_and_send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.names)
            options = app.screen.query_one("#models")
            rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert [" ".join(row.split()) for row in rows] == ["fake-model 32.8k window", "● other-model 65.5k window"]
            await pilot.press("escape")


def test_a_name_a_server_accepts_for_a_listed_one_counts_as_listed():
    from contextual.tui.slash.model import listed_as
    assert listed_as("qwen2.5-coder", ["qwen2.5-coder:latest"])                      # Ollama's tag
    assert listed_as("claude-sonnet-4-5", ["claude-sonnet-4-5-20250929"])            # Anthropic's alias
    assert not listed_as("gpt", ["gpt-4o"]) and not listed_as("fake", ["fake-model"])


async def test_a_window_too_small_for_the_system_prompt_is_said_at_launch_and_nothing_is_sent(tmp_path):
    """The app warned at the first message and sent a prompt over the window: the window's problem is said once it
    is known, in the words `-p` uses, and a message sent anyway is refused before any request."""
    with server([finish("never")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=100), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            said = "a 100-token window is too small: the system prompt and tools ("
            await wait_for(pilot, lambda: said in chat_text(app))
            assert "need a window of at least " in chat_text(app)
            await run_turn(pilot, "hello")
            assert chat_text(app).count(said) == 2 and "your message (" in chat_text(app)
            assert not srv.requests and not app.engine.history.messages
